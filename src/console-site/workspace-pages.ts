// The signed-in console: the dashboard (account, program, organizations), the partner program (application and
// agreement), an organization (apps, sandbox merchants, members); an app's page is ./app-pages.ts. Values shown
// once (secrets, a sandbox owner's password) are the answer to the POST that made them, never stored by the site.
// Roles are the server's to enforce; the pages only offer what may work.
import { ProgramApplicationState } from "../../gen/partnerapi/v1/console_service_pb.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { mailedLocally, programStateText } from "./account-pages.js";
import type { ApiError } from "./console-api.js";
import { roleName } from "./labels.js";
import {
  appsSection,
  membersSection,
  sandboxSection,
  type OrganizationState,
  type OrganizationView,
} from "./organization-sections.js";
import { sectionPath } from "./app-sections.js";
import { refusalOf, typed } from "./error-summary.js";
import { linksOfForm } from "./app-links.js";
import { programStanding } from "./program-gate.js";
import { alert, button, field, postForm, secretBox, textarea } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

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

// ---------------------------------------------------------------- organization: its sections are ./organization-sections.ts

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
  const view: OrganizationView = { visit, organizationId, role: organization.role, state };
  const appsPart = appsSection(view, apps.value.apps, standing);
  const sandboxPart = sandboxSection(view, merchants.ok ? merchants.value.merchants : []);
  const membersPart = membersSection(view, members, invitations);
  const body = html`${state.notice ?? ""}
<p><span class="badge">${roleName(visit, organization.role)}</span></p>
${appsPart.html}
${sandboxPart.html}
${membersPart.html}`;
  // A refusal is said once: a form's (or one of a form this role is not shown) in the error summary at the top, its
  // fields' beside them; a member's or an invitation's in its row, which the summary's entry links to.
  const problems =
    state.form === "app"
      ? appsPart.problems
      : state.form === "sandbox"
        ? sandboxPart.problems
        : state.form === "invite"
          ? membersPart.problems
          : state.error
            ? [{ text: errorText(state.error, locale, t), href: membersPart.refusedRow }]
            : [];
  return visit.page(t("console.organizationTitle", { name: organization.name }), body, {
    status,
    copyScript: true,
    problems,
  });
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
  return organizationPage(visit, organizationId, {
    notice: merchantProvisionedNotice(visit, result.value.merchant!, result.value.owner!),
  });
}

/** A sandbox merchant made: said, with its owner's login (for the consent screen), which is in this answer only. */
export function merchantProvisionedNotice(
  visit: Visit,
  merchant: { name: string; companyId: bigint | number },
  owner: { email: string; password: string },
): SafeHtml {
  const { t } = visit;
  return html`${alert("ok", t("console.merchantProvisioned", { name: merchant.name, companyId: String(merchant.companyId) }))}
<section class="card" aria-labelledby="owner-heading"><h2 id="owner-heading">${t("console.ownerLogin")}</h2>
<p>${t("console.ownerLoginExplain")} ${t("common.shownOnce")}</p>
${secretBox({ id: "owner-email", label: t("console.email"), value: owner.email, copy: t("common.copy"), copied: t("common.copied") })}
${secretBox({ id: "owner-password", label: t("console.password"), value: owner.password, copy: t("common.copy"), copied: t("common.copied") })}
</section>`;
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
