// The signed-in console: the dashboard (account, program, organizations), the partner program (application and
// agreement), an organization (apps, sandbox merchants), an app (state, credentials, rename, submit, redirect
// URIs, secret rotation). Values shown once (secrets, a sandbox owner's password) are the answer to the POST that
// made them, never stored by the site. Roles are the server's to enforce; the pages only offer what may work.
import { OrganizationRole, ProgramApplicationState } from "../../gen/partnerapi/v1/console_service_pb.js";
import { Environment, Product, type App, type Merchant } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { momentText } from "../web/i18n.js";
import { programStateText } from "./account-pages.js";
import type { ApiError } from "./console-api.js";
import {
  accessRequestsSection,
  allowlistEntries,
  allowlistForm,
  archiveConfirmation,
  type AccessRequestForm,
  type AllowlistState,
} from "./app-access.js";
import { appStateName, generalError, productName, rightsOf, roleName } from "./labels.js";
import { membersList, orphanRefusal, roleOptions } from "./members.js";
import { pendingInvitations } from "./pending-invitations.js";
import { alert, button, field, postForm, secretBox, textarea } from "./ui.js";
import { errorFor, errorText, type Reply, type Visit } from "./visit.js";

/** The sandbox merchant limit the API enforces per organization (developer.sandbox_limit). */
export const sandboxMerchantLimit = 3;

const productHints = {
  [Product.FULL]: "console.productFullHint",
  [Product.ONLINE_ORDER]: "console.productOnlineOrderHint",
  [Product.ADSR]: "console.productAdsrHint",
} as const;

// ---------------------------------------------------------------- dashboard

export async function dashboard(
  visit: Visit,
  state: { error?: ApiError; notice?: SafeHtml } = {},
  status = 200,
): Promise<Reply> {
  const { t } = visit;
  const [account, organizations] = await Promise.all([
    visit.api("getAccount"),
    visit.api("listDeveloperOrganizations"),
  ]);
  if (!account.ok)
    return visit.page(t("console.dashboardTitle"), alert("error", errorText(account.error, visit.locale, t)), {
      status: account.error.status,
    });
  const me = account.value.account!;
  const orgs = organizations.ok ? organizations.value.organizations : [];
  const programReady =
    me.programApplicationState === ProgramApplicationState.APPROVED &&
    me.activeAgreementVersion > 0 &&
    me.signedAgreementVersion === me.activeAgreementVersion;
  const body = html`${state.notice ?? ""}
<section class="card" aria-labelledby="account-heading"><h2 id="account-heading">${t("console.accountHeading")}</h2>
<dl class="facts"><dt>${t("console.email")}</dt><dd class="ltr">${me.email}</dd>
<dt>${t("console.programHeading")}</dt><dd>${programStateText(visit, me.programApplicationState)}${programReady ? html` · ${t("console.agreementSignedShort")}` : ""}</dd></dl>
${programReady ? "" : html`<p><a href="/program">${t("console.programCta")}</a></p>`}</section>
<section class="card" aria-labelledby="orgs-heading"><h2 id="orgs-heading">${t("console.organizationsHeading")}</h2>
${orgs.length === 0 ? html`<p>${t("console.noOrganizations")}</p>` : html`<ul class="list">${orgs.map((org) => html`<li><a href="/organizations/${org.organizationId}">${org.name}</a> <span class="badge">${roleName(visit, org.role)}</span></li>`)}</ul>`}
<h3>${t("console.createOrganization")}</h3>
${generalError(visit, state.error, ["name"])}
${postForm("/organizations", visit.csrf, html`${field({ label: t("console.organizationName"), name: "name", required: true, error: errorFor(state.error, "name", visit.locale, t) })}<div class="actions">${button(t("console.createOrganization"))}</div>`)}
</section>`;
  return visit.page(t("console.dashboardTitle"), body, { status });
}

export async function createOrganization(visit: Visit): Promise<Reply> {
  const result = await visit.api("createDeveloperOrganization", { name: visit.form.get("name") ?? "" });
  if (!result.ok) return dashboard(visit, { error: result.error }, result.error.status);
  return { status: 303, location: `/organizations/${result.value.organization!.organizationId}` };
}

// ---------------------------------------------------------------- partner program

export async function programPage(
  visit: Visit,
  state: { error?: ApiError; notice?: string } = {},
  status = 200,
): Promise<Reply> {
  const { t, locale } = visit;
  const [account, agreement] = await Promise.all([visit.api("getAccount"), visit.api("getActiveAgreement")]);
  if (!account.ok)
    return visit.page(t("console.programTitle"), alert("error", errorText(account.error, locale, t)), {
      status: account.error.status,
    });
  const me = account.value.account!;
  const applied = me.programApplicationState;
  const canApply = applied === ProgramApplicationState.UNSPECIFIED || applied === ProgramApplicationState.DECLINED;
  const current = agreement.ok ? agreement.value.agreement : undefined;
  const signed = current !== undefined && me.signedAgreementVersion === current.version;
  const applicationForm = postForm(
    "/program/apply",
    visit.csrf,
    html`${generalError(visit, state.error, ["companyName", "website", "useCase"])}
${field({ label: t("console.companyName"), name: "companyName", required: true, autocomplete: "organization", error: errorFor(state.error, "companyName", locale, t) })}
${field({ label: t("console.website"), name: "website", type: "url", autocomplete: "url", error: errorFor(state.error, "website", locale, t), ltr: true })}
${textarea({ label: t("console.useCase"), name: "useCase", hint: t("console.useCaseHint"), error: errorFor(state.error, "useCase", locale, t) })}
<p class="hint">${t("console.ndaNote")}</p>
<div class="actions">${button(t("console.applyButton"))}</div>`,
  );
  const agreementSection = current
    ? html`<p>${t("console.agreementCurrent", { title: current.title, version: current.version })} <a href="${current.url}" class="ltr">${t("console.agreementRead")}</a></p>
${signed ? alert("ok", t("console.agreementSigned", { version: current.version })) : postForm("/program/sign", visit.csrf, html`<div class="actions">${button(t("console.agreementSign", { version: current.version }))}</div>`, { hidden: { version: String(current.version) } })}`
    : html`<p>${t("console.agreementNone")}</p>${
        visit.development
          ? html`<p>${t("console.agreementStaffHint")}</p><pre dir="ltr"><code>${staffCommand(`publish-agreement "Local terms" https://example.com/terms`)}</code></pre>`
          : ""
      }`;
  const body = html`${state.notice ? alert("ok", state.notice) : ""}
<section class="card" aria-labelledby="application-heading"><h2 id="application-heading">${t("console.applicationHeading")}</h2>
<p><strong>${programStateText(visit, applied)}</strong></p>
${applied === ProgramApplicationState.PENDING ? html`<p>${t("console.programPendingExplain")}</p>${staffHint(visit, me.programApplicationId)}` : ""}
${canApply ? applicationForm : ""}</section>
<section class="card" aria-labelledby="agreement-heading"><h2 id="agreement-heading">${t("console.agreementHeading")}</h2>
${state.error?.code.startsWith("developer.agreement") ? alert("error", errorText(state.error, locale, t)) : ""}
${agreementSection}</section>`;
  return visit.page(t("console.programTitle"), body, { status });
}

/** `npm run staff -- <command>`, as a developer types it in the project folder. */
const staffCommand = (command: string) => `npm run staff -- ${command}`;

/**
 * In development mode (no staff exist), the exact command that approves the waiting application; nothing otherwise,
 * where staff decide and the page only says it is waiting.
 */
function staffHint(visit: Visit, applicationId: bigint | undefined): SafeHtml | string {
  if (!visit.development || applicationId === undefined) return "";
  return html`<p>${visit.t("console.programStaffHint")}</p><pre dir="ltr"><code>${staffCommand(`approve ${applicationId}`)}</code></pre>`;
}

export async function applyToProgram(visit: Visit): Promise<Reply> {
  const fields = {
    companyName: visit.form.get("companyName") ?? "",
    website: visit.form.get("website") ?? "",
    useCase: visit.form.get("useCase") ?? "",
  };
  const result = await visit.api("submitProgramApplication", fields);
  if (!result.ok) return programPage(visit, { error: result.error }, result.error.status);
  return { status: 303, location: "/program" };
}

export async function signAgreement(visit: Visit): Promise<Reply> {
  const version = Number(/^[1-9]\d{0,8}$/.test(visit.form.get("version") ?? "") ? visit.form.get("version") : 0);
  const result = await visit.api("signAgreement", { version });
  if (!result.ok) return programPage(visit, { error: result.error }, result.error.status);
  return { status: 303, location: "/program" };
}

// ---------------------------------------------------------------- organization: apps and sandbox merchants

export interface OrganizationState {
  error?: ApiError;
  /** Which form the error belongs to. */
  form?: "app" | "sandbox" | "invite" | "member" | "invitation";
  /** The member a refused role change or removal concerns. */
  memberId?: number;
  /** The invitation a refused resend or revoke concerns. */
  invitationId?: number;
  notice?: SafeHtml;
}

export async function organizationPage(
  visit: Visit,
  organizationId: number,
  state: OrganizationState = {},
  status = 200,
): Promise<Reply> {
  const { t, locale } = visit;
  const [orgs, apps, merchants, members, invitations] = await Promise.all([
    visit.api("listDeveloperOrganizations"),
    visit.api("listDeveloperApps", { organizationId: organizationId }),
    visit.api("listOrganizationSandboxMerchants", { organizationId: organizationId }),
    visit.api("listOrganizationMembers", { organizationId: organizationId }),
    visit.api("listOrganizationInvitations", { organizationId: organizationId }),
  ]);
  const organization = orgs.ok
    ? orgs.value.organizations.find((org) => Number(org.organizationId) === organizationId)
    : undefined;
  if (!organization || !apps.ok) {
    const error = !apps.ok ? apps.error : undefined;
    return visit.page(
      t("console.organizationTitleUnknown"),
      alert("error", error ? errorText(error, locale, t) : t("console.organizationUnknown")),
      { status: error?.status ?? 404 },
    );
  }
  const canManage = rightsOf(organization.role).manageApps;
  const sandbox = merchants.ok ? merchants.value.merchants : [];
  const active = sandbox.filter((merchant) => merchant.active);
  const appError = state.form === "app" ? state.error : undefined;
  const sandboxError = state.form === "sandbox" ? state.error : undefined;
  const products = [Product.FULL, Product.ONLINE_ORDER, Product.ADSR].map(
    (
      product,
    ) => html`<div class="choice"><input type="radio" id="product-${product}" name="product" value="${Product[product]}" required${product === Product.FULL ? html` checked` : ""} aria-describedby="product-${product}-hint">
<div><label for="product-${product}">${productName(visit, product)}</label><p class="hint" id="product-${product}-hint">${t(productHints[product as Product.FULL])}</p></div></div>`,
  );
  const createApp = canManage
    ? html`<h3>${t("console.createApp")}</h3>
${generalError(visit, appError, ["name", "product"])}
${postForm(
  `/organizations/${organizationId}/apps`,
  visit.csrf,
  html`${field({ label: t("console.appName"), name: "name", required: true, error: errorFor(appError, "name", locale, t) })}
<fieldset><legend>${t("console.product")}</legend>${products}
<p class="hint">${t("console.productOnce")}</p>${errorFor(appError, "product", locale, t) ? html`<p class="field-error">${errorFor(appError, "product", locale, t)}</p>` : ""}</fieldset>
<div class="actions">${button(t("console.createApp"))}</div>`,
)}`
    : html`<p class="muted">${t("console.viewerNote")}</p>`;
  const merchantRows = sandbox.map((merchant) => merchantRow(visit, organizationId, merchant, canManage));
  const provision = canManage
    ? html`<h3>${t("console.provisionMerchant")}</h3>
<p class="hint">${t("console.sandboxLimitRule", { limit: sandboxMerchantLimit, active: active.length })}</p>
${generalError(visit, sandboxError, ["country", "name"])}
${postForm(
  `/organizations/${organizationId}/sandbox-merchants`,
  visit.csrf,
  html`${field({ label: t("console.merchantName"), name: "name", error: errorFor(sandboxError, "name", locale, t) })}
${field({ label: t("console.country"), name: "country", required: true, value: "GB", hint: t("console.countryHint"), error: errorFor(sandboxError, "country", locale, t), ltr: true })}
<div class="actions">${button(t("console.provisionMerchant"))}</div>`,
)}`
    : "";
  const inviteError = state.form === "invite" ? state.error : undefined;
  // Members and invitations: shown to every member; the role changes, removals and the invitation form only to the
  // roles that may (the server refuses the others regardless, and its refusal is shown in the member's row).
  const canInvite = rightsOf(organization.role).manageMembers;
  const memberRefusal =
    state.form === "member" && state.error && state.memberId !== undefined
      ? { error: state.error, memberId: state.memberId }
      : undefined;
  const listed = members.ok ? members.value.members : [];
  const invitationRefusal =
    state.form === "invitation" && state.error && state.invitationId !== undefined
      ? { error: state.error, invitationId: state.invitationId }
      : undefined;
  const membersSection = html`<section class="card" aria-labelledby="members-heading"><h2 id="members-heading">${t("console.membersHeading")}</h2>
${orphanRefusal(visit, listed, memberRefusal)}
${members.ok ? membersList(visit, organizationId, listed, organization.role, memberRefusal) : alert("error", errorText(members.error, locale, t))}
${invitations.ok ? pendingInvitations(visit, organizationId, invitations.value.invitations, canInvite, invitationRefusal) : alert("error", errorText(invitations.error, locale, t))}
${
  canInvite
    ? html`<h3>${t("console.inviteHeading")}</h3>
${generalError(visit, inviteError, ["email", "role"])}
${postForm(
  `/organizations/${organizationId}/invitations`,
  visit.csrf,
  html`${field({ label: t("console.email"), name: "email", type: "email", required: true, error: errorFor(inviteError, "email", locale, t), ltr: true })}
<div class="field"><label for="field-role">${t("console.role")}</label><select id="field-role" name="role">${roleOptions(visit, OrganizationRole.DEVELOPER)}</select><p class="hint">${t("console.rolesExplain")}</p></div>
<div class="actions">${button(t("console.sendInvitation"))}</div>`,
)}`
    : html`<p class="muted">${t("console.inviteRoleNote")}</p>`
}</section>`;
  // A refusal of a form this role is not shown (the server refused it regardless) is said at the top; a member's
  // refusal is said in that member's row (or above the list, orphanRefusal), an invitation's beside its form when shown.
  const formHidden =
    state.form === "member" || state.form === "invitation" ? false : state.form === "invite" ? !canInvite : !canManage;
  const refused = formHidden && state.error ? alert("error", errorText(state.error, locale, t)) : "";
  const body = html`${state.notice ?? ""}${refused}
<p><span class="badge">${roleName(visit, organization.role)}</span></p>
<section class="card" aria-labelledby="apps-heading"><h2 id="apps-heading">${t("console.appsHeading")}</h2>
${apps.value.apps.length === 0 ? html`<p>${t("console.noApps")}</p>` : html`<ul class="list">${apps.value.apps.map((app) => appRow(visit, app))}</ul>`}
${createApp}</section>
<section class="card" aria-labelledby="sandbox-heading"><h2 id="sandbox-heading">${t("console.sandboxHeading")}</h2>
<p>${t("console.sandboxExplain")}</p>
${sandbox.length === 0 ? html`<p>${t("console.noMerchants")}</p>` : html`<ul class="list">${merchantRows}</ul>`}
${provision}</section>
${membersSection}`;
  return visit.page(t("console.organizationTitle", { name: organization.name }), body, { status, copyScript: true });
}

function appRow(visit: Visit, app: App): SafeHtml {
  return html`<li><a href="/apps/${app.appId}">${app.name}</a> · ${productName(visit, app.product)} <span class="badge">${appStateName(visit, app.state)}</span></li>`;
}

function merchantRow(visit: Visit, organizationId: number, merchant: Merchant, canManage: boolean): SafeHtml {
  const { t } = visit;
  const name = merchant.name || String(merchant.companyId);
  const toggle = canManage
    ? postForm(
        `/organizations/${organizationId}/sandbox-merchants/${merchant.companyId}/${merchant.active ? "deactivate" : "activate"}`,
        visit.csrf,
        button(merchant.active ? t("console.deactivate") : t("console.activate"), {
          kind: merchant.active ? "danger" : "secondary",
          ariaLabel: `${merchant.active ? t("console.deactivate") : t("console.activate")}: ${name}`,
        }),
        { className: "inline-form" },
      )
    : "";
  const orders = html`<a href="/organizations/${organizationId}/sandbox-merchants/${merchant.companyId}" aria-label="${t("console.merchantOrdersNamed", { name })}">${t("console.merchantOrdersLink")}</a>`;
  return html`<li>${name} · ${t("console.companyId")} <span class="ltr">${String(merchant.companyId)}</span> · <span class="ltr">${merchant.country}</span> <span class="badge">${merchant.active ? t("console.active") : t("console.inactive")}</span> ${orders} ${toggle}</li>`;
}

export async function createApp(visit: Visit, organizationId: number): Promise<Reply> {
  const { t } = visit;
  const product = visit.form.get("product") ?? "";
  const result = await visit.api("createDeveloperApp", {
    organizationId: organizationId,
    name: visit.form.get("name") ?? "",
    product,
  });
  if (!result.ok)
    return organizationPage(visit, organizationId, { error: result.error, form: "app" }, result.error.status);
  const app = result.value.app!;
  const sandbox = result.value.sandbox!;
  // The sandbox secret is in this answer only: shown once, with a copy button.
  const body = html`${alert("ok", t("console.appCreated", { name: app.name }))}
<section class="card" aria-labelledby="secret-heading"><h2 id="secret-heading">${t("console.sandboxCredentials")}</h2>
<p>${t("common.shownOnce")}</p>
${secretBox({ id: "client-id", label: t("console.clientId"), value: sandbox.clientId, copy: t("common.copy"), copied: t("common.copied") })}
${secretBox({ id: "client-secret", label: t("console.clientSecret"), value: sandbox.clientSecret, copy: t("common.copy"), copied: t("common.copied") })}
</section>
<p class="actions"><a class="button" href="/apps/${app.appId}">${t("console.openApp")}</a> <a class="button secondary" href="/apps/${app.appId}/first-call">${t("console.firstCallTitle")}</a></p>`;
  return visit.page(t("console.appCreatedTitle"), body, { copyScript: true });
}

export async function provisionMerchant(visit: Visit, organizationId: number): Promise<Reply> {
  const { t } = visit;
  const name = visit.form.get("name") ?? "";
  const result = await visit.api("provisionOrganizationSandboxMerchant", {
    organizationId: organizationId,
    country: (visit.form.get("country") ?? "").trim().toUpperCase(),
    ...(name ? { name } : {}),
  });
  if (!result.ok) {
    const error = result.error.code === "developer.sandbox_limit" ? { ...result.error } : result.error;
    return organizationPage(visit, organizationId, { error, form: "sandbox" }, result.error.status);
  }
  const merchant = result.value.merchant!;
  const owner = result.value.owner!;
  // The owner's login (for the consent screen) is in this answer only.
  const notice = html`${alert("ok", t("console.merchantProvisioned", { name: merchant.name, companyId: String(merchant.companyId) }))}
<section class="card" aria-labelledby="owner-heading"><h2 id="owner-heading">${t("console.ownerLogin")}</h2>
<p>${t("console.ownerLoginExplain")} ${t("common.shownOnce")}</p>
${secretBox({ id: "owner-email", label: t("console.email"), value: owner.email, copy: t("common.copy"), copied: t("common.copied") })}
${secretBox({ id: "owner-password", label: t("console.password"), value: owner.password, copy: t("common.copy"), copied: t("common.copied") })}
</section>`;
  return organizationPage(visit, organizationId, { notice });
}

export async function inviteMember(visit: Visit, organizationId: number): Promise<Reply> {
  const role = visit.form.get("role") ?? "";
  const email = visit.form.get("email") ?? "";
  const result = await visit.api("createOrganizationInvitation", {
    organizationId: organizationId,
    email,
    role,
  });
  if (!result.ok)
    return organizationPage(visit, organizationId, { error: result.error, form: "invite" }, result.error.status);
  return organizationPage(visit, organizationId, { notice: alert("ok", visit.t("console.invitationSent", { email })) });
}

/** Resends a pending invitation: back to the page with a notice, or the refusal in the invitation's row. */
export async function resendInvitation(visit: Visit, organizationId: number, invitationId: number): Promise<Reply> {
  const result = await visit.api("resendOrganizationInvitation", { organizationId, invitationId });
  if (!result.ok)
    return organizationPage(
      visit,
      organizationId,
      { error: result.error, form: "invitation", invitationId },
      result.error.status,
    );
  const email = result.value.invitation?.email ?? "";
  return organizationPage(visit, organizationId, {
    notice: alert("ok", visit.t("console.invitationResent", { email })),
  });
}

/** Revokes a pending invitation: its link stops working. */
export async function revokeInvitation(visit: Visit, organizationId: number, invitationId: number): Promise<Reply> {
  // The email for the notice: read before the invitation leaves the pending list.
  const listed = await visit.api("listOrganizationInvitations", { organizationId });
  const email = listed.ok
    ? (listed.value.invitations.find((invitation) => Number(invitation.invitationId) === invitationId)?.email ?? "")
    : "";
  const result = await visit.api("revokeOrganizationInvitation", { organizationId, invitationId });
  if (!result.ok)
    return organizationPage(
      visit,
      organizationId,
      { error: result.error, form: "invitation", invitationId },
      result.error.status,
    );
  return organizationPage(visit, organizationId, {
    notice: alert("ok", visit.t("console.invitationRevoked", { email })),
  });
}

/** A member's new role (UpdateOrganizationMember): back to the page, or the refusal in the member's row. */
export async function updateMember(visit: Visit, organizationId: number, accountId: number): Promise<Reply> {
  const result = await visit.api("updateOrganizationMember", {
    organizationId,
    accountId,
    role: visit.form.get("role") ?? "",
  });
  if (!result.ok)
    return organizationPage(
      visit,
      organizationId,
      { error: result.error, form: "member", memberId: accountId },
      result.error.status,
    );
  return { status: 303, location: `/organizations/${organizationId}` };
}

/** Removes a member (RemoveOrganizationMember); who removed themselves is no longer a member: the dashboard. */
export async function removeMember(visit: Visit, organizationId: number, accountId: number): Promise<Reply> {
  const me = await visit.api("getAccount");
  const result = await visit.api("removeOrganizationMember", { organizationId, accountId });
  if (!result.ok)
    return organizationPage(
      visit,
      organizationId,
      { error: result.error, form: "member", memberId: accountId },
      result.error.status,
    );
  return {
    status: 303,
    location: me.ok && Number(me.value.account?.accountId) === accountId ? "/" : `/organizations/${organizationId}`,
  };
}

export async function setMerchantActive(
  visit: Visit,
  organizationId: number,
  companyId: number,
  active: boolean,
): Promise<Reply> {
  const result = await visit.api("setOrganizationSandboxMerchantActive", {
    organizationId: organizationId,
    companyId: companyId,
    active,
  });
  if (!result.ok)
    return organizationPage(visit, organizationId, { error: result.error, form: "sandbox" }, result.error.status);
  return { status: 303, location: `/organizations/${organizationId}` };
}

// ---------------------------------------------------------------- an app

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

/** The app and the viewer's role in its organization (the page offers only what the role may do). */
export async function appWithRole(visit: Visit, appId: string) {
  const [result, orgs] = await Promise.all([
    visit.api("getDeveloperApp", { appId }),
    visit.api("listDeveloperOrganizations"),
  ]);
  if (!result.ok) return result;
  const role = orgs.ok
    ? orgs.value.organizations.find((org) => org.organizationId === result.value.app!.organizationId)?.role
    : undefined;
  return { ok: true as const, app: result.value.app!, rights: rightsOf(role) };
}

export async function appPage(visit: Visit, appId: string, state: AppState = {}, status = 200): Promise<Reply> {
  const { t, locale } = visit;
  const found = await appWithRole(visit, appId);
  if (!found.ok)
    return visit.page(t("console.appTitleUnknown"), alert("error", errorText(found.error, locale, t)), {
      status: found.error.status,
    });
  const { app, rights } = found;
  const errorOf = (form: AppState["form"]) => (state.form === form ? state.error : undefined);
  const archived = app.state === "ARCHIVED";
  // What the role may change, on an app that still changes (every change to an archived app is refused).
  const editable = !archived && rights.manageApps;
  const environmentName = (environment: Environment) =>
    environment === Environment.PRODUCTION ? t("console.production") : t("console.sandbox");
  const refusedList = state.allowlist;
  const credentials = app.credentials.map(
    (
      credential,
    ) => html`<li><span class="badge">${environmentName(credential.environment)}</span> <code class="ltr">${credential.clientId}</code>
${editable ? postForm(`/apps/${app.appId}/rotate`, visit.csrf, button(t("console.rotateSecret"), { kind: "secondary", ariaLabel: `${t("console.rotateSecret")}: ${credential.clientId}` }), { className: "inline-form", hidden: { client_id: credential.clientId } }) : ""}
${allowlistView(visit, credential.allowedIps)}
${
  editable
    ? allowlistForm(visit, {
        action: `/apps/${app.appId}/allowed-ips`,
        hidden: { client_id: credential.clientId },
        id: `allowlist-${credential.clientId}`,
        label: t("console.allowlistOf", { name: `${environmentName(credential.environment)} ${credential.clientId}` }),
        current: credential.allowedIps,
        state: refusedList,
        mine:
          refusedList !== undefined &&
          "clientId" in refusedList.target &&
          refusedList.target.clientId === credential.clientId,
      })
    : ""
}</li>`,
  );
  const hasProduction = app.credentials.some((credential) => credential.environment === Environment.PRODUCTION);
  const keysError = errorOf("keys");
  const accessRequests =
    app.product === Product.ADSR ? await visit.api("listAppAccessRequests", { appId: app.appId }) : undefined;
  const apiKeys =
    app.product === Product.ADSR
      ? html`<section class="card" aria-labelledby="keys-heading"><h2 id="keys-heading">${t("console.apiKeysHeading")}</h2>
<p>${t("console.apiKeysExplain")}</p>
${generalError(visit, keysError, ["name"])}
${
  app.apiKeys.length === 0
    ? html`<p>${t("console.noApiKeys")}</p>`
    : html`<ul class="list">${app.apiKeys.map(
        (
          key,
        ) => html`<li>${key.name} <span class="badge">${environmentName(key.environment)}</span> <span class="badge">${key.revoked ? t("console.revoked") : t("console.active")}</span>
${key.revoked || !editable ? "" : postForm(`/apps/${app.appId}/api-keys/revoke`, visit.csrf, button(t("console.revoke"), { kind: "danger", ariaLabel: `${t("console.revoke")}: ${key.name}` }), { className: "inline-form", hidden: { api_key_id: key.apiKeyId } })}
${key.revoked ? "" : allowlistView(visit, key.allowedIps)}
${
  key.revoked || !editable
    ? ""
    : allowlistForm(visit, {
        action: `/apps/${app.appId}/api-keys/allowed-ips`,
        hidden: { api_key_id: key.apiKeyId },
        id: `allowlist-key-${key.apiKeyId}`,
        label: t("console.allowlistOf", { name: key.name }),
        current: key.allowedIps,
        state: refusedList,
        mine:
          refusedList !== undefined && "apiKeyId" in refusedList.target && refusedList.target.apiKeyId === key.apiKeyId,
      })
}</li>`,
      )}</ul>`
}
${
  editable
    ? html`<h3>${t("console.createApiKey")}</h3>
${postForm(
  `/apps/${app.appId}/api-keys`,
  visit.csrf,
  html`${field({ id: "api-key-name", label: t("console.apiKeyName"), name: "name", required: true, error: errorFor(keysError, "name", locale, t) })}
<div class="field"><label for="field-environment">${t("console.environment")}</label><select id="field-environment" name="environment"><option value="SANDBOX">${t("console.sandbox")}</option>${hasProduction ? html`<option value="PRODUCTION">${t("console.production")}</option>` : ""}</select></div>
<div class="actions">${button(t("console.createApiKey"))}</div>`,
)}`
    : ""
}</section>
${accessRequestsSection(visit, app, accessRequests === undefined || accessRequests.ok ? (accessRequests?.value.accessRequests ?? []) : accessRequests.error, rights.manageApps, state.accessRequest)}`
      : "";
  const production =
    app.state === "APPROVED" && rights.manageApps
      ? html`<section class="card" aria-labelledby="production-heading"><h2 id="production-heading">${t("console.productionHeading")}</h2>
<p>${t("console.productionExplain")}</p>${generalError(visit, errorOf("production"), [])}
${postForm(`/apps/${app.appId}/production-credentials`, visit.csrf, html`<div class="actions">${button(t("console.revealProduction"))}</div>`)}</section>`
      : "";
  // A refusal of a form the page did not offer (the role, or an archived app) is said at the top.
  const offered = editable || (state.form === "archive" && rights.archiveApps);
  // A refused allowlist is said beside its list, when the page shows that list (else at the top too).
  const target = state.allowlist?.target;
  const listShown =
    target !== undefined &&
    editable &&
    ("clientId" in target
      ? app.credentials.some((credential) => credential.clientId === target.clientId)
      : app.apiKeys.some((key) => key.apiKeyId === target.apiKeyId && !key.revoked));
  const refusedHere =
    state.error && !state.accessRequest && (target ? !listShown : !offered)
      ? alert("error", errorText(state.error, locale, t))
      : "";
  const archive =
    rights.archiveApps && !archived
      ? html`<section class="card" aria-labelledby="archive-link-heading"><h2 id="archive-link-heading">${t("console.archiveHeading")}</h2>
<p>${t("console.archiveExplain")}</p>${generalError(visit, errorOf("archive"), [])}
<p><a class="button danger" href="/apps/${app.appId}/archive">${t("console.archiveApp")}</a></p></section>`
      : "";
  const body = html`${state.notice ?? ""}${refusedHere}
${archived ? alert("info", t("console.archivedNote")) : ""}
<dl class="facts"><dt>${t("console.product")}</dt><dd>${productName(visit, app.product)}</dd>
<dt>${t("console.state")}</dt><dd><span class="badge">${appStateName(visit, app.state)}</span></dd>
${app.pendingName ? html`<dt>${t("console.pendingName")}</dt><dd>${app.pendingName}</dd>` : ""}
<dt>${t("console.appId")}</dt><dd class="ltr">${app.appId}</dd></dl>
<p class="actions">${archived ? "" : html`<a class="button" href="/apps/${app.appId}/first-call">${t("console.firstCallTitle")}</a> `}<a href="/organizations/${app.organizationId}">${t("console.backToOrganization")}</a></p>
${rights.manageApps ? "" : html`<p class="muted">${t("console.appViewerNote")}</p>`}
<section class="card" aria-labelledby="activity-heading"><h2 id="activity-heading">${t("console.activityHeading")}</h2>
<p>${t("console.activityExplain")}</p>
<ul class="app-links"><li><a href="/apps/${app.appId}/requests">${t("console.requestLogLink")}</a></li><li><a href="/apps/${app.appId}/usage">${t("console.usageLink")}</a></li></ul></section>
<section class="card" aria-labelledby="webhooks-heading"><h2 id="webhooks-heading">${t("console.webhooksHeading")}</h2>
<p>${t("console.webhooksExplain")}</p>
<ul class="app-links"><li><a href="/apps/${app.appId}/webhooks?environment=sandbox">${t("console.webhooksLink", { environment: t("console.sandbox") })}</a></li><li><a href="/apps/${app.appId}/webhooks?environment=production">${t("console.webhooksLink", { environment: t("console.production") })}</a></li></ul></section>
<section class="card" aria-labelledby="credentials-heading"><h2 id="credentials-heading">${t("console.credentialsHeading")}</h2>
${editable ? html`<p>${t("console.rotateExplain")}</p>` : ""}
${generalError(visit, errorOf("rotate"), [])}
<ul class="list">${credentials}</ul></section>
${production}${apiKeys}
${
  editable
    ? html`<section class="card" aria-labelledby="edit-heading"><h2 id="edit-heading">${t("console.editApp")}</h2>
${generalError(visit, errorOf("rename"), ["name"])}
${postForm(`/apps/${app.appId}/rename`, visit.csrf, html`${field({ label: t("console.appName"), name: "name", value: app.pendingName || app.name, required: true, hint: app.state === "APPROVED" ? t("console.renameApproved") : undefined, error: errorFor(errorOf("rename"), "name", locale, t) })}<p class="hint">${t("console.productOnce")}</p><div class="actions">${button(t("console.save"))}</div>`)}
</section>`
    : ""
}
${
  archived
    ? ""
    : html`<section class="card" aria-labelledby="review-heading"><h2 id="review-heading">${t("console.reviewHeading")}</h2>
<p>${t("console.reviewExplain")}</p>
${generalError(visit, errorOf("submit"), [])}
<p><strong>${appStateName(visit, app.state)}</strong> · ${reviewStateText(visit, app.state)}</p>
${app.pendingName ? html`<p>${t("console.pendingNameExplain", { name: app.pendingName })}</p>` : ""}
${editable && (app.state === "DRAFT" || app.state === "REJECTED") ? postForm(`/apps/${app.appId}/submit`, visit.csrf, html`<div class="actions">${button(t("console.submitForReview"))}</div>`) : ""}
</section>`
}
${
  app.product === Product.ADSR && app.redirectUris.length === 0
    ? "" // ADSR apps use API keys, never the OAuth redirect (spec, Products); the section would only mislead.
    : editable
      ? html`<section class="card" aria-labelledby="redirects-heading"><h2 id="redirects-heading">${t("console.redirectsHeading")}</h2>
${generalError(visit, errorOf("redirects"), ["redirectUris"])}
${postForm(`/apps/${app.appId}/redirect-uris`, visit.csrf, html`${textarea({ label: t("console.redirectUris"), name: "redirectUris", value: state.redirectValue ?? app.redirectUris.join("\n"), hint: t("console.redirectRules"), error: errorOf("redirects") ? errorText(errorOf("redirects")!, locale, t) : undefined, ltr: true })}<div class="actions">${button(t("console.save"))}</div>`)}
</section>`
      : app.redirectUris.length > 0
        ? html`<section class="card" aria-labelledby="redirects-heading"><h2 id="redirects-heading">${t("console.redirectsHeading")}</h2><ul class="list">${app.redirectUris.map((uri) => html`<li class="ltr">${uri}</li>`)}</ul></section>`
        : ""
}
${archive}`;
  return visit.page(app.name, body, { status, copyScript: true });
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

/** A saved allowlist as text: its entries, or "any address" when there is none. */
function allowlistView(visit: Visit, entries: string[]): SafeHtml {
  return html`<p class="hint">${visit.t("console.allowlistCurrent")} ${entries.length === 0 ? visit.t("console.allowlistAny") : html`<span class="ltr">${entries.join(", ")}</span>`}</p>`;
}

export async function renameApp(visit: Visit, appId: string): Promise<Reply> {
  const result = await visit.api("updateDeveloperApp", { appId: appId, name: visit.form.get("name") ?? "" });
  if (!result.ok) return appPage(visit, appId, { error: result.error, form: "rename" }, result.error.status);
  return { status: 303, location: `/apps/${appId}` };
}

export async function submitApp(visit: Visit, appId: string): Promise<Reply> {
  const result = await visit.api("submitDeveloperApp", { appId: appId });
  if (!result.ok) return appPage(visit, appId, { error: result.error, form: "submit" }, result.error.status);
  return { status: 303, location: `/apps/${appId}` };
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
      { error: { ...result.error, fields: ["redirectUris"] }, form: "redirects", redirectValue: text },
      result.error.status,
    );
  return appPage(visit, appId, { notice: alert("ok", visit.t("console.saved")) });
}

export async function rotateSecret(visit: Visit, appId: string, clock: () => number): Promise<Reply> {
  const { t, locale } = visit;
  const result = await visit.api("rotateAppClientSecret", {
    appId: appId,
    clientId: visit.form.get("client_id") ?? "",
  });
  if (!result.ok) return appPage(visit, appId, { error: result.error, form: "rotate" }, result.error.status);
  const until = new Date(Number(result.value.previousSecretExpiresAtMs));
  const hours = Math.round((until.getTime() - clock()) / 3_600_000);
  const notice = html`<section class="card" aria-labelledby="rotated-heading"><h2 id="rotated-heading">${t("console.newSecretHeading")}</h2>
<p>${t("common.shownOnce")}</p>
${secretBox({ id: "client-secret", label: t("console.clientSecret"), value: result.value.clientSecret, copy: t("common.copy"), copied: t("common.copied") })}
${alert("info", t("console.rotationOverlap", { until: momentText(locale, until), hours }))}</section>`;
  return appPage(visit, appId, { notice });
}

export async function createApiKey(visit: Visit, appId: string): Promise<Reply> {
  const { t } = visit;
  const environment = visit.form.get("environment") === "PRODUCTION" ? "PRODUCTION" : "SANDBOX";
  const result = await visit.api("createAppApiKey", { appId: appId, name: visit.form.get("name") ?? "", environment });
  if (!result.ok) return appPage(visit, appId, { error: result.error, form: "keys" }, result.error.status);
  const key = result.value.apiKey!;
  const notice = html`<section class="card" aria-labelledby="new-key-heading"><h2 id="new-key-heading">${t("console.newApiKeyHeading")}</h2>
<p>${t("common.shownOnce")} ${t("console.apiKeyUse")}</p>
${secretBox({ id: "api-key", label: t("console.apiKey"), value: key.apiKey, copy: t("common.copy"), copied: t("common.copied") })}</section>`;
  return appPage(visit, appId, { notice });
}

export async function revokeApiKey(visit: Visit, appId: string): Promise<Reply> {
  const result = await visit.api("revokeAppApiKey", { appId: appId, apiKeyId: visit.form.get("api_key_id") ?? "" });
  if (!result.ok) return appPage(visit, appId, { error: result.error, form: "keys" }, result.error.status);
  return { status: 303, location: `/apps/${appId}` };
}

export async function revealProduction(visit: Visit, appId: string): Promise<Reply> {
  const { t } = visit;
  const app = await visit.api("getDeveloperApp", { appId: appId });
  if (!app.ok) return appPage(visit, appId);
  const result = await visit.api("revealProductionCredentials", {
    organizationId: Number(app.value.app!.organizationId),
    appId: appId,
  });
  if (!result.ok) return appPage(visit, appId, { error: result.error, form: "production" }, result.error.status);
  const production = result.value.production!;
  const notice = html`<section class="card" aria-labelledby="production-secret-heading"><h2 id="production-secret-heading">${t("console.productionHeading")}</h2>
<p>${t("common.shownOnce")}</p>
${secretBox({ id: "client-id", label: t("console.clientId"), value: production.clientId, copy: t("common.copy"), copied: t("common.copied") })}
${secretBox({ id: "client-secret", label: t("console.clientSecret"), value: production.clientSecret, copy: t("common.copy"), copied: t("common.copied") })}</section>`;
  return appPage(visit, appId, { notice });
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
      { error: result.error, allowlist: { target: { clientId }, error: result.error, value: text } },
      result.error.status,
    );
  return appPage(visit, appId, { notice: alert("ok", visit.t("console.allowlistSaved")) });
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
      { error: result.error, allowlist: { target: { apiKeyId }, error: result.error, value: text } },
      result.error.status,
    );
  return appPage(visit, appId, { notice: alert("ok", visit.t("console.allowlistSaved")) });
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
      { error: result.error, accessRequest: { error: result.error, companyId, storeIds } },
      result.error.status,
    );
  return appPage(visit, appId, {
    notice: alert(
      "ok",
      visit.t("console.accessRequestSent", { companyId: String(result.value.accessRequest?.companyId ?? companyId) }),
    ),
  });
}

/** The archive step (GET): the consequence said first, then the button. */
export async function archivePage(visit: Visit, appId: string, error?: ApiError, status = 200): Promise<Reply> {
  const { t, locale } = visit;
  const found = await appWithRole(visit, appId);
  if (!found.ok)
    return visit.page(t("console.appTitleUnknown"), alert("error", errorText(found.error, locale, t)), {
      status: found.error.status,
    });
  if (found.app.state === "ARCHIVED") return { status: 303, location: `/apps/${appId}` };
  return visit.page(t("console.archiveTitle", { name: found.app.name }), archiveConfirmation(visit, found.app, error), {
    status,
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
