// The sections of an app's page (./app-pages.ts shows one): overview, credentials, API keys, access requests,
// redirect URIs, review and settings, each with the forms it holds and the refusal beside the refused one.
import { Environment, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import { accessRequestRefusal, accessRequestsSection, allowlistRefusal, allowlistForm } from "./app-access.js";
import { sectionPath, type AppSection } from "./app-sections.js";
import { refusalOf, typed } from "./error-summary.js";
import { linkList, linkNames, linkInputs, linksRefusal, missingLinks } from "./app-links.js";
import { appStateName, productName } from "./labels.js";
import { securityCard } from "./security-settings.js";
import { productionCard } from "./production-credentials.js";
import { button, field, postForm, textarea } from "./ui.js";
import type { Visit } from "./visit.js";
import { type View, type Shown, refusalText } from "./app-page-view.js";

export function sectionView(view: View, section: AppSection): Promise<Shown> | Shown {
  switch (section) {
    case "overview":
      return overview(view);
    case "credentials":
      return credentials(view);
    case "api-keys":
      return apiKeys(view);
    case "access-requests":
      return accessRequests(view);
    case "redirect-uris":
      return redirectUris(view);
    case "review":
      return review(view);
    case "settings":
      return settings(view);
  }
}

const environmentName = (visit: Visit, environment: Environment) =>
  environment === Environment.PRODUCTION ? visit.t("console.production") : visit.t("console.sandbox");

/** The facts, the first call (the one primary action), and the links to what the app is doing. */
function overview({ visit, app }: View): Shown {
  const { t } = visit;
  const archived = app.state === "ARCHIVED";
  const body = html`<dl class="facts"><dt>${t("console.product")}</dt><dd>${productName(visit, app.product)}</dd>
<dt>${t("console.state")}</dt><dd><span class="badge">${appStateName(visit, app.state)}</span></dd>
${app.pendingName ? html`<dt>${t("console.pendingName")}</dt><dd>${app.pendingName}</dd>` : ""}
<dt>${t("console.appId")}</dt><dd class="ltr">${app.appId}</dd></dl>
<p class="actions">${archived ? "" : html`<a class="button" href="/apps/${app.appId}/first-call">${t("console.firstCallTitle")}</a> `}<a href="/organizations/${app.organizationId}">${t("console.backToOrganization")}</a></p>
<section class="card" aria-labelledby="activity-heading"><h2 id="activity-heading">${t("console.activityHeading")}</h2>
<p>${t("console.activityExplain")}</p>
<ul class="app-links"><li><a href="/apps/${app.appId}/requests">${t("console.requestLogLink")}</a></li><li><a href="/apps/${app.appId}/usage">${t("console.usageLink")}</a></li></ul></section>
<section class="card" aria-labelledby="webhooks-heading"><h2 id="webhooks-heading">${t("console.webhooksHeading")}</h2>
<p>${t("console.webhooksExplain")}</p>
<ul class="app-links"><li><a href="/apps/${app.appId}/webhooks?environment=sandbox">${t("console.webhooksLink", { environment: t("console.sandbox") })}</a></li><li><a href="/apps/${app.appId}/webhooks?environment=production">${t("console.webhooksLink", { environment: t("console.production") })}</a></li></ul></section>`;
  return { body, problems: [] };
}

/** The client ids (OAuth products): rotation and IP allowlists, all secondary; revealing production ones is primary. */
function credentials({ visit, app, rights, editable, state, errorOf }: View): Shown {
  const { t } = visit;
  const refusedList = state.allowlist;
  // The refused list's control, when this view shows it (the summary links there).
  let refusedListField: { id: string; label: string } | undefined;
  const rows = app.credentials.map(
    (
      credential,
    ) => html`<li><span class="badge">${environmentName(visit, credential.environment)}</span> <code class="ltr">${credential.clientId}</code>
${editable ? postForm(`/apps/${app.appId}/rotate`, visit.csrf, button(t("console.rotateSecret"), { kind: "secondary", ariaLabel: `${t("console.rotateSecret")}: ${credential.clientId}` }), { className: "inline-form", hidden: { client_id: credential.clientId } }) : ""}
${allowlistView(visit, credential.allowedIps)}
${
  editable
    ? allowlistForm(visit, {
        action: `/apps/${app.appId}/allowed-ips`,
        hidden: { client_id: credential.clientId },
        ...listField(
          {
            id: `allowlist-${credential.clientId}`,
            label: t("console.allowlistOf", {
              name: `${environmentName(visit, credential.environment)} ${credential.clientId}`,
            }),
          },
          refusedList !== undefined &&
            "clientId" in refusedList.target &&
            refusedList.target.clientId === credential.clientId,
          (list) => {
            refusedListField = list;
          },
        ),
        current: credential.allowedIps,
        state: refusedList,
      })
    : ""
}</li>`,
  );
  const production = app.state === "APPROVED" && rights.manageApps ? productionCard(visit, app) : "";
  const body = html`<section class="card" aria-labelledby="credentials-heading"><h2 id="credentials-heading">${t("console.credentialsHeading")}</h2>
${editable ? html`<p>${t("console.rotateExplain")}</p>` : ""}
<ul class="list">${rows}</ul></section>
${production}`;
  const problems =
    refusedList && refusedListField
      ? allowlistRefusal(visit, refusedList.error, refusedListField).problems
      : refusalText(visit, errorOf("rotate") ?? errorOf("production"));
  return { body, problems };
}

/** An ADSR app's keys: each with its allowlist (secondary) and revoke (danger); creating one is primary. */
function apiKeys({ visit, app, editable, state, errorOf }: View): Shown {
  const { t } = visit;
  const keysError = errorOf("keys");
  const keysRefusal = refusalOf(visit, keysError, { name: { id: "api-key-name", label: t("console.apiKeyName") } });
  const refusedList = state.allowlist;
  // The refused list's control, when this view shows it (the summary links there).
  let refusedListField: { id: string; label: string } | undefined;
  const hasProduction = app.credentials.some((credential) => credential.environment === Environment.PRODUCTION);
  const list =
    app.apiKeys.length === 0
      ? html`<p>${t("console.noApiKeys")}</p>`
      : html`<ul class="list">${app.apiKeys.map(
          (
            key,
          ) => html`<li>${key.name} <span class="badge">${environmentName(visit, key.environment)}</span> <span class="badge">${key.revoked ? t("console.revoked") : t("console.active")}</span>
${key.revoked || !editable ? "" : postForm(`/apps/${app.appId}/api-keys/revoke`, visit.csrf, button(t("console.revoke"), { kind: "danger", ariaLabel: `${t("console.revoke")}: ${key.name}` }), { className: "inline-form", hidden: { api_key_id: key.apiKeyId } })}
${key.revoked ? "" : allowlistView(visit, key.allowedIps)}
${
  key.revoked || !editable
    ? ""
    : allowlistForm(visit, {
        action: `/apps/${app.appId}/api-keys/allowed-ips`,
        hidden: { api_key_id: key.apiKeyId },
        ...listField(
          { id: `allowlist-key-${key.apiKeyId}`, label: t("console.allowlistOf", { name: key.name }) },
          refusedList !== undefined && "apiKeyId" in refusedList.target && refusedList.target.apiKeyId === key.apiKeyId,
          (list) => {
            refusedListField = list;
          },
        ),
        current: key.allowedIps,
        state: refusedList,
        collapsed: { name: key.name },
      })
}</li>`,
        )}</ul>`;
  const create = editable
    ? html`<h3>${t("console.createApiKey")}</h3>
${postForm(
  `/apps/${app.appId}/api-keys`,
  visit.csrf,
  html`${field({ id: "api-key-name", label: t("console.apiKeyName"), name: "name", required: true, value: typed(visit, keysError, "name"), error: keysRefusal.at("name") })}
<div class="field"><label for="field-environment">${t("console.environment")}</label><select id="field-environment" name="environment"><option value="SANDBOX">${t("console.sandbox")}</option>${hasProduction ? html`<option value="PRODUCTION"${typed(visit, keysError, "environment") === "PRODUCTION" ? raw(" selected") : ""}>${t("console.production")}</option>` : ""}</select></div>
<div class="actions">${button(t("console.createApiKey"))}</div>`,
)}`
    : "";
  const body = html`<section class="card" aria-labelledby="keys-heading"><h2 id="keys-heading">${t("console.apiKeysHeading")}</h2>
<p>${t("console.apiKeysExplain")}</p>
${list}
${create}</section>`;
  const problems =
    refusedList && refusedListField
      ? allowlistRefusal(visit, refusedList.error, refusedListField).problems
      : keysRefusal.problems;
  return { body, problems };
}

async function accessRequests({ visit, app, rights, state }: View): Promise<Shown> {
  const requests = await visit.api("listAppAccessRequests", { appId: app.appId });
  const body = accessRequestsSection(
    visit,
    app,
    requests.ok ? requests.value.accessRequests : requests.error,
    rights.manageApps,
    state.accessRequest,
  );
  // The form is there only on an approved app, for a role that may; otherwise the refusal is an alert, no field.
  const formShown = rights.manageApps && app.state === "APPROVED";
  const error = state.accessRequest?.error;
  return { body, problems: formShown ? accessRequestRefusal(visit, error).problems : refusalText(visit, error) };
}

function redirectUris({ visit, app, editable, state, errorOf }: View): Shown {
  const { t } = visit;
  // Every refusal of the list is about the list (a limit names no field): said beside it.
  const refusal = refusalOf(
    visit,
    errorOf("redirects"),
    { redirectUris: { id: "field-redirectUris", label: t("console.redirectUris"), items: "line" } },
    { concerns: ["redirectUris"] },
  );
  const content = editable
    ? html`${postForm(`/apps/${app.appId}/redirect-uris`, visit.csrf, html`${textarea({ label: t("console.redirectUris"), name: "redirectUris", value: state.redirectValue ?? app.redirectUris.join("\n"), hint: t("console.redirectRules"), error: refusal.at("redirectUris"), ltr: true })}<div class="actions">${button(t("console.save"))}</div>`)}`
    : app.redirectUris.length > 0
      ? html`<ul class="list">${app.redirectUris.map((uri) => html`<li class="ltr">${uri}</li>`)}</ul>`
      : html`<p>${t("console.noRedirectUris")}</p>`;
  const body = html`<section class="card" aria-labelledby="redirects-heading"><h2 id="redirects-heading">${t("console.redirectsHeading")}</h2>
${content}</section>`;
  return { body, problems: refusal.problems };
}

/**
 * Where the app stands in its review; submitting is the view's one action. An app without its three links for
 * merchants is not offered the button (review refuses it): the view names what is missing and leads to Settings.
 */
function review({ visit, app, editable, errorOf }: View): Shown {
  const { t } = visit;
  const submittable = app.state === "DRAFT" || app.state === "REJECTED";
  const missing = missingLinks(app);
  const refused = errorOf("submit");
  // A refusal for missing links (a page older than the links' removal) in words, with the links named.
  const refusedText =
    refused?.code === "developer.app_links_missing"
      ? t("console.linksMissingText", { links: linkList(visit, missing.length > 0 ? missing : linkNames) })
      : undefined;
  const needsLinks =
    submittable && missing.length > 0
      ? html`<p>${t("console.reviewLinksMissing")}</p>
<ul class="missing-links">${missing.map((name) => html`<li>${linkList(visit, [name])}</li>`)}</ul>
${editable ? html`<p class="actions"><a class="button" href="${sectionPath(app.appId, "settings")}">${t("console.addLinks")}</a></p>` : ""}`
      : "";
  const body = html`<section class="card" aria-labelledby="review-heading"><h2 id="review-heading">${t("console.reviewHeading")}</h2>
<p>${t("console.reviewExplain")}</p>
<p><strong>${appStateName(visit, app.state)}</strong> · ${reviewStateText(visit, app.state)}</p>
${app.pendingName ? html`<p>${t("console.pendingNameExplain", { name: app.pendingName })}</p>` : ""}
${needsLinks}
${editable && submittable && missing.length === 0 ? postForm(`/apps/${app.appId}/submit`, visit.csrf, html`<div class="actions">${button(t("console.submitForReview"))}</div>`) : ""}
</section>`;
  return { body, problems: refusedText ? [{ text: refusedText }] : refusalText(visit, refused) };
}

/** The name and the links for merchants (saving them is the primary action) and the way to the archive step. */
function settings({ visit, app, rights, errorOf }: View): Shown {
  const { t } = visit;
  const rename = errorOf("rename");
  const refusal = linksRefusal(visit, rename, { name: { id: "field-name", label: t("console.appName") } });
  const kept = app.state === "IN_REVIEW" || app.state === "APPROVED";
  const body = html`<section class="card" aria-labelledby="edit-heading"><h2 id="edit-heading">${t("console.editApp")}</h2>
${postForm(
  `/apps/${app.appId}/rename`,
  visit.csrf,
  html`${field({ label: t("console.appName"), name: "name", value: typed(visit, rename, "name") ?? (app.pendingName || app.name), required: true, hint: app.state === "APPROVED" ? t("console.renameApproved") : undefined, error: refusal.at("name") })}<p class="hint">${t("console.productOnce")}</p>
${linkInputs(visit, { error: rename, refusal, current: app, explain: kept ? t("console.linksKept") : t("console.linksOptional") })}
<div class="actions">${button(t("console.save"))}</div>`,
)}
</section>
${app.product === Product.ADSR ? "" : securityCard(visit, app)}
${
  rights.archiveApps
    ? html`<section class="card" aria-labelledby="archive-link-heading"><h2 id="archive-link-heading">${t("console.archiveHeading")}</h2>
<p>${t("console.archiveExplain")}</p>
<p><a class="button danger" href="/apps/${app.appId}/archive">${t("console.archiveApp")}</a></p></section>`
    : ""
}`;
  return {
    body,
    problems: rename
      ? refusal.problems
      : refusalText(visit, errorOf("archive") ?? errorOf("pushed-requests") ?? errorOf("dpop")),
  };
}

/** Where the app stands in its review, and what comes next. */
function reviewStateText(visit: Visit, state: string): string {
  switch (state) {
    case "DRAFT":
      return visit.t("console.reviewStateDraft");
    case "IN_REVIEW":
      return visit.t("console.reviewStateInReview");
    case "APPROVED":
      return visit.t("console.reviewStateApproved");
    case "REJECTED":
      return visit.t("console.reviewStateRejected");
    default:
      return "";
  }
}

/**
 * An allowlist's control as its form names it, and whether it is the refused one (`mine`); `refused` hears of it,
 * so the view's summary links to that list.
 */
function listField(
  list: { id: string; label: string },
  mine: boolean,
  refused: (list: { id: string; label: string }) => void,
): { id: string; label: string; mine: boolean } {
  if (mine) refused(list);
  return { ...list, mine };
}

/** A saved allowlist as text: its entries, or "any address" when there is none. */
function allowlistView(visit: Visit, entries: string[]): SafeHtml {
  return html`<p class="hint">${visit.t("console.allowlistCurrent")} ${entries.length === 0 ? visit.t("console.allowlistAny") : html`<span class="ltr">${entries.join(", ")}</span>`}</p>`;
}
