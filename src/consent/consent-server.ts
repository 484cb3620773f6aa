// The consent site (AUTH_URL, its own listener): the merchant-facing pages of the OAuth authorization endpoint.
//   GET  /oauth/authorize            check the request (spec order), or a pushed one by client_id and request_uri
//                                    (RFC 9126; src/grant/authorization.ts); sign-in page, or the consent screen
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
import { createAccessRequests } from "../grant/index.js";
import { codeHeaders, entryOf, negotiateLocale, type ErrorCode } from "../errors/index.js";
import { clientAddress } from "../runtime/client-address.js";
import { addressRanges } from "../config/ip-addresses.js";
import { sleep } from "../runtime/clock.js";
import { errorPage, internalErrorPage, messagePage, signInPage, type Here, type PageContext } from "./pages.js";
import { cookieNames, createSessions, sessionSeconds } from "./sessions.js";
import { createSignInThrottle } from "./sign-in-throttle.js";
import { cookie, parseCookies } from "../web/cookies.js";
import { sameSecret } from "../web/csrf.js";
import { onStore } from "../web/session-store.js";
import { createSiteServer, type SiteServer } from "../web/site-server.js";
import { chooseLocale, type Locale, type MessageKey } from "../web/i18n.js";
import { pageHeaders } from "../web/layout.js";
import { createAccessRequestPages } from "./access-request-pages.js";
import { createAuthorizePages } from "./authorize-pages.js";
import { createConnectionPages } from "./connection-pages.js";
import { createConsentRoutes } from "./consent-routes.js";
import type { ConsentKit, ConsentServerOptions, FormHandler, Reply, RequestState, Visit } from "./consent-site.js";

export { storeRetryAfterSeconds } from "../web/session-store.js";
export type { ConsentServerOptions } from "./consent-site.js";

export type ConsentServer = SiteServer;

export { maxSignInDelayMs } from "./sign-in-throttle.js";
/** Where a sign-in may return: our own authorize and connections pages only (no open redirect). */
const returnPaths = /^\/oauth\/(authorize\?|connections$|access-requests$)/;

export function createConsentServer(options: ConsentServerOptions): ConsentServer {
  const { config, logger, clock, ids, kv } = options;
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

  /** A page that says one thing (a refusal, a signed-out notice). */
  const message = (status: number, context: PageContext, titleKey: MessageKey, textKey: MessageKey): Reply => ({
    status,
    html: messagePage(context, titleKey, textKey),
  });

  const kit: ConsentKit = { options, secure, ownOrigin, accessRequests, error, message, signIn };
  const { appNameOf, authorize, cancelAuthorize, decideAuthorization } = createAuthorizePages(kit);
  const { connectionsReply, disconnect } = createConnectionPages(kit);
  const { accessRequestsReply, decideAccessRequest, withdrawAccessRequest } = createAccessRequestPages(kit);

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

  const pages = createConsentRoutes(kit, {
    authorize,
    cancelAuthorize,
    decideAuthorization,
    connectionsReply,
    disconnect,
    accessRequestsReply,
    decideAccessRequest,
    withdrawAccessRequest,
    signInPosted,
    signOut,
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
