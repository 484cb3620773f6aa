// The merchant's access requests: what each app asks to read, for which stores, until when, and the owner's decision
// (./pages.ts: the shell, the phrases, the confirmation step).
import { html, raw } from "../web/html.js";
import { translator, type Locale } from "../web/i18n.js";
import { hiddenFields } from "../web/layout.js";
import { type PageContext, nameInSentence, rich, shell, formatDay, doneNotice } from "./pages.js";
import { type AppLinks, whoIsAsking } from "./app-identity.js";

export interface AccessRequestView {
  id: string;
  appId: string;
  appName: string;
  organizationName: string;
  /** The app is APPROVED (reviewed by staff): the consent screen's review mark, shown the same here. */
  reviewed: boolean;
  /** The app's pages for merchants, as on the consent screen (absent ones are not shown). */
  links?: AppLinks;
  state: string;
  storeIds: number[];
  approvedStoreIds: number[];
  created: Date;
  expires: Date;
}

/** A store by its name (from the merchant's region), else by its number. */
function storeName(store: number, names: ReadonlyMap<number, string>, locale: Locale): string {
  return names.get(store) ?? translator(locale)("consent.store", { store });
}

/**
 * The owner's ADSR access requests: pending ones with a store checkbox each (all checked: approve with all or
 * fewer) and Approve / Decline; approved ones with Withdraw. Employees see the lists and a note, no buttons. An
 * approval without a store comes back here with the error at that request's stores (`refused`), focused.
 */
export function accessRequestsPage(
  context: PageContext,
  options: {
    companyName: string;
    owner: boolean;
    csrf: string;
    pending: AccessRequestView[];
    approved: AccessRequestView[];
    storeNames?: ReadonlyMap<number, string>;
    notice?: string;
    /** The request whose approval named no store. */
    refused?: string;
  },
): string {
  const t = translator(context.locale);
  const names = options.storeNames ?? new Map<number, string>();
  const who = (row: AccessRequestView) => ({
    app: nameInSentence(row.appName),
    organization: row.organizationName,
  });
  // Who is asking, as the consent screen shows it: avatar, name, developer, review mark and the developer's links.
  const identity = (row: AccessRequestView) =>
    whoIsAsking({ ...row, links: row.links ?? {} }, context.locale, `request-${row.id}-app`);
  const pending = options.pending.map((row) => {
    const refused = options.refused === row.id;
    const errorId = `stores-error-${row.id}`;
    const stores = row.storeIds.map(
      (store) =>
        html`<li class="choice"><input type="checkbox" id="store-${row.id}-${store}" name="store_ids" value="${store}"${refused ? "" : raw(" checked")}${options.owner ? "" : raw(" disabled")}${refused ? raw(` aria-describedby="${errorId}"`) : ""}> <label for="store-${row.id}-${store}">${storeName(store, names, context.locale)}</label></li>`,
    );
    const body = html`${identity(row)}<p>${rich(t("consent.asksToRead"), { ...who(row), created: formatDay(row.created, context.locale), expires: formatDay(row.expires, context.locale) })}</p>
<fieldset${refused ? raw(' class="invalid"') : ""}><legend>${t("consent.storeOptions", { app: row.appName })}</legend>
${refused ? html`<p class="field-error" id="${errorId}" tabindex="-1" autofocus role="alert">${t("consent.chooseStoresError")}</p>` : ""}
<ul class="list-plain" aria-label="${t("consent.requestedStores")}">${stores}</ul></fieldset>`;
    if (!options.owner) return html`<li>${body}</li>`;
    return html`<li><form method="post" action="/oauth/access-requests/decision">${hiddenFields({ csrf: options.csrf, access_request_id: row.id })}${body}
<div class="actions"><button type="submit" name="decision" value="approve" aria-label="${t("consent.approveApp", { app: row.appName })}">${t("consent.approve")}</button> <button type="submit" name="decision" value="decline" class="secondary" aria-label="${t("consent.declineApp", { app: row.appName })}">${t("consent.decline")}</button></div></form></li>`;
  });
  const approved = options.approved.map(
    (row) =>
      html`<li class="connection"><div class="connection-main">${identity(row)}<p>${rich(t("consent.approvedStores"), {
        ...who(row),
        stores: html`${row.approvedStoreIds.map((store, index) => html`${index > 0 ? ", " : ""}<strong>${storeName(store, names, context.locale)}</strong>`)}`,
      })}</p></div>${
        options.owner
          ? html`<form method="post" action="/oauth/access-requests/withdraw">${hiddenFields({ csrf: options.csrf, access_request_id: row.id })}<button type="submit" class="danger" aria-label="${t("consent.withdrawApp", { app: row.appName })}">${t("consent.withdraw")}</button></form>`
          : ""
      }</li>`,
  );
  const note = options.owner ? "" : html`<p role="note">${t("consent.ownerOnlyAccessRequests")}</p>`;
  return shell(
    context,
    t("consent.accessRequestsTitle", { company: options.companyName }),
    html`${options.notice ? doneNotice(options.notice) : ""}${note}<section class="card"><h2>${t("consent.pending")}</h2>
${options.pending.length > 0 ? html`<ul class="list" aria-label="${t("consent.pendingRequests")}">${pending}</ul>` : html`<p>${t("consent.noPending")}</p>`}</section>
<section class="card"><h2>${t("consent.approved")}</h2>
${options.approved.length > 0 ? html`<ul class="list" aria-label="${t("consent.approvedRequests")}">${approved}</ul>` : html`<p>${t("consent.noApproved")}</p>`}</section>`,
    { signedIn: { csrf: options.csrf, current: "access-requests" } },
  );
}
