// The consent site's HTML, on the web kit's shell (src/web/layout.ts): every string from the message catalogue of
// the page's language (consent.* and common.* keys), escaping by construction (the `html` tag), no inline script
// or style. The accessible names are part of the contract, in each language ("Allow" / "السماح" / "अनुमति दें").
import { entryOf, messageFor, type ErrorCode } from "../errors/index.js";
import { html, raw, type HtmlValue, type SafeHtml } from "../web/html.js";
import { catalogueOf, dayText, momentText, translator, type Locale, type MessageKey } from "../web/i18n.js";
import { hiddenFields, page } from "../web/layout.js";

/** Where the page is (path and query): its language switch links to the same place in another language. */
export interface Here {
  path: string;
  query?: URLSearchParams;
}

/** What every page needs: its language and where it is. */
export interface PageContext {
  locale: Locale;
  here: Here;
}

/** The signed-in pages' extras: the site navigation and the sign-out form in the header. */
interface SignedIn {
  csrf: string;
  current?: "connections" | "access-requests";
}

/**
 * A catalogue message with markup in its placeholders: the text around them is escaped, each `{name}` is replaced
 * by its (already safe) fragment. Word order differs per language, so the fragments go where the message puts them.
 */
export function rich(message: string, fragments: Record<string, HtmlValue>): SafeHtml {
  const parts = message.split(/\{([a-zA-Z]+)\}/);
  return html`${parts.map((part, index) => (index % 2 === 0 ? part : part in fragments ? fragments[part]! : `{${part}}`))}`;
}

function shell(
  context: PageContext,
  title: string,
  body: HtmlValue,
  options: { narrow?: boolean; signedIn?: SignedIn } = {},
): string {
  const t = translator(context.locale);
  const signedIn = options.signedIn;
  return page({
    locale: context.locale,
    title,
    section: t("consent.section"),
    homePath: "/oauth/connections",
    path: context.here.path,
    query: context.here.query,
    narrow: options.narrow,
    nav: signedIn
      ? [
          {
            href: "/oauth/connections",
            label: t("consent.navConnections"),
            current: signedIn.current === "connections",
          },
          {
            href: "/oauth/access-requests",
            label: t("consent.navAccessRequests"),
            current: signedIn.current === "access-requests",
          },
        ]
      : undefined,
    headerEnd: signedIn
      ? html`<form method="post" action="/oauth/sign-out">${hiddenFields({ csrf: signedIn.csrf })}<button type="submit" class="secondary">${t("common.signOut")}</button></form>`
      : undefined,
    body,
  });
}

/** Params whose values are parameter or field names: shown as <code> in every language, as the code itself is. */
const identifierParams = new Set(["field", "fields", "grantType", "contentType", "allow"]);

/**
 * The message of `code` in `locale` as markup: the catalogue's words escaped, a parameter name (`response_type`,
 * a list of them) each in <code>, so `response_type` reads as a name on an Arabic page as on an English one.
 */
export function errorMessage(code: ErrorCode, params: Record<string, string>, locale: Locale): SafeHtml {
  const template = entryOf(code).messages[locale];
  const fragments: Record<string, HtmlValue> = {};
  for (const name of template.match(/\{([A-Za-z0-9_]+)\}/g)?.map((placeholder) => placeholder.slice(1, -1)) ?? []) {
    const value = params[name] ?? "";
    fragments[name] =
      identifierParams.has(name) && value !== ""
        ? html`${value.split(/,\s*/).map((part, index) => html`${index > 0 ? ", " : ""}<code>${part}</code>`)}`
        : value;
  }
  return rich(template, fragments);
}

/** What the merchant can do about an error, in plain words (the code's own message is for the developer). */
function adviceOf(code: ErrorCode): MessageKey {
  if (entryOf(code).status >= 500) return "consent.advice.retry";
  switch (code) {
    case "oauth.app_not_published":
      return "consent.advice.notPublished";
    case "oauth.company_not_eligible":
      return "consent.advice.notEligible";
    case "developer.app_archived":
      return "consent.advice.retired";
    case "oauth.client_not_found":
    case "oauth.redirect_uri_mismatch":
    case "oauth.state_required":
    case "oauth.invalid_request":
    case "oauth.pkce_method_unsupported":
    case "developer.use_api_key":
      return "consent.advice.developer";
    default:
      return "consent.advice.generic";
  }
}

/**
 * An error shown to the merchant (spec: consent-screen codes are shown, never redirected): first what to do next in
 * plain words, then, below and folded, the technical detail for the app's developer (the catalogue's message and
 * the code). A server outage (5xx) is not the app's fault and passes: its title says to try again.
 */
export function errorPage(code: ErrorCode, context: PageContext, params: Record<string, string> = {}): string {
  const t = translator(context.locale);
  const title = entryOf(code).status >= 500 ? t("common.unavailableTitle") : t("consent.cannotConnectTitle");
  return shell(
    context,
    title,
    html`<section class="card" role="alert"><p class="lead">${t(adviceOf(code))}</p></section>
<details class="card technical-detail" open><summary>${t("consent.technicalDetails")}</summary><p>${errorMessage(code, params, context.locale)}</p><p class="muted">${rich(t("common.errorCode"), { code: html`<code>${code}</code>` })}</p></details>`,
    { narrow: true },
  );
}

/** A short page: a title, a sentence, and optionally a link onwards. */
export function messagePage(
  context: PageContext,
  titleKey: MessageKey,
  textKey: MessageKey,
  link?: { href: string; labelKey: MessageKey },
): string {
  const t = translator(context.locale);
  return shell(
    context,
    t(titleKey),
    html`<section class="card"><p>${t(textKey)}</p>${link ? html`<p><a href="${link.href}">${t(link.labelKey)}</a></p>` : ""}</section>`,
    { narrow: true },
  );
}

/** The last-resort page of an unexpected failure (500): the catalogue's words, nothing of the failure itself. */
export function internalErrorPage(context: PageContext): string {
  const t = translator(context.locale);
  return shell(
    context,
    t("common.internalTitle"),
    html`<section class="card" role="alert"><p>${messageFor("server.internal", {}, context.locale)}</p></section>`,
    { narrow: true },
  );
}

export function signInPage(
  context: PageContext,
  options: { returnTo: string; csrf: string; failed?: boolean; appName?: string; email?: string; cancelHref?: string },
): string {
  const t = translator(context.locale);
  return shell(
    context,
    t("consent.signInTitle"),
    html`${options.appName ? html`<p class="lead">${rich(t("consent.signInContext"), { app: html`<strong>${options.appName}</strong>` })}</p>` : ""}
<div class="card">
${options.failed ? html`<div class="alert error" id="sign-in-error" tabindex="-1" autofocus><p role="alert">${t("consent.signInFailed")}</p></div>` : ""}
<form method="post" action="/oauth/sign-in">${hiddenFields({ csrf: options.csrf, return_to: options.returnTo })}
<p class="field"><label for="email">${t("consent.email")}</label> <input id="email" name="email" type="email" autocomplete="username" dir="ltr" required value="${options.email ?? ""}"${options.failed ? raw(' aria-describedby="sign-in-error"') : ""}></p>
<p class="field"><label for="password">${t("consent.password")}</label> <input id="password" name="password" type="password" autocomplete="current-password" dir="ltr" required></p>
<p class="hint">${t("consent.signInHint")}</p>
<div class="actions"><button type="submit">${t("consent.signIn")}</button>${options.cancelHref ? html` <a class="button secondary" href="${options.cancelHref}">${t("consent.cancel")}</a>` : ""}</div>
${options.cancelHref && options.appName ? html`<p class="hint">${t("consent.cancelHint", { app: options.appName })}</p>` : ""}
</form>
</div>`,
    { narrow: true },
  );
}

export interface ConsentView {
  appId: string;
  appName: string;
  /** The developer: the organization that owns the app. */
  organizationName: string;
  /** Reviewed by staff: a production client passes only when its app is APPROVED; a sandbox one never was. */
  reviewed: boolean;
  product: string;
  scopes: string[];
  /** The merchant's company, by name (its number means nothing to a merchant). */
  companyName: string;
  email: string;
  owner: boolean;
  csrf: string;
  /** Where the decision sends the merchant: the host of the (validated) redirect URI. */
  redirectHost: string;
  /** The app's public pages, given by the developer in the console (absent ones are not shown). */
  links: AppLinks;
  /** The authorize parameters, carried back on the decision POST and checked again there. */
  params: Record<string, string | undefined>;
}

export interface AppLinks {
  website?: string;
  privacyUrl?: string;
  termsUrl?: string;
}

/** Whether the catalogue has a key (scope and product names come from the server, not from our types). */
function known(locale: Locale, key: string): key is MessageKey {
  return Object.hasOwn(catalogueOf(locale), key);
}

/**
 * What the app will be able to do, one phrase per scope in words a merchant reads ("See your stores"). A `.write`
 * phrase already says "see and change", so the `.read` of the same resource is not repeated beside it. A scope
 * without a phrase (none today) shows its name rather than vanish from the screen.
 */
export function permissionPhrases(scopes: readonly string[], locale: Locale): HtmlValue[] {
  const t = translator(locale);
  const granted = new Set(scopes);
  return scopes
    .filter((scope) => !(scope.endsWith(".read") && granted.has(scope.replace(/\.read$/, ".write"))))
    .map((scope) => {
      const key = `consent.scope.${scope}`;
      return known(locale, key) ? t(key) : html`<code>${scope}</code>`;
    });
}

/** A product's name in words ("Online ordering"); an unknown one as the server spells it. */
export function productLabel(product: string, locale: Locale): string {
  const t = translator(locale);
  const key = `consent.product.${product}`;
  return known(locale, key) ? t(key) : product;
}

function environmentLabel(environment: string, locale: Locale): string {
  const t = translator(locale);
  const key = `consent.environment.${environment}`;
  return known(locale, key) ? t(key) : environment;
}

/**
 * The app's initials (the first letter of its first two words, by grapheme so an Arabic or Devanagari name keeps
 * whole letters), for its avatar: we store no logo (docs/decisions.md, "Consent and console, second pass").
 */
export function initialsOf(name: string): string {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const words = name.split(/[\s\-_.]+/u).filter((word) => /[\p{L}\p{N}]/u.test(word));
  const first = (word: string) =>
    [...segmenter.segment(word)].find((part) => /[\p{L}\p{N}]/u.test(part.segment))?.segment ?? "";
  return words.slice(0, 2).map(first).join("").toLocaleUpperCase() || "?";
}

/** One of six background colours (white text on each passes WCAG AA), fixed per app by its id. */
function avatarColour(appId: string): number {
  let hash = 0;
  for (const char of appId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 6;
}

/**
 * The app's avatar and names: who is asking. The name beside the avatar is its accessible text. Under the developer,
 * the app's pages its developer gave (website, privacy policy, terms): only those given, on one line.
 */
function whoIsAsking(
  view: { appId: string; appName: string; organizationName: string; reviewed: boolean; links?: AppLinks },
  locale: Locale,
  headingId: string,
): SafeHtml {
  const t = translator(locale);
  return html`<div class="asker"><span class="avatar avatar-${avatarColour(view.appId)}" aria-hidden="true">${initialsOf(view.appName)}</span>
<div class="asker-names"><h2 id="${headingId}" class="asker-name">${view.appName}</h2>
<p class="asker-developer">${t("consent.byDeveloper", { developer: view.organizationName })} <span class="badge ${view.reviewed ? "reviewed" : "unreviewed"}">${view.reviewed ? t("consent.reviewed") : t("consent.notReviewed")}</span></p>
${view.links ? appLinks(view.links, locale) : ""}</div></div>`;
}

/**
 * The developer's links, each only when given; stored as https URLs checked when saved in the console
 * (src/credential/app-links.ts). `noopener noreferrer`: the developer's page gets neither this window nor the
 * consent URL (its query holds the authorize request).
 */
function appLinks(links: AppLinks, locale: Locale): SafeHtml | string {
  const t = translator(locale);
  const items = [
    links.website
      ? html`<li><a href="${links.website}" rel="noopener noreferrer">${t("consent.website")}</a></li>`
      : "",
    links.privacyUrl
      ? html`<li><a href="${links.privacyUrl}" rel="noopener noreferrer">${t("consent.privacyPolicy")}</a></li>`
      : "",
    links.termsUrl
      ? html`<li><a href="${links.termsUrl}" rel="noopener noreferrer">${t("consent.terms")}</a></li>`
      : "",
  ].filter((item) => item !== "");
  return items.length > 0 ? html`<ul class="app-links asker-links">${items}</ul>` : "";
}

/**
 * The consent screen, ordered for a phone (375×812: the decision must show without scrolling): who is asking, for
 * which business, what it may do and for how long, then Allow / Deny and where they lead. What the merchant may want
 * to read before deciding but need not (the app's pages, technical names, what happens next) follows below.
 */
export function consentPage(context: PageContext, view: ConsentView): string {
  const t = translator(context.locale);
  const app = html`<strong>${view.appName}</strong>`;
  const summary = html`<section class="card consent-summary" aria-labelledby="asker-heading">
${whoIsAsking(view, context.locale, "asker-heading")}
<p class="lead">${rich(t("consent.wantsToConnect"), { app, company: html`<strong>${view.companyName}</strong>` })}</p>
<h3 id="permissions-heading">${t("consent.willBeAbleTo")}</h3>
<ul class="permissions" aria-labelledby="permissions-heading">${permissionPhrases(view.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>
<p class="duration">${t("consent.untilDisconnect")}</p>
</section>`;
  const decision = view.owner
    ? html`<section class="card decision" aria-label="${t("consent.decision")}">
<form method="post" action="/oauth/authorize/decision">${hiddenFields({ csrf: view.csrf, ...view.params })}
<div class="actions"><button type="submit" name="decision" value="allow">${t("consent.allow")}</button> <button type="submit" name="decision" value="deny" class="secondary">${t("consent.deny")}</button></div>
</form>
<p class="hint">${rich(t("consent.returnsTo"), { host: html`<bdi class="ltr">${view.redirectHost}</bdi>` })} ${rich(t("consent.signedInAs"), { email: html`<bdi>${view.email}</bdi>` })}</p>
</section>`
    : html`<section class="card" role="note" aria-label="${t("consent.ownerNeeded")}"><h2>${t("consent.askOwnerTitle")}</h2>
<p>${rich(t("consent.askOwnerText"), { company: view.companyName })}</p>
<p class="hint">${rich(t("consent.signedInAs"), { email: html`<bdi>${view.email}</bdi>` })}</p></section>`;
  const more = html`<section class="card" aria-labelledby="about-heading">
<h2 id="about-heading">${t("consent.aboutApp")}</h2>
${view.links.website || view.links.privacyUrl || view.links.termsUrl ? "" : html`<p class="muted">${t("consent.noLinks")}</p>`}
<p><span class="badge">${rich(t("consent.productLabel"), { product: productLabel(view.product, context.locale) })}</span></p>
<details class="technical"><summary>${t("consent.technicalNames")}</summary><ul class="ltr" aria-label="${t("consent.permissions")}">${view.scopes.map((scope) => html`<li><code>${scope}</code></li>`)}</ul></details>
${
  view.owner
    ? html`<h3>${t("consent.whatNextTitle")}</h3>
<ul class="next-steps">
<li>${rich(t("consent.whatNextAllow"), { app: view.appName })}</li>
<li>${rich(t("consent.whatNextDeny"), { app: view.appName })}</li>
<li>${rich(t("consent.disconnectLater"), { link: html`<a href="/oauth/connections">${t("consent.connectionsLink")}</a>` })}</li>
</ul>`
    : ""
}
</section>`;
  return shell(context, t("consent.connectTitle"), html`${summary}${decision}${more}`, {
    narrow: true,
    signedIn: { csrf: view.csrf },
  });
}

/** A day in the reader's language and calendar conventions (Intl), kept whole inside a sentence of any direction. */
export function formatDay(date: Date, locale: Locale): SafeHtml {
  return html`<time datetime="${date.toISOString().slice(0, 10)}"><bdi>${dayText(locale, date)}</bdi></time>`;
}

/** A moment (day and time, UTC said as such) in the reader's language (Intl). */
export function formatMoment(date: Date, locale: Locale): SafeHtml {
  return html`<time datetime="${date.toISOString()}"><bdi>${momentText(locale, date)}</bdi></time>`;
}

export interface ConnectionView {
  appId: string;
  appName: string;
  organizationName: string;
  product: string;
  environment: string;
  scopes: string[];
  since: Date;
  /** The app's last partner call for this merchant; undefined when it never called. */
  lastCall?: Date;
}

/** A message that something happened: announced, and focused on load so a keyboard or screen-reader user is there. */
function doneNotice(text: HtmlValue): SafeHtml {
  return html`<div class="alert ok" id="done" role="status" tabindex="-1" autofocus><p>${text}</p></div>`;
}

export function connectionsPage(
  context: PageContext,
  options: { companyName: string; owner: boolean; csrf: string; connections: ConnectionView[]; notice?: string },
): string {
  const t = translator(context.locale);
  const rows = options.connections.map(
    (
      row,
    ) => html`<li class="connection"><div class="connection-main">${whoIsAsking({ ...row, reviewed: row.environment === "PRODUCTION" }, context.locale, `connection-${row.appId}`)}
<p class="muted">${rich(t("consent.connectionFacts"), { product: productLabel(row.product, context.locale), environment: environmentLabel(row.environment, context.locale) })}</p>
<ul class="permissions compact" aria-label="${t("consent.permissionsOf", { app: row.appName })}">${permissionPhrases(row.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>
<p class="muted">${rich(t("consent.connectedOn"), { date: formatDay(row.since, context.locale) })} · ${row.lastCall ? rich(t("consent.lastCall"), { date: formatMoment(row.lastCall, context.locale) }) : t("consent.noCallsYet")}</p></div>${
      options.owner
        ? html`<form method="post" action="/oauth/connections/disconnect">${hiddenFields({ csrf: options.csrf, app_id: row.appId })}<button type="submit" class="danger" aria-label="${t("consent.disconnectApp", { app: row.appName })}">${t("consent.disconnect")}</button></form>`
        : ""
    }</li>`,
  );
  const list =
    options.connections.length > 0
      ? html`<ul class="list" aria-label="${t("consent.connectedApps")}">${rows}</ul>`
      : html`<p>${t("consent.noConnections")}</p>`;
  const note = options.owner ? "" : html`<p role="note">${t("consent.ownerOnlyDisconnect")}</p>`;
  return shell(
    context,
    t("consent.connectionsTitle", { company: options.companyName }),
    html`${options.notice ? doneNotice(options.notice) : ""}<p class="lead">${t("consent.connectionsIntro")}</p><section class="card">${list}${note}</section>`,
    { signedIn: { csrf: options.csrf, current: "connections" } },
  );
}

/**
 * The step before a disconnect or a withdrawal: the consequence in words (and, for a disconnect, what the app
 * stops being able to do), a button that names the app, and a way back that changes nothing.
 */
export function confirmationPage(
  context: PageContext,
  options: {
    kind: "disconnect" | "withdraw";
    csrf: string;
    appName: string;
    /** The form's fields (app_id or access_request_id); `confirm=yes` is added. */
    fields: Record<string, string>;
    scopes?: string[];
  },
): string {
  const t = translator(context.locale);
  const disconnect = options.kind === "disconnect";
  const action = disconnect ? "/oauth/connections/disconnect" : "/oauth/access-requests/withdraw";
  const back = disconnect ? "/oauth/connections" : "/oauth/access-requests";
  return shell(
    context,
    t(disconnect ? "consent.confirmDisconnectTitle" : "consent.confirmWithdrawTitle", { app: options.appName }),
    html`<section class="card">
<p>${t(disconnect ? "consent.confirmDisconnectText" : "consent.confirmWithdrawText", { app: options.appName })}</p>
${options.scopes ? html`<ul class="permissions" aria-label="${t("consent.permissionsOf", { app: options.appName })}">${permissionPhrases(options.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>` : ""}
<form method="post" action="${action}">${hiddenFields({ csrf: options.csrf, ...options.fields, confirm: "yes" })}
<div class="actions"><button type="submit" class="danger">${t(disconnect ? "consent.confirmDisconnect" : "consent.confirmWithdraw", { app: options.appName })}</button> <a class="button secondary" href="${back}">${t(disconnect ? "consent.keepConnected" : "consent.keepAccess")}</a></div>
</form></section>`,
    { narrow: true, signedIn: { csrf: options.csrf, current: disconnect ? "connections" : "access-requests" } },
  );
}

export interface AccessRequestView {
  id: string;
  appName: string;
  organizationName: string;
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
    app: html`<strong>${row.appName}</strong>`,
    organization: row.organizationName,
  });
  const pending = options.pending.map((row) => {
    const refused = options.refused === row.id;
    const errorId = `stores-error-${row.id}`;
    const stores = row.storeIds.map(
      (store) =>
        html`<li class="choice"><input type="checkbox" id="store-${row.id}-${store}" name="store_ids" value="${store}"${refused ? "" : raw(" checked")}${options.owner ? "" : raw(" disabled")}${refused ? raw(` aria-describedby="${errorId}"`) : ""}> <label for="store-${row.id}-${store}">${storeName(store, names, context.locale)}</label></li>`,
    );
    const body = html`<p>${rich(t("consent.asksToRead"), { ...who(row), created: formatDay(row.created, context.locale), expires: formatDay(row.expires, context.locale) })}</p>
${row.links ? appLinks(row.links, context.locale) : ""}
<fieldset${refused ? raw(' class="invalid"') : ""}><legend>${t("consent.storeOptions", { app: row.appName })}</legend>
${refused ? html`<p class="field-error" id="${errorId}" tabindex="-1" autofocus role="alert">${t("consent.chooseStoresError")}</p>` : ""}
<ul class="list-plain" aria-label="${t("consent.requestedStores")}">${stores}</ul></fieldset>`;
    if (!options.owner) return html`<li>${body}</li>`;
    return html`<li><form method="post" action="/oauth/access-requests/decision">${hiddenFields({ csrf: options.csrf, access_request_id: row.id })}${body}
<div class="actions"><button type="submit" name="decision" value="approve" aria-label="${t("consent.approveApp", { app: row.appName })}">${t("consent.approve")}</button> <button type="submit" name="decision" value="decline" class="secondary" aria-label="${t("consent.declineApp", { app: row.appName })}">${t("consent.decline")}</button></div></form></li>`;
  });
  const approved = options.approved.map(
    (row) =>
      html`<li class="connection"><p>${rich(t("consent.approvedStores"), {
        ...who(row),
        stores: html`${row.approvedStoreIds.map((store, index) => html`${index > 0 ? ", " : ""}<strong>${storeName(store, names, context.locale)}</strong>`)}`,
      })}</p>${
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
