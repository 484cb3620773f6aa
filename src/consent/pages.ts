// The consent site's HTML, on the web kit's shell (src/web/layout.ts): every string from the message catalogue of
// the page's language (consent.* and common.* keys), escaping by construction (the `html` tag), no inline script
// or style. The accessible names are part of the contract, in each language ("Allow" / "السماح" / "अनुमति दें").
// Here: the site's shell, the short pages (errors, messages, sign-in, a confirmation) and the phrases the pages
// share; the consent page, the connections page and the access-requests page have a file each, as has the app's
// identity they show (./app-identity.ts).
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

/**
 * A name (an app's, a merchant's) inside a sentence of the site: bold, and isolated (<bdi>) so a Latin name keeps its
 * order in an Arabic sentence and an Arabic one in an English sentence. Two names never touch in a message: a word of
 * the language stands between them (docs/decisions.md, "Names in sentences").
 */
export function nameInSentence(name: string): SafeHtml {
  return html`<strong class="name"><bdi>${name}</bdi></strong>`;
}

export function shell(
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
    html`${options.appName ? html`<p class="lead">${rich(t("consent.signInContext"), { app: nameInSentence(options.appName) })}</p>` : ""}
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

export function environmentLabel(environment: string, locale: Locale): string {
  const t = translator(locale);
  const key = `consent.environment.${environment}`;
  return known(locale, key) ? t(key) : environment;
}

/** A day in the reader's language and calendar conventions (Intl), kept whole inside a sentence of any direction. */
export function formatDay(date: Date, locale: Locale): SafeHtml {
  return html`<time datetime="${date.toISOString().slice(0, 10)}"><bdi>${dayText(locale, date)}</bdi></time>`;
}

/** A moment (day and time, UTC said as such) in the reader's language (Intl). */
export function formatMoment(date: Date, locale: Locale): SafeHtml {
  return html`<time datetime="${date.toISOString()}"><bdi>${momentText(locale, date)}</bdi></time>`;
}

/** A message that something happened: announced, and focused on load so a keyboard or screen-reader user is there. */
export function doneNotice(text: HtmlValue): SafeHtml {
  return html`<div class="alert ok" id="done" role="status" tabindex="-1" autofocus><p>${text}</p></div>`;
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
${options.scopes ? html`<h2 id="removed-heading">${rich(t("consent.accessRemoved"), { app: nameInSentence(options.appName) })}</h2><ul class="permissions removing" aria-labelledby="removed-heading">${permissionPhrases(options.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>` : ""}
<form method="post" action="${action}">${hiddenFields({ csrf: options.csrf, ...options.fields, confirm: "yes" })}
<div class="actions"><button type="submit" class="danger">${t(disconnect ? "consent.confirmDisconnect" : "consent.confirmWithdraw", { app: options.appName })}</button> <a class="button secondary" href="${back}">${t(disconnect ? "consent.keepConnected" : "consent.keepAccess")}</a></div>
</form></section>`,
    { narrow: true, signedIn: { csrf: options.csrf, current: disconnect ? "connections" : "access-requests" } },
  );
}
