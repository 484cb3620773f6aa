// An app's page, one section at a time (./app-sections.ts: the overview at /apps/{id}, then credentials, API keys,
// access requests, redirect URIs, review and settings at /apps/{id}/{section}, only those that apply), and the forms
// each section holds: rename, submit, redirect URIs, secret rotation, production credentials, API keys, IP
// allowlists, access requests, archive. A form's POST keeps its path and answers with the section that holds it (a
// refusal beside the form, a value shown once at the top), or redirects to that section. Values shown once
// (secrets, keys) are the answer to the POST that made them, never stored by the site. A refused form's view also
// passes its problems to the error summary at the top of <main> (./error-summary.ts), each linked to the control it
// concerns there. Roles are the server's to enforce; the sections only offer what may work.
import { Environment, type App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import { momentText } from "../web/i18n.js";
import type { ApiError } from "./console-api.js";
import {
  accessRequestRefusal,
  accessRequestsSection,
  allowlistEntries,
  allowlistRefusal,
  allowlistForm,
  archiveConfirmation,
  type AccessRequestForm,
  type AllowlistState,
} from "./app-access.js";
import {
  sectionApplies,
  sectionLabel,
  sectionMenu,
  sectionPath,
  type AppRights,
  type AppSection,
} from "./app-sections.js";
import { refusalOf, typed } from "./error-summary.js";
import { linkList, linkNames, linkInputs, linksOfForm, linksRefusal, missingLinks } from "./app-links.js";
import { appWithRole, withApp } from "./app-lookup.js";
import { appStateName, productName } from "./labels.js";
import { productionCard } from "./production-credentials.js";
import { confirmed, confirmRevoke, confirmRotation, liveKeyName } from "./credential-confirmations.js";
import { alert, button, field, postForm, secretBox, textarea } from "./ui.js";
import { errorText, type Problem, type Reply, type Visit } from "./visit.js";

export interface AppState {
  error?: ApiError;
  form?: "rename" | "submit" | "redirects" | "rotate" | "keys" | "production" | "archive";
  notice?: SafeHtml;
  redirectValue?: string;
  /** A refused allowlist save: which list, the error, what was typed. */
  allowlist?: AllowlistState;
  /** A refused access request: the error and what was typed. */
  accessRequest?: AccessRequestForm;
}

/** The section that holds the form a state concerns (where its refusal is said beside the form). */
function sectionOf(state: AppState): AppSection {
  if (state.accessRequest) return "access-requests";
  if (state.allowlist) return "clientId" in state.allowlist.target ? "credentials" : "api-keys";
  switch (state.form) {
    case "rename":
    case "archive":
      return "settings";
    case "submit":
      return "review";
    case "redirects":
      return "redirect-uris";
    case "rotate":
    case "production":
      return "credentials";
    case "keys":
      return "api-keys";
    default:
      return "overview";
  }
}

/** What every section's view is given. */
interface View {
  visit: Visit;
  app: App;
  rights: AppRights;
  /** What the role may change, on an app that still changes (every change to an archived app is refused). */
  editable: boolean;
  state: AppState;
  errorOf: (form: AppState["form"]) => ApiError | undefined;
}

/** A section as shown: its content, and the error summary's entries of the refused form it holds (if any). */
interface Shown {
  body: SafeHtml;
  problems: Problem[];
}

/** A refusal said only as its form's alert: one summary entry, linked to no control. */
function refusalText(visit: Visit, error: ApiError | undefined): Problem[] {
  return error ? [{ text: errorText(error, visit.locale, visit.t) }] : [];
}

/**
 * One section of the app's page. A section that does not apply to this app (its product, its state, the viewer's
 * role) answers 404 to a GET; a POST's answer that would land there shows the overview, its refusal at the top.
 */
export async function appPage(
  visit: Visit,
  appId: string,
  section: AppSection,
  state: AppState = {},
  status = 200,
): Promise<Reply> {
  const { t } = visit;
  return withApp(visit, appWithRole(visit, appId), async (found) => {
    const { app, rights } = found;
    const applies = sectionApplies(section, app, rights);
    if (!applies && visit.method !== "POST")
      return visit.page(
        app.name,
        html`${alert("error", t("console.sectionUnavailable"))}<p><a href="${sectionPath(app.appId, "overview")}">${t("console.sectionOverview")}</a></p>`,
        { status: 404 },
      );
    const shown: AppSection = applies ? section : "overview";
    const archived = app.state === "ARCHIVED";
    const editable = !archived && rights.manageApps;
    const view: View = {
      visit,
      app,
      rights,
      editable,
      state,
      errorOf: (form) => (state.form === form ? state.error : undefined),
    };
    // A refusal is said beside its form when this view shows that form; otherwise (the role, an archived app, a
    // section that does not apply) at the top.
    const target = state.allowlist?.target;
    const listShown =
      target !== undefined &&
      editable &&
      ("clientId" in target
        ? app.credentials.some((credential) => credential.clientId === target.clientId)
        : app.apiKeys.some((key) => key.apiKeyId === target.apiKeyId && !key.revoked));
    const offered = editable || (state.form === "archive" && rights.archiveApps);
    const beside = shown === sectionOf(state) && (state.accessRequest !== undefined || (target ? listShown : offered));
    const content = await sectionView(view, shown);
    const body = html`${sectionMenu(visit, app, rights, shown)}
${state.notice ?? ""}
${archived ? alert("info", t("console.archivedNote")) : ""}
${rights.manageApps ? "" : html`<p class="muted">${t("console.appViewerNote")}</p>`}
${content.body}`;
    // The summary names what the view says: the refused form's problems beside it, else the refusal at the top.
    const problems = !state.error
      ? []
      : beside && content.problems.length > 0
        ? content.problems
        : refusalText(visit, state.error);
    return visit.page(app.name, body, {
      status,
      copyScript: true,
      problems,
      documentTitle: shown === "overview" ? app.name : `${sectionLabel(visit, shown)} · ${app.name}`,
      // A form's answer (at its POST path) switches language to the section it shows.
      switchPath: sectionPath(app.appId, shown),
    });
  });
}

function sectionView(view: View, section: AppSection): Promise<Shown> | Shown {
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
${
  rights.archiveApps
    ? html`<section class="card" aria-labelledby="archive-link-heading"><h2 id="archive-link-heading">${t("console.archiveHeading")}</h2>
<p>${t("console.archiveExplain")}</p>
<p><a class="button danger" href="/apps/${app.appId}/archive">${t("console.archiveApp")}</a></p></section>`
    : ""
}`;
  return { body, problems: rename ? refusal.problems : refusalText(visit, errorOf("archive")) };
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

// ---------------------------------------------------------------- the forms

/** The refusal of a form field left empty, as the API words one (400 developer.invalid_request naming the field). */
const emptyField = (name: string): ApiError => ({
  code: "developer.invalid_request",
  params: { fields: name },
  fields: [name],
  status: 400,
});

/** The Settings form: the name and the links for merchants, in one UpdateDeveloperApp; saved, the section again. */
export async function renameApp(visit: Visit, appId: string): Promise<Reply> {
  const name = visit.form.get("name") ?? "";
  // The API reads an empty name as "leave it": from this form it is a mistake, refused as creation refuses it.
  if (!name.trim()) return appPage(visit, appId, "settings", { error: emptyField("name"), form: "rename" }, 400);
  const result = await visit.api("updateDeveloperApp", { appId: appId, name, ...linksOfForm(visit) });
  if (!result.ok)
    return appPage(visit, appId, "settings", { error: result.error, form: "rename" }, result.error.status);
  return { status: 303, location: sectionPath(appId, "settings") };
}

export async function submitApp(visit: Visit, appId: string): Promise<Reply> {
  const result = await visit.api("submitDeveloperApp", { appId: appId });
  if (!result.ok) return appPage(visit, appId, "review", { error: result.error, form: "submit" }, result.error.status);
  return { status: 303, location: sectionPath(appId, "review") };
}

export async function setRedirectUris(visit: Visit, appId: string): Promise<Reply> {
  const text = visit.form.get("redirectUris") ?? "";
  const uris = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const result = await visit.api("setAppRedirectUris", { appId: appId, redirectUris: uris });
  if (!result.ok)
    return appPage(
      visit,
      appId,
      "redirect-uris",
      { error: result.error, form: "redirects", redirectValue: text },
      result.error.status,
    );
  return appPage(visit, appId, "redirect-uris", { notice: alert("ok", visit.t("console.saved")) });
}

export async function rotateSecret(visit: Visit, appId: string, clock: () => number): Promise<Reply> {
  const { t, locale } = visit;
  if (!confirmed(visit)) {
    const asked = await confirmRotation(visit, appId);
    if (!("code" in asked)) return asked;
    return appPage(visit, appId, "credentials", { error: asked, form: "rotate" }, asked.status);
  }
  const result = await visit.api("rotateAppClientSecret", {
    appId: appId,
    clientId: visit.form.get("client_id") ?? "",
  });
  if (!result.ok)
    return appPage(visit, appId, "credentials", { error: result.error, form: "rotate" }, result.error.status);
  const until = new Date(Number(result.value.previousSecretExpiresAtMs));
  const hours = Math.round((until.getTime() - clock()) / 3_600_000);
  const notice = html`<section class="card" aria-labelledby="rotated-heading"><h2 id="rotated-heading">${t("console.newSecretHeading")}</h2>
<p>${t("common.shownOnce")}</p>
${secretBox({ id: "client-secret", label: t("console.clientSecret"), value: result.value.clientSecret, copy: t("common.copy"), copied: t("common.copied") })}
${alert("info", t("console.rotationOverlap", { until: momentText(locale, until), hours }))}</section>`;
  return appPage(visit, appId, "credentials", { notice });
}

export async function createApiKey(visit: Visit, appId: string): Promise<Reply> {
  const { t } = visit;
  const environment = visit.form.get("environment") === "PRODUCTION" ? "PRODUCTION" : "SANDBOX";
  const result = await visit.api("createAppApiKey", { appId: appId, name: visit.form.get("name") ?? "", environment });
  if (!result.ok) return appPage(visit, appId, "api-keys", { error: result.error, form: "keys" }, result.error.status);
  const key = result.value.apiKey!;
  const notice = html`<section class="card" aria-labelledby="new-key-heading"><h2 id="new-key-heading">${t("console.newApiKeyHeading")}</h2>
<p>${t("common.shownOnce")} ${t("console.apiKeyUse")}</p>
${secretBox({ id: "api-key", label: t("console.apiKey"), value: key.apiKey, copy: t("common.copy"), copied: t("common.copied") })}</section>`;
  return appPage(visit, appId, "api-keys", { notice });
}

/** Asks first (credential-confirmations.ts), then revokes and says so on the API keys view. */
export async function revokeApiKey(visit: Visit, appId: string): Promise<Reply> {
  const name = await liveKeyName(visit, appId);
  if (typeof name !== "string") return appPage(visit, appId, "api-keys", { error: name, form: "keys" }, name.status);
  if (!confirmed(visit)) return confirmRevoke(visit, appId, name);
  const result = await visit.api("revokeAppApiKey", { appId: appId, apiKeyId: visit.form.get("api_key_id") ?? "" });
  if (!result.ok) return appPage(visit, appId, "api-keys", { error: result.error, form: "keys" }, result.error.status);
  const notice = alert("ok", visit.t("console.apiKeyRevoked", { name: `\u2068${name}\u2069` }));
  return appPage(visit, appId, "api-keys", { notice });
}

export async function revealProduction(visit: Visit, appId: string): Promise<Reply> {
  const { t } = visit;
  const app = await visit.api("getDeveloperApp", { appId: appId });
  if (!app.ok) return appPage(visit, appId, "credentials");
  const result = await visit.api("revealProductionCredentials", {
    organizationId: Number(app.value.app!.organizationId),
    appId: appId,
  });
  if (!result.ok)
    return appPage(visit, appId, "credentials", { error: result.error, form: "production" }, result.error.status);
  const production = result.value.production!;
  const notice = html`<section class="card" aria-labelledby="production-secret-heading"><h2 id="production-secret-heading">${t("console.productionHeading")}</h2>
<p>${t("common.shownOnce")}</p>
${secretBox({ id: "client-id", label: t("console.clientId"), value: production.clientId, copy: t("common.copy"), copied: t("common.copied") })}
${secretBox({ id: "client-secret", label: t("console.clientSecret"), value: production.clientSecret, copy: t("common.copy"), copied: t("common.copied") })}</section>`;
  return appPage(visit, appId, "credentials", { notice });
}

/** The client id's IP allowlist (SetAppClientIpAllowlist), replaced as a whole; a refusal beside that list. */
export async function setClientAllowlist(visit: Visit, appId: string): Promise<Reply> {
  const clientId = visit.form.get("client_id") ?? "";
  const text = visit.form.get("allowedIps") ?? "";
  const result = await visit.api("setAppClientIpAllowlist", { appId, clientId, allowedIps: allowlistEntries(text) });
  if (!result.ok)
    return appPage(
      visit,
      appId,
      "credentials",
      { error: result.error, allowlist: { target: { clientId }, error: result.error, value: text } },
      result.error.status,
    );
  return appPage(visit, appId, "credentials", { notice: alert("ok", visit.t("console.allowlistSaved")) });
}

/** An API key's IP allowlist (SetAppApiKeyIpAllowlist), replaced as a whole; a refusal beside that list. */
export async function setKeyAllowlist(visit: Visit, appId: string): Promise<Reply> {
  const apiKeyId = visit.form.get("api_key_id") ?? "";
  const text = visit.form.get("allowedIps") ?? "";
  const result = await visit.api("setAppApiKeyIpAllowlist", { appId, apiKeyId, allowedIps: allowlistEntries(text) });
  if (!result.ok)
    return appPage(
      visit,
      appId,
      "api-keys",
      { error: result.error, allowlist: { target: { apiKeyId }, error: result.error, value: text } },
      result.error.status,
    );
  return appPage(visit, appId, "api-keys", { notice: alert("ok", visit.t("console.allowlistSaved")) });
}

/**
 * An ADSR access request (CreateAppAccessRequest): a live merchant's company id and the stores wanted. The typed
 * values go to the API as typed (numbers when they are), so its schema names a wrong one.
 */
export async function createAccessRequest(visit: Visit, appId: string): Promise<Reply> {
  const companyId = (visit.form.get("companyId") ?? "").trim();
  const storeIds = visit.form.get("storeIds") ?? "";
  const asNumber = (value: string) => (/^\d{1,15}$/.test(value) ? Number(value) : value);
  const result = await visit.api("createAppAccessRequest", {
    appId,
    companyId: companyId === "" ? 0 : asNumber(companyId),
    storeIds: storeIds
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(asNumber),
  });
  if (!result.ok)
    return appPage(
      visit,
      appId,
      "access-requests",
      { error: result.error, accessRequest: { error: result.error, companyId, storeIds } },
      result.error.status,
    );
  return appPage(visit, appId, "access-requests", {
    notice: alert(
      "ok",
      visit.t("console.accessRequestSent", { companyId: String(result.value.accessRequest?.companyId ?? companyId) }),
    ),
  });
}

/** The archive step (GET): the consequence said first, then the button. */
export async function archivePage(visit: Visit, appId: string, error?: ApiError, status = 200): Promise<Reply> {
  const { t } = visit;
  return withApp(visit, appWithRole(visit, appId), async (found) => {
    if (found.app.state === "ARCHIVED") return { status: 303, location: `/apps/${appId}` };
    return visit.page(t("console.archiveTitle", { name: found.app.name }), archiveConfirmation(visit, found.app), {
      status,
      problems: refusalText(visit, error),
    });
  });
}

/** Archives the app (ArchiveDeveloperApp), only from the confirmation form; a refusal on that page. */
export async function archiveApp(visit: Visit, appId: string): Promise<Reply> {
  // Without the confirmation form's field, the consequence was not shown: show it.
  if (visit.form.get("confirm") !== "archive") return archivePage(visit, appId);
  const result = await visit.api("archiveDeveloperApp", { appId });
  if (!result.ok) return archivePage(visit, appId, result.error, result.error.status);
  return { status: 303, location: `/apps/${appId}` };
}
