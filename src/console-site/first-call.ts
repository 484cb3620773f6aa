// The first call of a sandbox app: the exact curl for POST /v1/token (client credentials) and GET /v1/items with
// the app's sandbox client id (the secret is a placeholder: the site does not have it, it was shown once), and a
// form that runs both from the server (the developer pastes the secret; it is used for this request and kept
// nowhere) and shows the API's answers as they came. The runs are counted per developer and per organization here,
// and reach the front of this process vouching for the developer's address (src/runtime/vouched-client.ts), so the
// API's per-address budget is the developer's own, never the console server's shared by every developer. An ADSR
// app's first call is an API key's (./first-call-key.ts), on the same route and budget.
import { Environment, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { vouchedClientHeader } from "../runtime/vouched-client.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { html } from "../web/html.js";
import { keyCallPage, runKeyCall } from "./first-call-key.js";
import { merchantFirst, type MerchantStep } from "./first-call-merchant.js";
import {
  answerBlock,
  chosenMerchant,
  commandBox,
  runProblems,
  runResult,
  sandboxMerchantChoice,
  type FirstCallLimits,
  type FirstCallRoute,
  type RunRefusal,
} from "./first-call-parts.js";
import { alert, button, field, postForm } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

/** The shell-quoted curl commands a developer can paste (single quotes: nothing in them is expanded). */
export function firstCallCommands(
  baseUrl: string,
  clientId: string,
  merchantId: number | undefined,
): { token: string; items: string } {
  const body = JSON.stringify({
    grant_type: "client_credentials",
    client_id: clientId,
    client_secret: "<CLIENT_SECRET>",
    ...(merchantId ? { merchant_id: merchantId } : {}),
  });
  return {
    token: `curl -X POST '${baseUrl}v1/token' \\\n  -H 'Content-Type: application/json' \\\n  -d '${body}'`,
    items: `curl '${baseUrl}v1/items?limit=5' \\\n  -H 'Authorization: Bearer <ACCESS_TOKEN>'`,
  };
}

interface Ran {
  token: { status: number; body: string };
  items?: { status: number; body: string };
}

export async function firstCallPage(
  visit: Visit,
  appId: string,
  baseUrl: string,
  ran?: Ran,
  formError?: RunRefusal,
  status = 200,
  step?: MerchantStep,
): Promise<Reply> {
  const { t, locale } = visit;
  const found = await visit.api("getDeveloperApp", { appId: appId });
  if (!found.ok)
    return visit.page(t("console.firstCallTitle"), alert("error", errorText(found.error, locale, t)), {
      status: found.error.status,
    });
  const app = found.value.app!;
  // An ADSR app's calls use an API key; its client credentials are refused (developer.use_api_key).
  if (app.product === Product.ADSR) return keyCallPage(visit, app, baseUrl, undefined, undefined, status, step);
  const sandbox = app.credentials.find((credential) => credential.environment === Environment.SANDBOX);
  const { chosen, choice, none } = await sandboxMerchantChoice(visit, app);
  if (!sandbox)
    return visit.page(t("console.firstCallTitle"), alert("error", t("console.noSandboxCredential")), { status: 409 });
  if (none) {
    const first = merchantFirst(visit, app, step);
    return visit.page(
      t("console.firstCallTitle"),
      html`<p>${t("console.firstCallIntro", { name: app.name })}</p>${first.html}`,
      {
        status,
        problems: first.problems,
      },
    );
  }
  const commands = firstCallCommands(baseUrl, sandbox.clientId, chosen);
  const body = html`${step?.notice ?? ""}<p>${t("console.firstCallIntro", { name: app.name })}</p>
<section class="card" aria-labelledby="curl-heading"><h2 id="curl-heading">${t("console.firstCallCurl")}</h2>
<p>${t("console.firstCallSecretNote")}</p>
<h3 id="curl-token-heading"><bdi>1. POST /v1/token</bdi></h3>${commandBox(visit, "curl-token", "POST /v1/token", commands.token)}
<h3 id="curl-items-heading"><bdi>2. GET /v1/items</bdi></h3>${commandBox(visit, "curl-items", "GET /v1/items", commands.items)}</section>
<section class="card" aria-labelledby="run-heading"><h2 id="run-heading">${t("console.firstCallRun")}</h2>
${postForm(
  // The answer page opens at the answer (a fragment, no script): autofocus alone left it scrolled past on a phone.
  `/apps/${appId}/first-call#run-result`,
  visit.csrf,
  html`${choice}${field({ label: t("console.clientSecret"), name: "client_secret", type: "password", autocomplete: "off", required: true, hint: t("console.firstCallSecretHint"), error: formError?.field ? formError.text : undefined, ltr: true })}
<div class="actions">${button(t("console.firstCallRunButton"))}</div>`,
)}${ran ? runResult(visit, html`${answerBlock(visit, "POST /v1/token", ran.token)}${ran.items ? answerBlock(visit, "GET /v1/items", ran.items) : ""}`) : ""}</section>`;
  return visit.page(t("console.firstCallTitle"), body, {
    copyScript: true,
    status,
    problems: runProblems(visit, formError, { id: "field-client_secret", label: t("console.clientSecret") }),
  });
}

/** Runs of the first call per developer account, and per organization, in a minute. */
export const firstCallsPerDeveloper = 10;
export const firstCallsPerOrganization = 30;

export type { FirstCallLimits, FirstCallRoute };

export function createFirstCallLimits(options: { kv: KeyValueStore; clock: Clock; logger: Logger }): FirstCallLimits {
  const perMinute = createFixedWindowCounter({
    store: options.kv,
    clock: options.clock,
    logger: options.logger,
    name: "console first call",
    windowMs: 60_000,
    whenStoreFails: "count-in-process",
  });
  return {
    async admit(accountId, organizationId) {
      const [developer, organization] = await Promise.all([
        perMinute.hit(`console-first-call:account:${accountId}`),
        perMinute.hit(`console-first-call:organization:${organizationId}`),
      ]);
      return developer.count <= firstCallsPerDeveloper && organization.count <= firstCallsPerOrganization;
    },
  };
}

/** Runs the two calls against the API as a developer would (over HTTP) and shows the answers. */
export async function runFirstCall(
  visit: Visit,
  appId: string,
  baseUrl: string,
  limits: FirstCallLimits,
  route?: FirstCallRoute,
): Promise<Reply> {
  const [app, account] = await Promise.all([visit.api("getDeveloperApp", { appId: appId }), visit.api("getAccount")]);
  if (!app.ok || !account.ok) return firstCallPage(visit, appId, baseUrl);
  const accountId = Number(account.value.account!.accountId);
  if (app.value.app!.product === Product.ADSR)
    return runKeyCall(visit, app.value.app!, accountId, baseUrl, limits, route);
  const sandbox = app.value.app!.credentials.find((credential) => credential.environment === Environment.SANDBOX);
  const secret = visit.form.get("client_secret") ?? "";
  const merchantId = chosenMerchant(visit);
  if (!sandbox || secret === "")
    return firstCallPage(visit, appId, baseUrl, undefined, {
      text: visit.t("console.firstCallSecretMissing"),
      field: true,
    });
  if (!(await limits.admit(accountId, Number(app.value.app!.organizationId))))
    return firstCallPage(visit, appId, baseUrl, undefined, { text: visit.t("console.firstCallTooMany") }, 429);
  const apiUrl = route?.apiUrl() ?? baseUrl;
  const vouch: Record<string, string> = route
    ? { [vouchedClientHeader]: route.vouchedClients.vouch(visit.clientAddress) }
    : {};
  try {
    return firstCallPage(
      visit,
      appId,
      baseUrl,
      await callApi(apiUrl, sandbox.clientId, secret, merchantId, visit.locale, vouch),
    );
  } catch {
    // The API did not answer (BASE_URL unreachable from here): said on the page, not a 500.
    return firstCallPage(visit, appId, baseUrl, undefined, { text: visit.t("console.firstCallUnreachable") });
  }
}

async function callApi(
  baseUrl: string,
  clientId: string,
  secret: string,
  merchantId: number,
  locale: string,
  vouch: Record<string, string>,
): Promise<Ran> {
  const signal = AbortSignal.timeout(30_000);
  const tokenResponse = await fetch(`${baseUrl}v1/token`, {
    method: "POST",
    headers: { "content-type": "application/json", "accept-language": locale, ...vouch },
    body: JSON.stringify({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: secret,
      ...(merchantId ? { merchant_id: merchantId } : {}),
    }),
    signal,
  });
  const tokenBody = (await tokenResponse.json()) as Record<string, unknown>;
  const accessToken = typeof tokenBody["access_token"] === "string" ? tokenBody["access_token"] : undefined;
  // The token is the developer's, but a page is no place for a bearer credential: shown shortened.
  const shown = accessToken ? { ...tokenBody, access_token: `${accessToken.slice(0, 12)}…` } : tokenBody;
  const ran: Ran = { token: { status: tokenResponse.status, body: JSON.stringify(shown, null, 2) } };
  if (accessToken) {
    const items = await fetch(`${baseUrl}v1/items?limit=5`, {
      headers: { authorization: `Bearer ${accessToken}`, "accept-language": locale, ...vouch },
      signal,
    });
    ran.items = { status: items.status, body: JSON.stringify(await items.json(), null, 2) };
  }
  return ran;
}
