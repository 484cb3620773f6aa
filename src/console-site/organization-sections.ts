// The organization page's sections (./workspace-pages.ts, organizationPage): its apps and the form creating one, its
// sandbox merchants and the form provisioning one, its members and invitations and the form inviting one. Each
// renders its card and says the problems of its own form for the error summary at the top of the page.
import { OrganizationRole } from "../../gen/partnerapi/v1/console_service_pb.js";
import { Product, type App, type Merchant } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import type { ApiError, CallResult } from "./console-api.js";
import { appStateName, productName, rightsOf } from "./labels.js";
import { assignableRoles, membersList, roleOptions } from "./members.js";
import { pendingInvitations } from "./pending-invitations.js";
import { refusalOf, typed } from "./error-summary.js";
import { linkInputs, linksRefusal } from "./app-links.js";
import { programGate, type ProgramStanding } from "./program-gate.js";
import { alert, button, field, postForm } from "./ui.js";
import { errorText, type Problem, type Visit } from "./visit.js";

/** The sandbox merchant limit the API enforces per organization (developer.sandbox_limit). */
export const sandboxMerchantLimit = 3;

const productHints = {
  [Product.FULL]: "console.productFullHint",
  [Product.ONLINE_ORDER]: "console.productOnlineOrderHint",
  [Product.ADSR]: "console.productAdsrHint",
} as const;

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

/** What every section sees: the page's visit, the organization, the viewer's role in it, a refused form's state. */
export interface OrganizationView {
  visit: Visit;
  organizationId: number;
  role: OrganizationRole;
  state: OrganizationState;
}

/** A section's card and the error summary's entries for its own form. */
interface Section {
  html: SafeHtml;
  problems: Problem[];
}

/** The apps, and the form creating one (only to the roles that may; before the program admits the developer, where they stand). */
export function appsSection(
  { visit, organizationId, role, state }: OrganizationView,
  apps: App[],
  standing: ProgramStanding,
): Section {
  const { t } = visit;
  const canManage = rightsOf(role).manageApps;
  const appError = state.form === "app" ? state.error : undefined;
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
  return {
    html: html`<section class="card" aria-labelledby="apps-heading"><h2 id="apps-heading">${t("console.appsHeading")}</h2>
${apps.length === 0 ? html`<p>${t("console.noApps")}</p>` : html`<ul class="list">${apps.map((app) => appRow(visit, app))}</ul>`}
${createApp}</section>`,
    problems: appRefusal.problems,
  };
}

/** The sandbox merchants, each with its orders and its switch, and the form provisioning one. */
export function sandboxSection({ visit, organizationId, role, state }: OrganizationView, sandbox: Merchant[]): Section {
  const { t } = visit;
  const canManage = rightsOf(role).manageApps;
  const active = sandbox.filter((merchant) => merchant.active);
  const sandboxError = state.form === "sandbox" ? state.error : undefined;
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
  return {
    html: html`<section class="card" aria-labelledby="sandbox-heading"><h2 id="sandbox-heading">${t("console.sandboxHeading")}</h2>
<p>${t("console.sandboxExplain")}</p>
${sandbox.length === 0 ? html`<p>${t("console.noMerchants")}</p>` : html`<ul class="list">${merchantRows}</ul>`}
${provision}</section>`,
    problems: sandboxRefusal.problems,
  };
}

/**
 * Members and invitations, and the form inviting one; `refusedRow` is the row a refused member's or invitation's
 * change is said in (the summary's entry links to it; a row gone meanwhile: the summary alone).
 */
export function membersSection(
  { visit, organizationId, role, state }: OrganizationView,
  members: CallResult<"listOrganizationMembers">,
  invitations: CallResult<"listOrganizationInvitations">,
): Section & { refusedRow: string | undefined } {
  const { t, locale } = visit;
  const inviteError = state.form === "invite" ? state.error : undefined;
  const inviteRefusal = refusalOf(visit, inviteError, {
    email: { id: "field-email", label: t("console.email") },
    role: { id: "field-role", label: t("console.role") },
  });
  const invitedRole = typed(visit, inviteError, "role");
  // Members and invitations: shown to every member; the role changes, removals and the invitation form only to the
  // roles that may (the server refuses the others regardless, and its refusal is shown in the member's row).
  const canInvite = rightsOf(role).manageMembers;
  const memberRefusal =
    state.form === "member" && state.error && state.memberId !== undefined
      ? { error: state.error, memberId: state.memberId }
      : undefined;
  const listed = members.ok ? members.value.members : [];
  const invitationRefusal =
    state.form === "invitation" && state.error && state.invitationId !== undefined
      ? { error: state.error, invitationId: state.invitationId }
      : undefined;
  const section = html`<section class="card" aria-labelledby="members-heading"><h2 id="members-heading">${t("console.membersHeading")}</h2>
${members.ok ? membersList(visit, organizationId, listed, role, memberRefusal) : alert("error", errorText(members.error, locale, t))}
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
  const rowOf = (kind: "member" | "invitation", id: number | undefined, listed: boolean) =>
    id !== undefined && listed ? `#${kind}-${id}-error` : undefined;
  const refusedRow =
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
        : undefined;
  return { html: section, problems: inviteRefusal.problems, refusedRow };
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
