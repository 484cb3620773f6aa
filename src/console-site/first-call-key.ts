// The first call of an ADSR app, whose calls use an API key (spec "Products"; its client credentials are refused at
// /v1/token with developer.use_api_key): the curl of GET /v1/stores with `X-API-Key: <API_KEY>` and the merchant's
// companyId (a key names no merchant), and a form that runs it from the server with a sandbox key the developer
// pastes (shown once when it was created; used for this request and kept nowhere), reaching the front as the
// client-credentials first call does (vouching for the developer's address, on the same per-developer and
// per-organization budget). The page says which merchants a key reads and, in words and as the body, what the
// partner gets from a merchant that has not granted the app access.
import { Environment, type App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { renderPartnerError } from "../errors/index.js";
import { vouchedClientHeader } from "../runtime/vouched-client.js";
import { html, jsonSample } from "../web/html.js";
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
import { merchantFirst, type MerchantStep } from "./first-call-merchant.js";
import { alert, button, field, postForm } from "./ui.js";
import type { Reply, Visit } from "./visit.js";

/** The route the key's first call reads: one the ADSR bundle holds (stores.read) and that needs no date window. */
const storesPath = "v1/stores";
/** A pasted key as a header can carry it: printable ASCII, no spaces (anything else is no key of ours). */
const keyShape = /^[\x21-\x7e]{1,256}$/;

/** The shell-quoted curl a developer can paste (single quotes: nothing in it is expanded). */
export function keyCallCommand(baseUrl: string, companyId: number | undefined): string {
  return `curl '${baseUrl}${storesPath}?companyId=${companyId ?? "<COMPANY_ID>"}' \\\n  -H 'X-API-Key: <API_KEY>'`;
}

interface KeyRan {
  status: number;
  body: string;
  /** The error code of a refusal, when the body has one. */
  code?: string;
}

export async function keyCallPage(
  visit: Visit,
  app: App,
  baseUrl: string,
  ran?: KeyRan,
  formError?: RunRefusal,
  status = 200,
  step?: MerchantStep,
): Promise<Reply> {
  const { t, locale } = visit;
  const { chosen, choice, none } = await sandboxMerchantChoice(visit, app);
  if (none) {
    const first = merchantFirst(visit, app, step);
    return visit.page(
      t("console.firstCallTitle"),
      html`<p>${t("console.firstCallKeyIntro", { name: app.name })}</p>${first.html}`,
      { status, problems: first.problems },
    );
  }
  const hasSandboxKey = app.apiKeys.some((key) => !key.revoked && key.environment === Environment.SANDBOX);
  // What a partner gets from a merchant that has not granted the app: the front's own envelope, in the page's language.
  const refusal = renderPartnerError({ code: "partner.company_not_granted", params: {} }, locale, {
    path: "/v1/stores",
    timestamp: "…",
    correlationId: "…",
  });
  const body = html`${step?.notice ?? ""}<p>${t("console.firstCallKeyIntro", { name: app.name })}</p>
<section class="card" aria-labelledby="curl-heading"><h2 id="curl-heading">${t("console.firstCallCurl")}</h2>
<p>${t("console.firstCallKeyNote")}</p>
<h3 id="curl-stores-heading"><bdi>GET /v1/stores</bdi></h3>${commandBox(visit, "curl-stores", "GET /v1/stores", keyCallCommand(baseUrl, chosen))}</section>
<section class="card" aria-labelledby="access-heading"><h2 id="access-heading">${t("console.firstCallKeyAccessHeading")}</h2>
<p>${t("console.firstCallKeyAccess")}</p>
<p>${t("console.firstCallKeyRefusal")}</p>
<pre tabindex="0" aria-labelledby="access-heading" data-testid="refusal-body"><code>${jsonSample(JSON.stringify(refusal.body, null, 2))}</code></pre></section>
<section class="card" aria-labelledby="run-heading"><h2 id="run-heading">${t("console.firstCallRun")}</h2>
${hasSandboxKey ? "" : alert("info", html`${t("console.firstCallNoKey")} <a href="/apps/${app.appId}/api-keys">${t("console.createApiKey")}</a>`)}
${postForm(
  `/apps/${app.appId}/first-call#run-result`,
  visit.csrf,
  html`${choice}${field({ label: t("console.apiKey"), name: "api_key", type: "password", autocomplete: "off", required: true, hint: t("console.firstCallSecretHint"), error: formError?.field ? formError.text : undefined, ltr: true })}
<div class="actions">${button(t("console.firstCallRunButton"))}</div>`,
)}${ran ? runResult(visit, html`${answerBlock(visit, "GET /v1/stores", ran)}${ran.code === "partner.company_not_granted" ? html`<p>${t("console.firstCallNotGranted")}</p>` : ""}`) : ""}</section>`;
  return visit.page(t("console.firstCallTitle"), body, {
    copyScript: true,
    status,
    problems: runProblems(visit, formError, { id: "field-api_key", label: t("console.apiKey") }),
  });
}

/** Runs the key's call against the API as a partner would (over HTTP) and shows its answer. */
export async function runKeyCall(
  visit: Visit,
  app: App,
  accountId: number,
  baseUrl: string,
  limits: FirstCallLimits,
  route?: FirstCallRoute,
): Promise<Reply> {
  const { t } = visit;
  const key = (visit.form.get("api_key") ?? "").trim();
  if (!keyShape.test(key))
    return keyCallPage(visit, app, baseUrl, undefined, {
      text: t("console.firstCallKeyMissing"),
      field: true,
    });
  if (!(await limits.admit(accountId, Number(app.organizationId))))
    return keyCallPage(visit, app, baseUrl, undefined, { text: t("console.firstCallTooMany") }, 429);
  const apiUrl = route?.apiUrl() ?? baseUrl;
  const vouch: Record<string, string> = route
    ? { [vouchedClientHeader]: route.vouchedClients.vouch(visit.clientAddress) }
    : {};
  const merchantId = chosenMerchant(visit);
  try {
    // No merchant chosen: the call goes without companyId, and the API says what is missing.
    const query = merchantId ? `?companyId=${merchantId}` : "";
    const response = await fetch(`${apiUrl}${storesPath}${query}`, {
      headers: { "x-api-key": key, "accept-language": visit.locale, ...vouch },
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    const code = typeof answer["code"] === "string" ? answer["code"] : undefined;
    return keyCallPage(visit, app, baseUrl, {
      status: response.status,
      body: JSON.stringify(answer, null, 2),
      ...(code ? { code } : {}),
    });
  } catch {
    // The API did not answer (BASE_URL unreachable from here): said on the page, not a 500.
    return keyCallPage(visit, app, baseUrl, undefined, { text: t("console.firstCallUnreachable") });
  }
}
