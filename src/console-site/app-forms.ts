// The forms of an app's page (./app-pages.ts): each POST calls the ConsoleService and answers with the section that
// holds the form (a refusal beside it, a value shown once at the top) or redirects to that section; and the archive
// step's confirmation page.
import { html } from "../web/html.js";
import { momentText } from "../web/i18n.js";
import type { ApiError } from "./console-api.js";
import { allowlistEntries, archiveConfirmation } from "./app-access.js";
import { sectionPath } from "./app-sections.js";
import { linksOfForm } from "./app-links.js";
import { appWithRole, withApp } from "./app-lookup.js";
import { alert, secretBox } from "./ui.js";
import type { Reply, Visit } from "./visit.js";
import { refusalText } from "./app-page-view.js";
import { appPage } from "./app-pages.js";
import { requiredOfForm } from "./security-settings.js";
import { confirmed, confirmRevoke, confirmRotation, liveKeyName } from "./credential-confirmations.js";

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

/** The "require pushed authorization requests" card's button: that one field, in an UpdateDeveloperApp. */
export async function setPushedRequests(visit: Visit, appId: string): Promise<Reply> {
  const required = requiredOfForm(visit);
  if (required === undefined)
    return appPage(visit, appId, "settings", { error: emptyField("required"), form: "pushed-requests" }, 400);
  const result = await visit.api("updateDeveloperApp", {
    appId,
    name: "",
    requirePushedAuthorizationRequests: required,
  });
  if (!result.ok)
    return appPage(visit, appId, "settings", { error: result.error, form: "pushed-requests" }, result.error.status);
  return { status: 303, location: sectionPath(appId, "settings") };
}

/** The "require DPoP" card's button: that one field, in an UpdateDeveloperApp. */
export async function setRequireDpop(visit: Visit, appId: string): Promise<Reply> {
  const required = requiredOfForm(visit);
  if (required === undefined)
    return appPage(visit, appId, "settings", { error: emptyField("required"), form: "dpop" }, 400);
  const result = await visit.api("updateDeveloperApp", { appId, name: "", requireDpop: required });
  if (!result.ok) return appPage(visit, appId, "settings", { error: result.error, form: "dpop" }, result.error.status);
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
