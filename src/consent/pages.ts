// The consent site's HTML, on the web kit's shell (src/web/layout.ts): every string from the message catalogue of
// the page's language (consent.* and common.* keys), escaping by construction (the `html` tag), no inline script
// or style. The accessible names are part of the contract, in each language ("Allow" / "السماح" / "अनुमति दें").
import { entryOf, messageFor, type ErrorCode } from "../errors/index.js";
import { html, raw, type HtmlValue, type SafeHtml } from "../web/html.js";
import { catalogueOf, translator, type Locale, type MessageKey } from "../web/i18n.js";
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

/**
 * An error shown to the merchant with its code (spec: consent-screen codes are shown, never redirected). A server
 * outage (5xx) is not the app's fault and passes: its title says to try again, not that the app cannot connect.
 */
export function errorPage(code: ErrorCode, context: PageContext, params: Record<string, string> = {}): string {
  const t = translator(context.locale);
  const title = entryOf(code).status >= 500 ? t("common.unavailableTitle") : t("consent.cannotConnectTitle");
  return shell(
    context,
    title,
    html`<section class="card" role="alert"><p>${errorMessage(code, params, context.locale)}</p><p class="muted">${rich(t("common.errorCode"), { code: html`<code>${code}</code>` })}</p></section>`,
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
  options: { returnTo: string; csrf: string; failed?: boolean; appName?: string },
): string {
  const t = translator(context.locale);
  return shell(
    context,
    t("consent.signInTitle"),
    html`${options.appName ? html`<p class="lead">${rich(t("consent.signInContext"), { app: html`<strong>${options.appName}</strong>` })}</p>` : ""}
<div class="card">
${options.failed ? html`<div class="alert error"><p role="alert">${t("consent.signInFailed")}</p></div>` : ""}
<form method="post" action="/oauth/sign-in">${hiddenFields({ csrf: options.csrf, return_to: options.returnTo })}
<p class="field"><label for="email">${t("consent.email")}</label> <input id="email" name="email" type="email" autocomplete="username" dir="ltr" required></p>
<p class="field"><label for="password">${t("consent.password")}</label> <input id="password" name="password" type="password" autocomplete="current-password" dir="ltr" required></p>
<p class="hint">${t("consent.signInHint")}</p>
<div class="actions"><button type="submit">${t("consent.signIn")}</button></div>
</form>
</div>`,
    { narrow: true },
  );
}

export interface ConsentView {
  appName: string;
  organizationName: string;
  product: string;
  scopes: string[];
  companyName: string;
  companyId: number;
  email: string;
  owner: boolean;
  csrf: string;
  /** The authorize parameters, carried back on the decision POST and checked again there. */
  params: Record<string, string | undefined>;
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

export function consentPage(context: PageContext, view: ConsentView): string {
  const t = translator(context.locale);
  const app = html`<strong>${view.appName}</strong>`;
  const summary = html`<section class="card">
<p class="lead">${rich(t("consent.wantsToConnect"), {
    app,
    organization: html`<strong>${view.organizationName}</strong>`,
    company: html`<strong>${view.companyName}</strong>`,
    companyId: view.companyId,
  })}</p>
<p><span class="badge">${rich(t("consent.productLabel"), { product: productLabel(view.product, context.locale) })}</span></p>
<h2 id="permissions-heading">${t("consent.willBeAbleTo")}</h2>
<ul class="permissions" aria-labelledby="permissions-heading">${permissionPhrases(view.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>
<details class="technical"><summary>${t("consent.technicalNames")}</summary><ul class="ltr" aria-label="${t("consent.permissions")}">${view.scopes.map((scope) => html`<li><code>${scope}</code></li>`)}</ul></details>
<p class="muted">${rich(t("consent.signedInAs"), { email: html`<bdi>${view.email}</bdi>` })}</p>
</section>`;
  const decision = view.owner
    ? html`<section class="card" aria-labelledby="decision-heading">
<h2 id="decision-heading">${t("consent.decision")}</h2>
<form method="post" action="/oauth/authorize/decision">${hiddenFields({ csrf: view.csrf, ...view.params })}
<div class="actions"><button type="submit" name="decision" value="allow">${t("consent.allow")}</button> <button type="submit" name="decision" value="deny" class="secondary">${t("consent.deny")}</button></div>
</form>
<h3>${t("consent.whatNextTitle")}</h3>
<ul class="next-steps">
<li>${rich(t("consent.whatNextAllow"), { app: view.appName })}</li>
<li>${rich(t("consent.whatNextDeny"), { app: view.appName })}</li>
<li>${rich(t("consent.disconnectLater"), { link: html`<a href="/oauth/connections">${t("consent.connectionsLink")}</a>` })}</li>
</ul>
</section>`
    : html`<section class="card" role="note" aria-label="${t("consent.ownerNeeded")}"><h2>${t("consent.askOwnerTitle")}</h2>
<p>${rich(t("consent.askOwnerText"), { company: view.companyName })}</p></section>`;
  return shell(context, t("consent.connectTitle"), html`${summary}${decision}`, {
    narrow: true,
    signedIn: { csrf: view.csrf },
  });
}

/**
 * A date (YYYY-MM-DD) kept left to right: inside an Arabic sentence the bidi algorithm would otherwise show
 * 2026-11-23 as 23-11-2026. The dir attribute also isolates it from the words around it.
 */
function day(date: string): SafeHtml {
  return html`<time datetime="${date}" dir="ltr">${date}</time>`;
}

export interface ConnectionView {
  appId: string;
  appName: string;
  organizationName: string;
  product: string;
  environment: string;
  since: string;
}

export function connectionsPage(
  context: PageContext,
  options: { companyName: string; owner: boolean; csrf: string; connections: ConnectionView[] },
): string {
  const t = translator(context.locale);
  const rows = options.connections.map(
    (
      row,
    ) => html`<li class="connection"><div><p class="connection-name">${rich(t("consent.appBy"), { app: html`<strong>${row.appName}</strong>`, organization: row.organizationName })}</p>
<p class="muted">${rich(t("consent.connectionFacts"), {
      product: productLabel(row.product, context.locale),
      environment: environmentLabel(row.environment, context.locale),
      date: day(row.since),
    })}</p></div>${
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
    html`<p class="lead">${t("consent.connectionsIntro")}</p><section class="card">${list}${note}</section>`,
    { signedIn: { csrf: options.csrf, current: "connections" } },
  );
}

export interface AccessRequestView {
  id: string;
  appName: string;
  organizationName: string;
  state: string;
  storeIds: number[];
  approvedStoreIds: number[];
  created: string;
  expires: string;
}

/**
 * The owner's ADSR access requests: pending ones with a store checkbox each (all checked: approve with all or
 * fewer) and Approve / Decline; approved ones with Withdraw. Employees see the lists and a note, no buttons.
 */
export function accessRequestsPage(
  context: PageContext,
  options: {
    companyName: string;
    owner: boolean;
    csrf: string;
    pending: AccessRequestView[];
    approved: AccessRequestView[];
  },
): string {
  const t = translator(context.locale);
  const who = (row: AccessRequestView) => ({
    app: html`<strong>${row.appName}</strong>`,
    organization: row.organizationName,
  });
  const pending = options.pending.map((row) => {
    const stores = row.storeIds.map(
      (store) =>
        html`<li class="choice"><input type="checkbox" id="store-${row.id}-${store}" name="store_ids" value="${store}" checked${options.owner ? "" : raw(" disabled")}> <label for="store-${row.id}-${store}">${t("consent.store", { store })}</label></li>`,
    );
    const body = html`<p>${rich(t("consent.asksToRead"), { ...who(row), created: day(row.created), expires: day(row.expires) })}</p>
<ul class="list-plain" aria-label="${t("consent.requestedStores")}">${stores}</ul>`;
    if (!options.owner) return html`<li>${body}</li>`;
    return html`<li><form method="post" action="/oauth/access-requests/decision">${hiddenFields({ csrf: options.csrf, access_request_id: row.id })}${body}
<div class="actions"><button type="submit" name="decision" value="approve" aria-label="${t("consent.approveApp", { app: row.appName })}">${t("consent.approve")}</button> <button type="submit" name="decision" value="decline" class="secondary" aria-label="${t("consent.declineApp", { app: row.appName })}">${t("consent.decline")}</button></div></form></li>`;
  });
  const approved = options.approved.map(
    (row) =>
      html`<li class="connection"><p>${rich(t("consent.approvedStores"), {
        ...who(row),
        stores: html`${row.approvedStoreIds.map((store, index) => html`${index > 0 ? ", " : ""}<code>${store}</code>`)}`,
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
    html`${note}<section class="card"><h2>${t("consent.pending")}</h2>
${options.pending.length > 0 ? html`<ul class="list" aria-label="${t("consent.pendingRequests")}">${pending}</ul>` : html`<p>${t("consent.noPending")}</p>`}</section>
<section class="card"><h2>${t("consent.approved")}</h2>
${options.approved.length > 0 ? html`<ul class="list" aria-label="${t("consent.approvedRequests")}">${approved}</ul>` : html`<p>${t("consent.noApproved")}</p>`}</section>`,
    { signedIn: { csrf: options.csrf, current: "access-requests" } },
  );
}
