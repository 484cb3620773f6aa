// The consent site (AUTH_URL, its own listener): the merchant-facing pages of the OAuth authorization endpoint.
//   GET  /oauth/authorize            check the request (spec order); sign-in page, or the consent screen
//   GET  /oauth/authorize/cancel     the sign-in page's Cancel: the same checks, then access_denied to the app
//   POST /oauth/sign-in              throttled sign-in; back to the same consent request
//   POST /oauth/authorize/decision   Allow (owner only) or Deny, CSRF-protected; 302 to the redirect URI
//   GET  /oauth/connections          the owner's connected apps; POST /oauth/connections/disconnect (a
//                                    confirmation step first, then the list with a message)
//   GET  /oauth/access-requests      ADSR access requests; POST .../decision (approve with all or fewer stores,
//                                    or decline) and POST .../withdraw, owner only
//   POST /oauth/sign-out
// Every page refuses to be framed (X-Frame-Options DENY, CSP frame-ancestors 'none').
import type http from "node:http";
import type { Config } from "../config/config.js";
import { createAccessRequests, type Authorization, type ValidAuthorization, type Connections } from "../grant/index.js";
import { codeHeaders, entryOf, negotiateLocale, readServiceError, type ErrorCode } from "../errors/index.js";
import { clientAddress } from "../runtime/client-address.js";
import { addressRanges } from "../config/ip-addresses.js";
import { sleep, type Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { findMerchant, scopesForProduct, type Product } from "../credential/index.js";
import type postgres from "postgres";
import type { VerifyMerchantUser } from "./merchant-users.js";
import {
  accessRequestsPage,
  confirmationPage,
  connectionsPage,
  consentPage,
  errorPage,
  internalErrorPage,
  messagePage,
  signInPage,
  type AccessRequestView,
  type AppLinks,
  type Here,
  type PageContext,
} from "./pages.js";
import { cookieNames, createSessions, sessionSeconds, type Session } from "./sessions.js";
import { createSignInThrottle } from "./sign-in-throttle.js";
import { cookie, parseCookies } from "../web/cookies.js";
import { sameSecret } from "../web/csrf.js";
import { readPostedForm } from "../web/posted-form.js";
import { createRouter, route } from "../web/router.js";
import { probePaths } from "../runtime/probe-paths.js";
import { onStore } from "../web/session-store.js";
import { createSiteServer, type PageReply, type SiteServer } from "../web/site-server.js";
import { chooseLocale, translator, type Locale, type MessageKey, type Translate } from "../web/i18n.js";
import { pageHeaders } from "../web/layout.js";

export { storeRetryAfterSeconds } from "../web/session-store.js";

export interface ConsentServerOptions {
  logger: Logger;
  config: Config;
  clock: Clock;
  ids: IdSource;
  sql: postgres.Sql;
  kv: KeyValueStore;
  authorization: Authorization;
  connections: Connections;
  verifyMerchantUser: VerifyMerchantUser;
  /** The app's public pages (website, privacy policy, terms) for the consent screen; absent: none shown. */
  appLinks?: (appId: string) => Promise<AppLinks>;
  /** When each of the company's apps last called (the request log); absent: not shown. */
  lastCalls?: (companyId: number) => Promise<ReadonlyMap<string, Date>>;
  /** The names of a company's stores (its region's data); absent or failing: stores are shown by number. */
  storeNames?: (companyId: number) => Promise<ReadonlyMap<number, string>>;
  /** GET /readyz asks it (the databases this process uses); absent: no /readyz. */
  readiness?: () => Promise<{ ready: boolean; down: string[] }>;
}

export type ConsentServer = SiteServer;

/**
 * The consent screen's CSP also allows the form to lead to the app's redirect URI: Chromium applies form-action to
 * the redirects that follow a form submission, and the decision answers with a 302 there. The rest is the web
 * kit's policy (src/web/layout.ts): our own stylesheet only, no inline script or style, frame-ancestors 'none'.
 */
function pageHeadersAllowingRedirectTo(redirectUri: string, secure: boolean): Record<string, string> {
  return pageHeaders({ secure, formTargets: [new URL(redirectUri).origin] });
}

export { maxSignInDelayMs } from "./sign-in-throttle.js";
/** Where a sign-in may return: our own authorize and connections pages only (no open redirect). */
const returnPaths = /^\/oauth\/(authorize\?|connections$|access-requests$)/;

/** The ui_locales of the authorize request a sign-in returns to (a path with its query), if any. */
function uiLocalesOf(returnTo: string | null): string | null {
  if (!returnTo?.startsWith("/oauth/authorize?")) return null;
  return new URLSearchParams(returnTo.slice("/oauth/authorize?".length)).get("ui_locales");
}

/** What a request's routing learned that its failure page and its answer still need. */
interface RequestState {
  /** The page's language and place, once chosen: a failure page after that speaks the same language. */
  context?: PageContext;
  /** The language switch's cookie, when this request chose a language with ?lang=. */
  languageCookie?: string;
}

type Reply = PageReply;

/** One request as the consent site's steps see it. */
interface Visit {
  request: http.IncomingMessage;
  url: URL;
  method: string;
  path: string;
  cookies: Map<string, string>;
  sessionId: string | undefined;
  /** Read once, at the start: every route knows whether the merchant is signed in. */
  session: Session | undefined;
  /** The page's language and place; a hint (the authorize request's ui_locales, from a POST's form) may change it. */
  readonly locale: Locale;
  readonly context: PageContext;
  hint(uiLocales: string | null | undefined): void;
}

/** What a route does with a request. */
type Handler = (visit: Visit) => Promise<Reply>;
/** What a POST route does once its form is read. */
type FormHandler = (visit: Visit, form: URLSearchParams) => Promise<Reply>;

/** An access request a decision or withdrawal is about, once the owner and the request are checked. */
interface AccessRequestAction {
  id: number;
  appName: string;
  form: URLSearchParams;
  session: Session;
  back: PageContext;
  t: Translate;
}

export function createConsentServer(options: ConsentServerOptions): ConsentServer {
  const { config, logger, clock, ids, kv, authorization, connections } = options;
  // Parsed, not a prefix test: a URL scheme is case-insensitive (HTTPS://… is https too).
  const secure = new URL(config.urls.auth).protocol === "https:";
  const ownOrigin = new URL(config.urls.auth).origin;
  const { session: sessionCookie, csrf: csrfCookie } = cookieNames(secure);
  // The kit's headers: CSP (no inline script or style, frame-ancestors 'none'), X-Frame-Options DENY, no sniffing,
  // same-origin referrer, no-store, and HSTS behind https (RFC 6797).
  const siteHeaders: Record<string, string> = pageHeaders({ secure });
  const sessions = createSessions({ kv, ids });
  const accessRequests = createAccessRequests({
    sql: options.sql,
    config,
    clock,
    logger,
    domain: "partnerapi.v1.GrantService",
  });
  const trustedProxies = addressRanges(config.trustProxy);
  const signInThrottle = createSignInThrottle({ kv, clock, ceiling: config.limits.consentSignIn });

  // The code's own headers too (Retry-After of server.database_unavailable, from an access-request decision).
  const error = (code: ErrorCode, context: PageContext, params: Record<string, string> = {}): Reply => ({
    status: entryOf(code).status,
    headers: codeHeaders(code, params),
    html: errorPage(code, context, params),
  });

  /** The pre-sign-in CSRF token (double submit): the cookie's value, or a new one set with the page. */
  const preSessionCsrf = (cookies: Map<string, string>): { token: string; set?: string } => {
    const existing = cookies.get(csrfCookie);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing };
    const token = ids.randomToken(32);
    return { token, set: cookie(csrfCookie, token, { secure, maxAge: sessionSeconds }) };
  };

  /**
   * The sign-in page. Its language switch leads to the page it returns to (the authorize request, whole): switching
   * language keeps the OAuth parameters, and the CSRF cookie is kept, so the form still posts.
   */
  const signIn = (
    locale: Locale,
    cookies: Map<string, string>,
    returnTo: string,
    status = 200,
    failed = false,
    appName?: string,
    email?: string,
  ): Reply => {
    const csrf = preSessionCsrf(cookies);
    const target = new URL(returnTo, "http://consent.invalid");
    const context = { locale, here: { path: target.pathname, query: target.searchParams } };
    // Cancel leads to the same request's cancel endpoint, which checks it again before redirecting anywhere.
    const cancelHref =
      target.pathname === "/oauth/authorize" && appName ? `/oauth/authorize/cancel${target.search}` : undefined;
    return {
      status,
      html: signInPage(context, { returnTo, csrf: csrf.token, failed, appName, email, cancelHref }),
      cookies: csrf.set ? [csrf.set] : [],
    };
  };

  /** The app name of the authorize request a sign-in returns to, when that request is (still) valid. */
  const appNameOf = async (returnTo: string): Promise<string | undefined> => {
    if (!returnTo.startsWith("/oauth/authorize?")) return undefined;
    const checked = await authorization.check(new URLSearchParams(returnTo.slice("/oauth/authorize?".length)));
    return checked.ok ? checked.request.appName : undefined;
  };

  /** The consent screen, or the error that stops it, for a checked request and a signed-in user. */
  const consentScreen = async (
    request: ValidAuthorization,
    session: Session,
    context: PageContext,
    uiLocales: string | null,
  ): Promise<Reply> => {
    const eligible = await authorization.eligibility(request, session.companyId);
    if (!eligible.ok) return error(eligible.code, context);
    return {
      status: 200,
      headers: pageHeadersAllowingRedirectTo(request.redirectUri, secure),
      html: consentPage(context, {
        appId: request.appId,
        appName: request.appName,
        organizationName: request.organizationName,
        // A production client reaches this screen only when its app is APPROVED (checked above, spec order 6).
        reviewed: request.environment === "PRODUCTION",
        product: request.product,
        scopes: request.scopes,
        companyName: eligible.merchant.name,
        redirectHost: new URL(request.redirectUri).host,
        links: (await options.appLinks?.(request.appId)) ?? {},
        email: session.email,
        owner: session.role === "OWNER",
        csrf: session.csrf,
        // ui_locales rides along (not an authorization parameter): the decision's own pages keep the app's hint.
        params: { ...request.params, ui_locales: uiLocales ?? undefined },
      }),
    };
  };

  /** The connected-apps page (with a message after a disconnect). */
  const connectionsReply = async (session: Session, context: PageContext, notice?: string): Promise<Reply> => {
    const [merchant, rows, lastCalls] = await Promise.all([
      findMerchant(options.sql, session.companyId),
      connections.list(session.companyId),
      options.lastCalls?.(session.companyId) ?? Promise.resolve(new Map<string, Date>()),
    ]);
    return {
      status: 200,
      html: connectionsPage(context, {
        companyName: merchant?.name ?? String(session.companyId),
        owner: session.role === "OWNER",
        csrf: session.csrf,
        notice,
        connections: rows.map((row) => ({
          appId: row.app_id,
          appName: row.app_name,
          organizationName: row.organization_name,
          product: row.product,
          environment: row.environment,
          scopes: scopesForProduct(row.product as Product),
          since: row.created_at,
          lastCall: lastCalls.get(row.app_id),
        })),
      }),
    };
  };

  /** The access-requests page (with a message after a decision, or the inline error of an approval without stores). */
  const accessRequestsReply = async (
    session: Session,
    context: PageContext,
    notice?: string,
    refused?: string,
  ): Promise<Reply> => {
    const [merchant, rows] = await Promise.all([
      findMerchant(options.sql, session.companyId),
      accessRequests.listForCompany(session.companyId),
    ]);
    // Store names come from the merchant's region; when it cannot answer, the stores show by number.
    const storeNames =
      rows.length > 0 && options.storeNames
        ? await options.storeNames(session.companyId).catch((cause: unknown) => {
            logger.warn("consent site: store names unavailable", { companyId: session.companyId, error: cause });
            return new Map<number, string>();
          })
        : new Map<number, string>();
    const view = (row: (typeof rows)[number]): AccessRequestView => ({
      id: String(row.id),
      appName: row.app_name,
      organizationName: row.organization_name,
      links: {
        ...(row.website_url ? { website: row.website_url } : {}),
        ...(row.privacy_policy_url ? { privacyUrl: row.privacy_policy_url } : {}),
        ...(row.terms_url ? { termsUrl: row.terms_url } : {}),
      },
      state: row.state,
      storeIds: row.store_ids,
      approvedStoreIds: row.approved_store_ids ?? [],
      created: row.created_at,
      expires: row.expires_at,
    });
    return {
      status: 200,
      html: accessRequestsPage(context, {
        companyName: merchant?.name ?? String(session.companyId),
        owner: session.role === "OWNER",
        csrf: session.csrf,
        pending: rows.filter((row) => row.state === "PENDING").map(view),
        approved: rows.filter((row) => row.state === "APPROVED").map(view),
        storeNames,
        notice,
        refused,
      }),
    };
  };

  /** A page that says one thing (a refusal, a signed-out notice). */
  const message = (status: number, context: PageContext, titleKey: MessageKey, textKey: MessageKey): Reply => ({
    status,
    html: messagePage(context, titleKey, textKey),
  });

  /** The steps every request starts with: its cookies, its language (and where a switch leads), its session. */
  async function begin(request: http.IncomingMessage, url: URL, state: RequestState): Promise<Visit> {
    const method = request.method ?? "GET";
    // HEAD reads the page GET would show, so it takes the same language and the same switch.
    const readsPage = method === "GET" || method === "HEAD";
    const path = url.pathname;
    const cookies = parseCookies(request.headers.cookie);
    // The page's language: ?lang= (the switch), then its cookie, then the app's OIDC ui_locales hint on the
    // authorize request, then Accept-Language (src/web/i18n.ts).
    const choose = (uiLocales: string | null | undefined) =>
      chooseLocale({
        query: url.searchParams,
        cookies,
        acceptLanguage: request.headers["accept-language"],
        secure,
        uiLocales,
      });
    const uiLocales = path === "/oauth/authorize" && readsPage ? url.searchParams.get("ui_locales") : null;
    const choice = choose(uiLocales);
    state.languageCookie = choice.setCookie;
    // A GET page switches language in place; a POST's answer switches on the page the site starts from.
    const here: Here = readsPage ? { path, query: url.searchParams } : { path: "/oauth/connections" };
    state.context = { locale: choice.locale, here };
    const sessionId = cookies.get(sessionCookie);
    // Without a session cookie nothing is read from the store: the authorize and sign-in pages still show.
    const session = await onStore(() => sessions.read(sessionId));
    return {
      request,
      url,
      method,
      path,
      cookies,
      sessionId,
      session,
      get locale() {
        return state.context!.locale;
      },
      get context() {
        return state.context!;
      },
      hint(value) {
        if (value) state.context = { locale: choose(value).locale, here };
      },
    };
  }

  /**
   * 404 for a path that is none of ours, 405 for one of ours asked with another method, naming the methods it has
   * (Allow, RFC 9110 section 15.5.6); on the start page.
   */
  const refused = (
    visit: Visit,
    match: { kind: "not-found" } | { kind: "method-not-allowed"; allow: string },
  ): Reply => {
    const start = { locale: visit.locale, here: { path: "/oauth/connections" } };
    return match.kind === "method-not-allowed"
      ? {
          ...message(405, start, "common.methodNotAllowedTitle", "common.methodNotAllowedText"),
          headers: { Allow: match.allow },
        }
      : message(404, start, "common.notFoundTitle", "common.notFoundText");
  };

  /** A page for the signed-in merchant; signed out, the sign-in page that returns to it. */
  const signedInPage =
    (show: (session: Session, context: PageContext) => Promise<Reply>): Handler =>
    (visit) =>
      visit.session
        ? show(visit.session, visit.context)
        : Promise.resolve(signIn(visit.locale, visit.cookies, visit.path));

  /**
   * Every POST: same origin (when the browser says, by Origin or by Sec-Fetch-Site) and a form body; then the
   * language its authorize request asked for, when the form carries it (in return_to, or a hidden field).
   */
  const posted =
    (then: FormHandler, hint?: (form: URLSearchParams) => string | null): Handler =>
    async (visit) => {
      const read = await readPostedForm(visit.request, ownOrigin);
      if (!read.ok) return message(read.status, visit.context, read.titleKey, read.textKey);
      visit.hint(hint?.(read.form));
      return then(visit, read.form);
    };

  /** The ui_locales of the authorize request a sign-in returns to; the one the consent screen's form carries. */
  const hintInReturnTo = (form: URLSearchParams) => uiLocalesOf(form.get("return_to"));
  const hintInForm = (form: URLSearchParams) => form.get("ui_locales");

  /** A signed-in POST: a session, and the form's token is the session's own. */
  const withSession =
    (then: (visit: Visit, form: URLSearchParams, session: Session) => Promise<Reply>): FormHandler =>
    async (visit, form) => {
      if (!visit.session) return message(401, visit.context, "consent.signedOutTitle", "consent.sessionEnded");
      if (!sameSecret(form.get("csrf") ?? "", visit.session.csrf))
        return message(403, visit.context, "common.refusedTitle", "common.formExpired");
      return then(visit, form, visit.session);
    };

  /** GET /oauth/authorize: the request checked in the spec's order; the sign-in page, or the consent screen. */
  const authorize: Handler = async (visit) => {
    const checked = await authorization.check(visit.url.searchParams);
    if (!checked.ok) return error(checked.code, visit.context, checked.fields ? { fields: checked.fields } : {});
    if (!visit.session)
      return signIn(visit.locale, visit.cookies, visit.path + visit.url.search, 200, false, checked.request.appName);
    return consentScreen(checked.request, visit.session, visit.context, visit.url.searchParams.get("ui_locales"));
  };

  /**
   * The sign-in page's Cancel: the request is checked as on /oauth/authorize (a bad client or redirect URI is
   * shown, never followed); a valid one goes back to the app with error=access_denied, as Deny does.
   */
  const cancelAuthorize: Handler = async (visit) => {
    const checked = await authorization.check(visit.url.searchParams);
    if (!checked.ok) return error(checked.code, visit.context, checked.fields ? { fields: checked.fields } : {});
    return { status: 302, location: authorization.deny(checked.request) };
  };

  /** POST /oauth/sign-in: the pre-sign-in token, the throttles, the password; a new session, back where it began. */
  const signInPosted: FormHandler = async (visit, form) => {
    const { request, cookies, context, locale } = visit;
    const returnTo = form.get("return_to") ?? "";
    // Printable ASCII only: it becomes the Location header, and Node throws on CR, LF or characters above U+00FF
    // (an uncaught throw there ended the whole process).
    const safeReturn = returnPaths.test(returnTo) && /^[!-~]+$/.test(returnTo) ? returnTo : "/oauth/connections";
    if (!sameSecret(form.get("csrf") ?? "", cookies.get(csrfCookie) ?? ""))
      return message(403, context, "common.refusedTitle", "common.formExpired");
    const email = (form.get("email") ?? "").trim().toLowerCase();
    const address = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
    const attempt = await signInThrottle.begin(email, address);
    if (!attempt.admitted) {
      logger.warn("consent sign-in throttled", { address, by: attempt.by });
      const retryAfter = String(attempt.retryAfter);
      return {
        status: 429,
        html: errorPage("developer.too_many_attempts", context, { retryAfter }),
        headers: { "Retry-After": retryAfter },
      };
    }
    if (attempt.waitMs > 0) {
      logger.info("consent sign-in slowed", { ms: attempt.waitMs });
      await sleep(clock, attempt.waitMs);
    }
    const user = await options.verifyMerchantUser(email, form.get("password") ?? "");
    // The failed sign-in keeps what the merchant typed (the email, never the password) and the app's context; its
    // reservation stays counted as the failure.
    if (!user)
      return signIn(locale, cookies, safeReturn, 401, true, await appNameOf(safeReturn), form.get("email") ?? "");
    await attempt.succeeded();
    const created = await onStore(() => sessions.create(user));
    await onStore(() => sessions.destroy(visit.sessionId));
    logger.info("merchant signed in to the consent site", {
      userId: user.userId,
      companyId: user.companyId,
      role: user.role,
    });
    return {
      status: 303,
      location: safeReturn,
      cookies: [
        cookie(sessionCookie, created.id, { secure, maxAge: sessionSeconds }),
        cookie(csrfCookie, "", { secure, maxAge: 0 }),
      ],
    };
  };

  /** POST /oauth/sign-out: the session ends here and in the store. */
  const signOut = async (visit: Visit): Promise<Reply> => {
    await onStore(() => sessions.destroy(visit.sessionId));
    return {
      status: 200,
      html: messagePage(visit.context, "consent.signedOutTitle", "consent.signedOutText", {
        href: "/oauth/connections",
        labelKey: "consent.signInAgain",
      }),
      cookies: [cookie(sessionCookie, "", { secure, maxAge: 0 })],
    };
  };

  /** POST /oauth/connections/disconnect, owner only: a confirmation step first, then the list with a message. */
  const disconnect = async (visit: Visit, form: URLSearchParams, session: Session): Promise<Reply> => {
    if (session.role !== "OWNER")
      return message(403, visit.context, "consent.ownerOnlyTitle", "consent.ownerOnlyDisconnect");
    const appId = form.get("app_id") ?? "";
    const connection = (await connections.list(session.companyId)).find((row) => row.app_id === appId);
    const back = { locale: visit.locale, here: { path: "/oauth/connections" } };
    // Already gone (another tab, another owner): the list as it is now.
    if (!connection) return connectionsReply(session, back);
    if (form.get("confirm") !== "yes") {
      return {
        status: 200,
        html: confirmationPage(back, {
          kind: "disconnect",
          csrf: session.csrf,
          appName: connection.app_name,
          fields: { app_id: appId },
          scopes: scopesForProduct(connection.product as Product),
        }),
      };
    }
    await connections.disconnect(session.companyId, appId);
    return connectionsReply(
      session,
      back,
      translator(visit.locale)("consent.disconnected", { app: connection.app_name }),
    );
  };

  /**
   * The steps of an access request's decision or withdrawal, owner only: the request named by the form, the
   * company's own (the module checks the owner again, and the request's state under its row lock); then the action,
   * and the list with its notice. An error of the catalogue is shown on its page.
   */
  const onAccessRequest =
    (act: (request: AccessRequestAction) => Promise<Reply | { notice: string }>) =>
    async (visit: Visit, form: URLSearchParams, session: Session): Promise<Reply> => {
      const back = { locale: visit.locale, here: { path: "/oauth/access-requests" } };
      if (session.role !== "OWNER") return message(403, back, "consent.ownerOnlyTitle", "consent.ownerOnlyDecide");
      const id = Number(
        /^[1-9]\d{0,15}$/.test(form.get("access_request_id") ?? "") ? form.get("access_request_id") : 0,
      );
      const owned = id > 0 ? await accessRequests.get(id).catch(() => undefined) : undefined;
      // Another merchant's request is as unknown as a missing one.
      if (!owned || owned.company_id !== session.companyId) return error("developer.access_request_not_found", back);
      const appName =
        (await accessRequests.listForCompany(session.companyId)).find((row) => Number(row.id) === id)?.app_name ?? "";
      let outcome: Reply | { notice: string };
      try {
        outcome = await act({ id, appName, form, session, back, t: translator(visit.locale) });
      } catch (cause) {
        const { code, params } = readServiceError(cause);
        if (code === "server.internal") throw cause;
        return error(code, back, params);
      }
      return "notice" in outcome ? accessRequestsReply(session, back, outcome.notice) : outcome;
    };

  /** POST /oauth/access-requests/withdraw: the consequence first; the withdrawal only from its confirmation's form. */
  const withdrawAccessRequest = onAccessRequest(async ({ id, appName, form, session, back, t }) => {
    if (form.get("confirm") !== "yes") {
      return {
        status: 200,
        html: confirmationPage(back, {
          kind: "withdraw",
          csrf: session.csrf,
          appName,
          fields: { access_request_id: String(id) },
        }),
      };
    }
    await accessRequests.withdraw(id, session.userId);
    return { notice: t("consent.withdrawn", { app: appName }) };
  });

  /** POST /oauth/access-requests/decision: decline, or approve with all or fewer of the stores asked for. */
  const decideAccessRequest = onAccessRequest(async ({ id, appName, form, session, back, t }) => {
    if (form.get("decision") === "decline") {
      await accessRequests.decline(id, session.userId);
      return { notice: t("consent.declinedNotice", { app: appName }) };
    }
    if (form.get("decision") === "approve") {
      const stores = form.getAll("store_ids").map((value) => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : -1));
      // No store chosen: the same page, the error at that request's stores (focused), nothing written.
      if (stores.length === 0)
        return { ...(await accessRequestsReply(session, back, undefined, String(id))), status: 400 };
      await accessRequests.approve(id, session.userId, stores);
      return { notice: t("consent.approvedNotice", { app: appName }) };
    }
    return message(400, back, "common.badRequestTitle", "consent.chooseApproveOrDecline");
  });

  /** POST /oauth/authorize/decision: the request is checked again from scratch; the form carries no authority. */
  const decideAuthorization = async (visit: Visit, form: URLSearchParams, session: Session): Promise<Reply> => {
    const query = new URLSearchParams();
    for (const [name, value] of form) if (name !== "csrf" && name !== "decision") query.append(name, value);
    // Its pages switch language back on the consent screen of the same request.
    const screen = { locale: visit.locale, here: { path: "/oauth/authorize", query } };
    const checked = await authorization.check(query);
    if (!checked.ok) return error(checked.code, screen, checked.fields ? { fields: checked.fields } : {});
    const eligible = await authorization.eligibility(checked.request, session.companyId);
    if (!eligible.ok) return error(eligible.code, screen);
    const decision = form.get("decision");
    if (decision === "deny") return { status: 302, location: authorization.deny(checked.request) };
    if (decision !== "allow") return message(400, screen, "common.badRequestTitle", "consent.chooseAllowOrDeny");
    if (session.role !== "OWNER") return message(403, screen, "consent.ownerOnlyTitle", "consent.ownerOnlyConnect");
    return { status: 302, location: await authorization.approve(checked.request, eligible.merchant, session.userId) };
  };

  const pages = createRouter<Handler>({
    // HEAD is GET without the body (RFC 9110 section 9.3.2): link checkers and monitors ask it.
    headAsGet: true,
    routes: [
      route("GET", "/oauth/authorize", authorize),
      route("GET", "/oauth/authorize/cancel", cancelAuthorize),
      route("GET", "/oauth/connections", signedInPage(connectionsReply)),
      route("GET", "/oauth/access-requests", signedInPage(accessRequestsReply)),
      route("POST", "/oauth/sign-in", posted(signInPosted, hintInReturnTo)),
      route("POST", "/oauth/authorize/decision", posted(withSession(decideAuthorization), hintInForm)),
      route("POST", "/oauth/connections/disconnect", posted(withSession(disconnect))),
      route("POST", "/oauth/sign-out", posted(withSession(signOut))),
      route("POST", "/oauth/access-requests/decision", posted(withSession(decideAccessRequest))),
      route("POST", "/oauth/access-requests/withdraw", posted(withSession(withdrawAccessRequest))),
    ],
    // The probes answer GET and HEAD before any route; another method is refused as on the pages.
    reserved: probePaths,
  });

  return createSiteServer({
    ids,
    logger,
    name: "consent site",
    requestLine: "consent request",
    base: "http://consent.invalid",
    headers: siteHeaders,
    readiness: options.readiness,
    visit(request, url) {
      const state: RequestState = {};
      return {
        async answer() {
          const visit = await begin(request, url, state);
          const match = pages.match(visit.method, visit.path);
          return match.kind === "route" ? match.handler(visit) : refused(visit, match);
        },
        failurePage(code, params) {
          const context = state.context ?? {
            locale: negotiateLocale(request.headers["accept-language"]),
            here: { path: "/oauth/connections" },
          };
          return code === "server.internal" ? internalErrorPage(context) : errorPage(code, context, params);
        },
        finish(reply) {
          const cookies = [...(reply.cookies ?? []), ...(state.languageCookie ? [state.languageCookie] : [])];
          return { ...reply, cookies, language: state.context?.locale };
        },
      };
    },
  });
}
