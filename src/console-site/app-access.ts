// Who and what may reach an app, on its page: the IP allowlist of each client id and of each API key (the rules
// said under the field, the server's refusal beside it), the ADSR access requests with their states and the form
// that asks a live merchant for stores, and the archive step (its own page that says the consequence first).
import type { AccessRequest } from "../../gen/partnerapi/v1/grant_service_pb.js";
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { accessRequestStateName, shownTime } from "./labels.js";
import { refusalOf, type Refusal } from "./error-summary.js";
import { alert, button, field, postForm, textarea } from "./ui.js";
import { errorText, type Visit } from "./visit.js";

/** At most this many entries in one allowlist (developer.ip_allowlist_invalid beyond, docs/decisions.md). */
export const allowlistLimit = 50;

/** Which allowlist a refused save concerns, and what the developer typed (kept in the field). */
export interface AllowlistState {
  target: { clientId: string } | { apiKeyId: string };
  error: ApiError;
  value: string;
}

/** The lines of an allowlist textarea: one entry a line (commas and spaces also separate). */
export function allowlistEntries(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The allowlist form of one client id or API key. `label` names the credential (two lists on a page must not share
 * an accessible name), `current` is the saved list.
 */
export function allowlistForm(
  visit: Visit,
  options: {
    action: string;
    hidden: Record<string, string>;
    id: string;
    label: string;
    current: string[];
    state?: AllowlistState;
    mine: boolean;
    /** Behind one action (a list of many rows, such as API keys): open when this form was refused. */
    collapsed?: { name: string };
  },
): SafeHtml {
  const { t } = visit;
  const refused = options.mine ? options.state : undefined;
  const form = postForm(
    options.action,
    visit.csrf,
    html`${textarea({
      id: options.id,
      name: "allowedIps",
      label: options.label,
      value: refused ? refused.value : options.current.join("\n"),
      hint: t("console.allowlistRules", { limit: allowlistLimit }),
      error: refused ? allowlistRefusal(visit, refused.error, options).at("allowedIps") : undefined,
      ltr: true,
    })}<div class="actions">${button(t("console.saveAllowlist"), { kind: "secondary", ariaLabel: `${t("console.saveAllowlist")}: ${options.label}` })}</div>`,
    { hidden: options.hidden },
  );
  if (!options.collapsed) return form;
  // The visible words, then whose list (WCAG 2.5.3: the name contains the label as shown).
  return html`<details class="row-actions"${refused ? raw(" open") : ""}><summary>${t("console.allowlistChange")}<span class="visually-hidden">: ${options.collapsed.name}</span></summary>${form}</details>`;
}

/**
 * The server's refusal of a list, its `allowed_ips[i]` (counted from 0) said as the list's label and line i + 1
 * (./error-summary.ts): beside the list and in the page's summary alike.
 */
export function allowlistRefusal(visit: Visit, error: ApiError, list: { id: string; label: string }): Refusal {
  return refusalOf(
    visit,
    error,
    { allowedIps: { id: list.id, label: list.label, items: "line" } },
    { concerns: ["allowedIps"] },
  );
}

/** What a refused access request concerns: the company field, the stores field (an index: its entry), or neither. */
export function accessRequestRefusal(visit: Visit, error: ApiError | undefined): Refusal {
  return refusalOf(visit, error, {
    companyId: { id: "field-companyId", label: visit.t("console.merchantCompanyId") },
    storeIds: { id: "field-storeIds", label: visit.t("console.storeIds"), items: "entry" },
  });
}

export interface AccessRequestForm {
  error?: ApiError;
  companyId?: string;
  storeIds?: string;
}

/** The ADSR app's access requests: what they are, their states, and (for a role that may) a new one. */
export function accessRequestsSection(
  visit: Visit,
  app: App,
  requests: AccessRequest[] | ApiError,
  canManage: boolean,
  form: AccessRequestForm = {},
): SafeHtml {
  const { t, locale } = visit;
  const rows = Array.isArray(requests)
    ? requests.map(
        (
          request,
        ) => html`<tr><td class="ltr">${String(request.companyId)}</td><td class="ltr">${request.storeIds.map(String).join(", ")}</td><td class="ltr">${request.approvedStoreIds.map(String).join(", ")}</td>
<td><span class="badge">${accessRequestStateName(visit, request.state)}</span></td><td><time datetime="${request.createdAt}"><bdi>${shownTime(request.createdAt, locale)}</bdi></time></td><td><time datetime="${request.expiresAt}"><bdi>${shownTime(request.expiresAt, locale)}</bdi></time></td></tr>`,
      )
    : [];
  const list = !Array.isArray(requests)
    ? alert("error", errorText(requests, locale, t))
    : requests.length === 0
      ? html`<p>${t("console.noAccessRequests")}</p>`
      : html`<div class="table-wrap" role="region" aria-labelledby="access-caption" tabindex="0"><table><caption id="access-caption">${t("console.accessRequestsCaption")}</caption><thead><tr><th scope="col">${t("console.companyId")}</th><th scope="col">${t("console.requestedStores")}</th><th scope="col">${t("console.approvedStores")}</th><th scope="col">${t("console.state")}</th><th scope="col">${t("console.requestedAt")}</th><th scope="col">${t("console.expiresAt")}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  const refusal = accessRequestRefusal(visit, form.error);
  // A refusal of the whole form is said once, in the error summary (app-pages.ts); a field's beside it.
  let create: SafeHtml | string = "";
  if (canManage && app.state === "APPROVED") {
    create = html`<h3>${t("console.createAccessRequest")}</h3>
${postForm(
  `/apps/${app.appId}/access-requests`,
  visit.csrf,
  html`${field({ label: t("console.merchantCompanyId"), name: "companyId", type: "number", required: true, value: form.companyId, hint: t("console.merchantCompanyIdHint"), error: refusal.at("companyId"), ltr: true })}
${field({ label: t("console.storeIds"), name: "storeIds", required: true, value: form.storeIds, hint: t("console.storeIdsHint"), error: refusal.at("storeIds"), ltr: true })}
<div class="actions">${button(t("console.createAccessRequest"))}</div>`,
)}`;
  } else if (canManage && app.state !== "ARCHIVED") {
    create = html`<p class="muted">${t("console.accessRequestsNeedApproval")}</p>`;
  }
  return html`<section class="card" aria-labelledby="access-heading"><h2 id="access-heading">${t("console.accessRequestsHeading")}</h2>
<p>${t("console.accessRequestsExplain")}</p>
${list}
${create}</section>`;
}

/** The archive step: what archiving does, then the one button that does it. */
export function archiveConfirmation(visit: Visit, app: App): SafeHtml {
  const { t } = visit;
  return html`<section class="card" aria-labelledby="archive-heading"><h2 id="archive-heading">${t("console.archiveConsequenceHeading")}</h2>
<ul class="list-plain"><li>${t("console.archiveConsequenceTokens")}</li><li>${t("console.archiveConsequenceFinal")}</li><li>${t("console.archiveConsequenceListed")}</li></ul>
${postForm(`/apps/${app.appId}/archive`, visit.csrf, html`<div class="actions">${button(t("console.archiveConfirm", { name: app.name }), { kind: "danger" })} <a href="/apps/${app.appId}">${t("console.cancel")}</a></div>`, { hidden: { confirm: "archive" } })}</section>`;
}
