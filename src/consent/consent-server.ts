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
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Config } from "../config/config.js";
import { createAccessRequests, type Authorization, type ValidAuthorization, type Connections } from "../grant/index.js";
import { databaseRetryAfterSeconds } from "../storage/unavailable.js";
import { codeHeaders, entryOf, negotiateLocale, readServiceError, type ErrorCode } from "../errors/index.js";
import { clientAddress } from "../runtime/client-address.js";
import { addressKey, addressRanges } from "../config/ip-addresses.js";
import { sleep, type Clock } from "../runtime/clock.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { servedGracefully } from "../runtime/http-shutdown.js";
import { endAfterFailure } from "../runtime/last-resort.js";
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
import { cookie, parseCookies } from "../web/cookies.js";
import { fromAnotherSite, sameSecret } from "../web/csrf.js";
import { readForm } from "../web/forms.js";
import { assetReply } from "../web/assets.js";
import { probeReply, siteContentType, siteUrl, tracedSiteRequests } from "../web/site-request.js";
import { ClientGone, clientClosedStatus } from "../runtime/client-gone.js";
import { chooseLocale, translator, type Locale } from "../web/i18n.js";
import { pageHeaders } from "../web/layout.js";

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

export interface ConsentServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
}

/**
 * The consent screen's CSP also allows the form to lead to the app's redirect URI: Chromium applies form-action to
 * the redirects that follow a form submission, and the decision answers with a 302 there. The rest is the web
 * kit's policy (src/web/layout.ts): our own stylesheet only, no inline script or style, frame-ancestors 'none'.
 */
function pageHeadersAllowingRedirectTo(redirectUri: string, secure: boolean): Record<string, string> {
  return pageHeaders({ secure, formTargets: [new URL(redirectUri).origin] });
}

/** Sign-in window: 15 minutes, fixed. */
const signInWindowMs = 15 * 60_000;
/** The longest an account's sign-in is slowed: the owner waits at most this long, however many strangers failed. */
export const maxSignInDelayMs = 30_000;
/**
 * Retry-After of the 503 page while the session store (Redis) is away: the client reconnects within about a second
 * of Redis returning (src/storage/key-value.ts), so a few seconds is an honest first retry.
 */
export const storeRetryAfterSeconds = 5;
/** Where a sign-in may return: our own authorize and connections pages only (no open redirect). */
const returnPaths = /^\/oauth\/(authorize\?|connections$|access-requests$)/;

/**
 * The session store or the sign-in throttle failed (Redis unreachable or not answering). The site answers 503 with
 * Retry-After rather than sign anyone in unthrottled, or keep sessions in one process a load balancer may not
 * route back to (docs/decisions.md, "Consent site").
 */
class SessionStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super("the consent site's session store is unavailable", { cause });
  }
}

/** Runs a call on the key-value store; any failure of it becomes SessionStoreUnavailable. */
async function onStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    throw new SessionStoreUnavailable(cause);
  }
}

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

interface Reply {
  status: number;
  html?: string;
  location?: string;
  headers?: Record<string, string>;
  cookies?: string[];
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
  const accessRequestPaths = ["/oauth/access-requests/decision", "/oauth/access-requests/withdraw"];
  const trustedProxies = addressRanges(config.trustProxy);
  // Fails closed: a store failure ends the sign-in with the 503 page before the password is checked, so no attempt
  // goes uncounted (and no session could be kept anyway).
  const signInAttempts = createFixedWindowCounter({
    store: kv,
    clock,
    logger,
    name: "consent sign-in throttle",
    windowMs: signInWindowMs,
    whenStoreFails: "throw",
  });

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

  const hashedKey = (value: string) => createHash("sha256").update(value).digest("base64url");

  // The sign-in rule (docs/decisions.md, "Hostile input and silent dependencies"): a hard limit only on what the
  // caller controls, its address (every attempt, ten times the ceiling) and the pair (account, address) (failures,
  // the ceiling); the account as a whole, failed from anywhere, is slowed rather than locked, so that a stranger
  // cannot lock an owner out at will. A successful sign-in counts toward nothing but the address.
  const pairKey = (email: string, address: string) => `consent:sign-in:pair:${hashedKey(email)}:${addressKey(address)}`;
  const accountKey = (email: string) => `consent:sign-in:email:${hashedKey(email)}`;

  /** Counts the attempt of `address`; true when the address or the pair (email, address) is over its ceiling. */
  const signInThrottled = async (email: string, address: string): Promise<boolean> => {
    const [perAddress, perPair] = await onStore(() =>
      Promise.all([
        signInAttempts.hit(`consent:sign-in:address:${addressKey(address)}`),
        signInAttempts.peek(pairKey(email, address)),
      ]),
    );
    return perPair.count >= config.limits.consentSignIn || perAddress.count > config.limits.consentSignIn * 10;
  };

  /** The wait before checking a password of `email`: none up to the ceiling of failures, then doubling from 1 s. */
  const signInDelayMs = async (email: string): Promise<number> => {
    const failures = (await onStore(() => signInAttempts.peek(accountKey(email)))).count;
    return failures < config.limits.consentSignIn
      ? 0
      : Math.min(1_000 * 2 ** (failures - config.limits.consentSignIn), maxSignInDelayMs);
  };

  /** A failed attempt counts for the pair and for the account. */
  const signInFailed = (email: string, address: string) =>
    onStore(() => Promise.all([signInAttempts.hit(pairKey(email, address)), signInAttempts.hit(accountKey(email))]));

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

  async function route(request: http.IncomingMessage, url: URL, state: RequestState): Promise<Reply> {
    const method = request.method ?? "GET";
    const path = url.pathname;
    // Probes first: liveness needs nothing, readiness only the databases (no session read, no cookie).
    const probe = await probeReply(method, path, options.readiness, databaseRetryAfterSeconds);
    if (probe) return probe;
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
    const uiLocales = path === "/oauth/authorize" && method === "GET" ? url.searchParams.get("ui_locales") : null;
    const choice = choose(uiLocales);
    let locale = choice.locale;
    state.languageCookie = choice.setCookie;
    // A GET page switches language in place; a POST's answer switches on the page the site starts from.
    const here: Here = method === "GET" ? { path, query: url.searchParams } : { path: "/oauth/connections" };
    let context: PageContext = { locale, here };
    state.context = context;
    /** A POST of the authorize request's pages carries its ui_locales (in return_to, or a hidden field): honoured too. */
    const hinted = (value: string | null | undefined) => {
      if (!value) return;
      locale = choose(value).locale;
      context = { locale, here };
      state.context = context;
    };
    const sessionId = cookies.get(sessionCookie);
    // Without a session cookie nothing is read from the store: the authorize and sign-in pages still show.
    const session = await onStore(() => sessions.read(sessionId));

    if (path === "/oauth/authorize" && method === "GET") {
      const checked = await authorization.check(url.searchParams);
      if (!checked.ok) return error(checked.code, context, checked.fields ? { fields: checked.fields } : {});
      if (!session) return signIn(locale, cookies, path + url.search, 200, false, checked.request.appName);
      return consentScreen(checked.request, session, context, uiLocales);
    }

    if (path === "/oauth/authorize/cancel" && method === "GET") {
      // The sign-in page's Cancel: the request is checked as on /oauth/authorize (a bad client or redirect URI is
      // shown, never followed); a valid one goes back to the app with error=access_denied, as Deny does.
      const checked = await authorization.check(url.searchParams);
      if (!checked.ok) return error(checked.code, context, checked.fields ? { fields: checked.fields } : {});
      return { status: 302, location: authorization.deny(checked.request) };
    }

    if (path === "/oauth/connections" && method === "GET") {
      if (!session) return signIn(locale, cookies, path);
      return connectionsReply(session, context);
    }

    if (path === "/oauth/access-requests" && method === "GET") {
      if (!session) return signIn(locale, cookies, path);
      return accessRequestsReply(session, context);
    }

    const posts = [
      "/oauth/sign-in",
      "/oauth/authorize/decision",
      "/oauth/connections/disconnect",
      "/oauth/sign-out",
      ...accessRequestPaths,
    ];
    if (method !== "POST" || !posts.includes(path)) {
      const known = [
        "/oauth/authorize",
        "/oauth/authorize/cancel",
        "/oauth/connections",
        "/oauth/access-requests",
        "/healthz",
        "/readyz",
        ...posts,
      ];
      const start = { locale, here: { path: "/oauth/connections" } };
      return known.includes(path)
        ? { status: 405, html: messagePage(start, "common.methodNotAllowedTitle", "common.methodNotAllowedText") }
        : { status: 404, html: messagePage(start, "common.notFoundTitle", "common.notFoundText") };
    }

    // Every POST: same origin (when the browser says, by Origin or by Sec-Fetch-Site), a form body, and a CSRF token.
    if (fromAnotherSite(request.headers.origin, request.headers["sec-fetch-site"], ownOrigin)) {
      return { status: 403, html: messagePage(context, "common.refusedTitle", "common.otherSite") };
    }
    const form = await readForm(request);
    if (!form) return { status: 400, html: messagePage(context, "common.badRequestTitle", "common.formUnreadable") };
    const csrf = form.get("csrf") ?? "";
    if (path === "/oauth/sign-in") hinted(uiLocalesOf(form.get("return_to")));
    if (path === "/oauth/authorize/decision") hinted(form.get("ui_locales"));

    if (path === "/oauth/sign-in") {
      const returnTo = form.get("return_to") ?? "";
      // Printable ASCII only: it becomes the Location header, and Node throws on CR, LF or characters above U+00FF
      // (an uncaught throw there ended the whole process).
      const safeReturn = returnPaths.test(returnTo) && /^[!-~]+$/.test(returnTo) ? returnTo : "/oauth/connections";
      if (!sameSecret(csrf, cookies.get(csrfCookie) ?? ""))
        return { status: 403, html: messagePage(context, "common.refusedTitle", "common.formExpired") };
      const email = (form.get("email") ?? "").trim().toLowerCase();
      const address = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
      if (await signInThrottled(email, address)) {
        logger.warn("consent sign-in throttled", { address });
        const retryAfter = String(Math.ceil(signInWindowMs / 1000));
        return {
          status: 429,
          html: errorPage("developer.too_many_attempts", context, { retryAfter }),
          headers: { "Retry-After": retryAfter },
        };
      }
      const delayMs = await signInDelayMs(email);
      if (delayMs > 0) {
        logger.info("consent sign-in slowed", { ms: delayMs });
        await sleep(clock, delayMs);
      }
      const user = await options.verifyMerchantUser(email, form.get("password") ?? "");
      // The failed sign-in keeps what the merchant typed (the email, never the password) and the app's context.
      if (!user) {
        await signInFailed(email, address);
        return signIn(locale, cookies, safeReturn, 401, true, await appNameOf(safeReturn), form.get("email") ?? "");
      }
      const created = await onStore(() => sessions.create(user));
      await onStore(() => sessions.destroy(sessionId));
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
    }

    if (!session) return { status: 401, html: messagePage(context, "consent.signedOutTitle", "consent.sessionEnded") };
    if (!sameSecret(csrf, session.csrf))
      return { status: 403, html: messagePage(context, "common.refusedTitle", "common.formExpired") };

    if (path === "/oauth/sign-out") {
      await onStore(() => sessions.destroy(sessionId));
      return {
        status: 200,
        html: messagePage(context, "consent.signedOutTitle", "consent.signedOutText", {
          href: "/oauth/connections",
          labelKey: "consent.signInAgain",
        }),
        cookies: [cookie(sessionCookie, "", { secure, maxAge: 0 })],
      };
    }

    if (path === "/oauth/connections/disconnect") {
      if (session.role !== "OWNER")
        return { status: 403, html: messagePage(context, "consent.ownerOnlyTitle", "consent.ownerOnlyDisconnect") };
      const appId = form.get("app_id") ?? "";
      const connection = (await connections.list(session.companyId)).find((row) => row.app_id === appId);
      const back = { locale, here: { path: "/oauth/connections" } };
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
      return connectionsReply(session, back, translator(locale)("consent.disconnected", { app: connection.app_name }));
    }

    if (accessRequestPaths.includes(path)) {
      // The module checks the owner again (role and company) and the request's state under its row lock.
      const back = { locale, here: { path: "/oauth/access-requests" } };
      if (session.role !== "OWNER")
        return { status: 403, html: messagePage(back, "consent.ownerOnlyTitle", "consent.ownerOnlyDecide") };
      const id = Number(
        /^[1-9]\d{0,15}$/.test(form.get("access_request_id") ?? "") ? form.get("access_request_id") : 0,
      );
      const owned = id > 0 ? await accessRequests.get(id).catch(() => undefined) : undefined;
      // Another merchant's request is as unknown as a missing one.
      if (!owned || owned.company_id !== session.companyId) return error("developer.access_request_not_found", back);
      const t = translator(locale);
      const appName =
        (await accessRequests.listForCompany(session.companyId)).find((row) => Number(row.id) === id)?.app_name ?? "";
      let notice: string;
      try {
        if (path === "/oauth/access-requests/withdraw") {
          // The consequence first; the withdrawal only from the confirmation's own form.
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
          notice = t("consent.withdrawn", { app: appName });
        } else if (form.get("decision") === "decline") {
          await accessRequests.decline(id, session.userId);
          notice = t("consent.declinedNotice", { app: appName });
        } else if (form.get("decision") === "approve") {
          const stores = form.getAll("store_ids").map((value) => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : -1));
          // No store chosen: the same page, the error at that request's stores (focused), nothing written.
          if (stores.length === 0)
            return { ...(await accessRequestsReply(session, back, undefined, String(id))), status: 400 };
          await accessRequests.approve(id, session.userId, stores);
          notice = t("consent.approvedNotice", { app: appName });
        } else {
          return { status: 400, html: messagePage(back, "common.badRequestTitle", "consent.chooseApproveOrDecline") };
        }
      } catch (cause) {
        const { code, params } = readServiceError(cause);
        if (code === "server.internal") throw cause;
        return error(code, back, params);
      }
      return accessRequestsReply(session, back, notice);
    }

    // /oauth/authorize/decision: the request is checked again from scratch; the form carries no authority.
    const query = new URLSearchParams();
    for (const [name, value] of form) if (name !== "csrf" && name !== "decision") query.append(name, value);
    // Its pages switch language back on the consent screen of the same request.
    const screen = { locale, here: { path: "/oauth/authorize", query } };
    const checked = await authorization.check(query);
    if (!checked.ok) return error(checked.code, screen, checked.fields ? { fields: checked.fields } : {});
    const eligible = await authorization.eligibility(checked.request, session.companyId);
    if (!eligible.ok) return error(eligible.code, screen);
    const decision = form.get("decision");
    if (decision === "deny") return { status: 302, location: authorization.deny(checked.request) };
    if (decision !== "allow")
      return { status: 400, html: messagePage(screen, "common.badRequestTitle", "consent.chooseAllowOrDeny") };
    if (session.role !== "OWNER")
      return { status: 403, html: messagePage(screen, "consent.ownerOnlyTitle", "consent.ownerOnlyConnect") };
    return { status: 302, location: await authorization.approve(checked.request, eligible.merchant, session.userId) };
  }

  const server = http.createServer(
    tracedSiteRequests(ids, (request, response) => {
      const started = performance.now();
      let url: URL;
      try {
        url = siteUrl(request.url, "http://consent.invalid");
      } catch (error) {
        endAfterFailure(response, logger, error, "(unparsable)");
        return;
      }
      // The stylesheet (hashed URL, cacheable): no session, no language, none of the page headers.
      const asset = assetReply(request.method ?? "GET", url.pathname, request.headers["if-none-match"]);
      if (asset) {
        response.writeHead(asset.status, asset.headers);
        response.end(asset.body);
        return;
      }
      const state: RequestState = {};
      const failureContext = (): PageContext =>
        state.context ?? {
          locale: negotiateLocale(request.headers["accept-language"]),
          here: { path: "/oauth/connections" },
        };
      // Counted until it settles, so that shutdown waits for it even when its client has gone.
      const handling = route(request, url, state)
        .catch((cause: unknown): Reply => {
          // Its own doing, not an outage: logged at info and counted 499 below; nothing reaches the closed socket.
          if (cause instanceof ClientGone) return { status: clientClosedStatus };
          if (cause instanceof SessionStoreUnavailable) {
            logger.warn("consent site: session store unavailable", {
              path: url.pathname,
              error: (cause.cause as Error | undefined)?.message,
            });
            const retryAfter = String(storeRetryAfterSeconds);
            return {
              status: 503,
              html: errorPage("server.unavailable", failureContext()),
              headers: { "Retry-After": retryAfter },
            };
          }
          // A database that is down is no internal error: the page says so in the visitor's language, 503 with
          // Retry-After (RFC 9110 section 10.2.3), and the visitor reloads once it is back.
          const read = readServiceError(cause);
          if (read.code === "server.database_unavailable") {
            logger.warn("consent site: database unavailable", { path: url.pathname, error: cause });
            return error(read.code, failureContext(), read.params);
          }
          logger.error("consent site failure", { path: url.pathname, error: cause });
          return { status: 500, html: internalErrorPage(failureContext()) };
        })
        .then((reply) => {
          const headers: Record<string, string | string[]> = { ...siteHeaders, ...reply.headers };
          const cookies = [...(reply.cookies ?? []), ...(state.languageCookie ? [state.languageCookie] : [])];
          if (cookies.length > 0) headers["Set-Cookie"] = cookies;
          if (state.context && reply.html !== undefined) headers["Content-Language"] = state.context.locale;
          if (reply.location) headers["Location"] = reply.location;
          if (reply.html !== undefined) headers["Content-Type"] = siteContentType(url.pathname);
          response.writeHead(reply.status, headers);
          response.end(reply.html ?? "");
          logger.info("consent request", {
            method: request.method,
            path: url.pathname,
            status: reply.status,
            ms: Math.round(performance.now() - started),
          });
        })
        .catch((error: unknown) => endAfterFailure(response, logger, error, url.pathname));
      listener.track(handling);
    }),
  );
  const listener = servedGracefully(server);
  return { listen: listener.listen, close: listener.close };
}
