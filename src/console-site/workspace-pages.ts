// The signed-in console: the dashboard (account, program, organizations), the partner program (application and
// agreement), an organization (apps, sandbox merchants, members); an app's page is ./app-pages.ts. Values shown
// once (secrets, a sandbox owner's password) are the answer to the POST that made them, never stored by the site.
// Roles are the server's to enforce; the pages only offer what may work.
import { OrganizationRole, ProgramApplicationState } from "../../gen/partnerapi/v1/console_service_pb.js";
import { Product, type App, type Merchant } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { mailedLocally, programStateText } from "./account-pages.js";
import type { ApiError } from "./console-api.js";
import { appStateName, productName, rightsOf, roleName } from "./labels.js";
import { assignableRoles, membersList, roleOptions } from "./members.js";
import { pendingInvitations } from "./pending-invitations.js";
import { sectionPath } from "./app-sections.js";
import { refusalOf, typed } from "./error-summary.js";
import { linkInputs, linksOfForm, linksRefusal } from "./app-links.js";
import { programGate, programStanding } from "./program-gate.js";
import { alert, button, field, postForm, secretBox, textarea } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

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
  const refusal = refusalOf(visit, state.error, {
    name: { id: "field-name", label: t("console.organizationName") },
  });
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
${postForm("/organizations", visit.csrf, html`${field({ label: t("console.organizationName"), name: "name", required: true, value: typed(visit, state.error, "name"), error: refusal.at("name") })}<div class="actions">${button(t("console.createOrganization"))}</div>`)}
</section>`;
  return visit.page(t("console.dashboardTitle"), body, { status, problems: refusal.problems });
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
  const agreementError = state.error?.code.startsWith("developer.agreement") ? state.error : undefined;
  const applicationError = agreementError ? undefined : state.error;
  const refusal = refusalOf(visit, applicationError, {
    companyName: { id: "field-companyName", label: t("console.companyName") },
    website: { id: "field-website", label: t("console.website") },
    useCase: { id: "field-useCase", label: t("console.useCase") },
  });
  const kept = (name: string) => typed(visit, applicationError, name);
  const applicationForm = postForm(
    "/program/apply",
    visit.csrf,
    html`${field({ label: t("console.companyName"), name: "companyName", required: true, autocomplete: "organization", value: kept("companyName"), error: refusal.at("companyName") })}
${field({ label: t("console.website"), name: "website", type: "url", autocomplete: "url", value: kept("website"), error: refusal.at("website"), ltr: true })}
${textarea({ label: t("console.useCase"), name: "useCase", hint: t("console.useCaseHint"), value: kept("useCase"), error: refusal.at("useCase") })}
<p class="hint">${t("console.ndaNote")}${current ? html` <a href="${current.url}">${t("console.agreementReadNamed", { title: current.title, version: current.version })}</a>` : ""}</p>
<div class="actions">${button(t("console.applyButton"))}</div>`,
  );
  const agreementMessage = agreementError ? errorText(agreementError, locale, t) : undefined;
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
${agreementSection}</section>`;
  const problems = agreementMessage ? [{ text: agreementMessage }] : refusal.problems;
  return visit.page(t("console.programTitle"), body, { status, problems });
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
  const [orgs, apps, merchants, members, standing, invitations] = await Promise.all([
    visit.api("listDeveloperOrganizations"),
    visit.api("listDeveloperApps", { organizationId: organizationId }),
    visit.api("listOrganizationSandboxMerchants", { organizationId: organizationId }),
    visit.api("listOrganizationMembers", { organizationId: organizationId }),
    programStanding(visit),
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
  const inviteError = state.form === "invite" ? state.error : undefined;
  const firstProduct = `product-${Product.FULL}`;
  const appRefusal = linksRefusal(visit, appError, {
    name: { id: "field-name", label: t("console.appName") },
    product: { id: firstProduct, label: t("console.product") },
  });
  // The product the refused form asked for stays chosen (FULL at first).
  const typedProduct = typed(visit, appError, "product");
  const chosen =
    [Product.FULL, Product.ONLINE_ORDER, Product.ADSR].find((product) => Product[product] === typedProduct) ??
    Product.FULL;
  const products = [Product.FULL, Product.ONLINE_ORDER, Product.ADSR].map(
    (
      product,
    ) => html`<div class="choice"><input type="radio" id="product-${product}" name="product" value="${Product[product]}" required${product === chosen ? html` checked` : ""} aria-describedby="product-${product}-hint">
<div><label for="product-${product}">${productName(visit, product)}</label><p class="hint" id="product-${product}-hint">${t(productHints[product as Product.FULL])}</p></div></div>`,
  );
  const appForm = html`${postForm(
    `/organizations/${organizationId}/apps`,
    visit.csrf,
    html`${field({ label: t("console.appName"), name: "name", required: true, value: typed(visit, appError, "name"), error: appRefusal.at("name") })}
<fieldset><legend>${t("console.product")}</legend>${products}
<p class="hint">${t("console.productOnce")}</p>${appRefusal.at("product") ? html`<p class="field-error">${appRefusal.at("product")}</p>` : ""}</fieldset>
${linkInputs(visit, { error: appError, refusal: appRefusal, explain: t("console.linksOptional") })}
<div class="actions">${button(t("console.createApp"))}</div>`,
  )}`;
  // Before the program admits the developer, the page says where they stand instead of offering a form the API
  // refuses; a refused POST (sent from an older page) keeps what was typed, under that state.
  const createApp = canManage
    ? html`<h3>${t("console.createApp")}</h3>
${standing.ready ? appForm : html`${programGate(visit, standing)}${appError ? appForm : ""}`}`
    : html`<p class="muted">${t("console.viewerNote")}</p>`;
  const sandboxRefusal = refusalOf(visit, sandboxError, {
    name: { id: "field-merchant-name", label: t("console.merchantName") },
    country: { id: "field-country", label: t("console.country") },
  });
  const merchantRows = sandbox.map((merchant) => merchantRow(visit, organizationId, merchant, canManage));
  const provision = canManage
    ? html`<h3>${t("console.provisionMerchant")}</h3>
<p class="hint">${t("console.sandboxLimitRule", { limit: sandboxMerchantLimit, active: active.length })}</p>
${postForm(
  `/organizations/${organizationId}/sandbox-merchants`,
  visit.csrf,
  html`${field({ id: "field-merchant-name", label: t("console.merchantName"), name: "name", value: typed(visit, sandboxError, "name"), error: sandboxRefusal.at("name") })}
${field({ label: t("console.country"), name: "country", required: true, value: typed(visit, sandboxError, "country") ?? "GB", hint: t("console.countryHint"), error: sandboxRefusal.at("country"), ltr: true })}
<div class="actions">${button(t("console.provisionMerchant"))}</div>`,
)}`
    : "";
  const inviteRefusal = refusalOf(visit, inviteError, {
    email: { id: "field-email", label: t("console.email") },
    role: { id: "field-role", label: t("console.role") },
  });
  const invitedRole = typed(visit, inviteError, "role");
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
${members.ok ? membersList(visit, organizationId, listed, organization.role, memberRefusal) : alert("error", errorText(members.error, locale, t))}
${invitations.ok ? pendingInvitations(visit, organizationId, invitations.value.invitations, canInvite, invitationRefusal) : alert("error", errorText(invitations.error, locale, t))}
${
  canInvite
    ? html`<h3>${t("console.inviteHeading")}</h3>
${postForm(
  `/organizations/${organizationId}/invitations`,
  visit.csrf,
  html`${field({ label: t("console.email"), name: "email", type: "email", required: true, value: typed(visit, inviteError, "email"), error: inviteRefusal.at("email"), ltr: true })}
<div class="field"><label for="field-role">${t("console.role")}</label><select id="field-role" name="role"${inviteRefusal.at("role") ? html` aria-invalid="true" aria-describedby="field-role-error"` : ""}>${roleOptions(visit, assignableRoles.find((role) => OrganizationRole[role] === invitedRole) ?? OrganizationRole.DEVELOPER)}</select><p class="hint">${t("console.rolesExplain")}</p>${inviteRefusal.at("role") ? html`<p class="field-error" id="field-role-error">${inviteRefusal.at("role")}</p>` : ""}</div>
<div class="actions">${button(t("console.sendInvitation"))}</div>`,
)}`
    : html`<p class="muted">${t("console.inviteRoleNote")}</p>`
}</section>`;
  // A refusal is said once: a form's (or one of a form this role is not shown) in the error summary at the top, its
  // fields' beside them; a member's or an invitation's in its row, which the summary's entry links to (a row gone
  // meanwhile: the summary alone).
  const rowOf = (kind: "member" | "invitation", id: number | undefined, listed: boolean) =>
    id !== undefined && listed ? `#${kind}-${id}-error` : undefined;
  const body = html`${state.notice ?? ""}
<p><span class="badge">${roleName(visit, organization.role)}</span></p>
<section class="card" aria-labelledby="apps-heading"><h2 id="apps-heading">${t("console.appsHeading")}</h2>
${apps.value.apps.length === 0 ? html`<p>${t("console.noApps")}</p>` : html`<ul class="list">${apps.value.apps.map((app) => appRow(visit, app))}</ul>`}
${createApp}</section>
<section class="card" aria-labelledby="sandbox-heading"><h2 id="sandbox-heading">${t("console.sandboxHeading")}</h2>
<p>${t("console.sandboxExplain")}</p>
${sandbox.length === 0 ? html`<p>${t("console.noMerchants")}</p>` : html`<ul class="list">${merchantRows}</ul>`}
${provision}</section>
${membersSection}`;
  const problems =
    state.form === "app"
      ? appRefusal.problems
      : state.form === "sandbox"
        ? sandboxRefusal.problems
        : state.form === "invite"
          ? inviteRefusal.problems
          : state.error
            ? [
                {
                  text: errorText(state.error, locale, t),
                  href:
                    state.form === "member"
                      ? rowOf(
                          "member",
                          state.memberId,
                          listed.some((m) => Number(m.accountId) === state.memberId),
                        )
                      : state.form === "invitation" && invitations.ok
                        ? rowOf(
                            "invitation",
                            state.invitationId,
                            invitations.value.invitations.some((i) => Number(i.invitationId) === state.invitationId),
                          )
                        : undefined,
                },
              ]
            : [];
  return visit.page(t("console.organizationTitle", { name: organization.name }), body, {
    status,
    copyScript: true,
    problems,
  });
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
    ...linksOfForm(visit),
  });
  if (!result.ok)
    return organizationPage(visit, organizationId, { error: result.error, form: "app" }, result.error.status);
  const app = result.value.app!;
  const sandbox = result.value.sandbox!;
  // Only what applies to the product (as the app page's sections, ./app-sections.ts): an ADSR app calls with API
  // keys, so its next step is a key, and the OAuth client pair the API also made for it is not shown.
  if (app.product === Product.ADSR) {
    const next = html`${alert("ok", t("console.appCreatedAdsr", { name: app.name }))}
<p class="actions"><a class="button" href="${sectionPath(app.appId, "api-keys")}">${t("console.createApiKey")}</a> <a class="button secondary" href="/apps/${app.appId}">${t("console.openApp")}</a></p>`;
    return visit.page(t("console.appCreatedTitle"), next);
  }
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
  return organizationPage(visit, organizationId, {
    notice: html`${alert("ok", visit.t("console.invitationSent", { email }))}${mailedLocally(visit)}`,
  });
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
