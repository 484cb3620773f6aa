// The consent site (AUTH_URL, its own listener): the merchant-facing pages of the OAuth authorization endpoint.
//   GET  /oauth/authorize            check the request (spec order); sign-in page, or the consent screen
//   POST /oauth/sign-in              throttled sign-in; back to the same consent request
//   POST /oauth/authorize/decision   Allow (owner only) or Deny, CSRF-protected; 302 to the redirect URI
//   GET  /oauth/connections          the owner's connected apps; POST /oauth/connections/disconnect
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
import { codeHeaders, entryOf, messageFor, negotiateLocale, readServiceError, type ErrorCode } from "../errors/index.js";
import { clientAddress } from "../runtime/client-address.js";
import { addressKey, addressRanges } from "../config/ip-addresses.js";
import type { Clock } from "../runtime/clock.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { closeGracefully, listen, trackSockets } from "../runtime/http-shutdown.js";
import { endAfterFailure } from "../runtime/last-resort.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { createMerchantQueries } from "../credential/index.js";
import type postgres from "postgres";
import type { VerifyMerchantUser } from "./merchant-users.js";
import {
  accessRequestsPage,
  connectionsPage,
  consentPage,
  errorPage,
  layout,
  messagePage,
  signInPage,
  type AccessRequestView,
} from "./pages.js";
import { cookieNames, createSessions, sessionSeconds, type Session } from "./sessions.js";
import { cookie, parseCookies } from "../web/cookies.js";
import { fromAnotherSite, sameSecret } from "../web/csrf.js";
import { readForm } from "../web/forms.js";

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
  /** GET /readyz asks it (the databases this process uses); absent: no /readyz. */
  readiness?: () => Promise<{ ready: boolean; down: string[] }>;
}

export interface ConsentServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
}

/** Headers on every page: no framing (X-Frame-Options and CSP frame-ancestors), no sniffing, no referrer leaks. */
export const pageSecurityHeaders = {
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on our own form posts, and the
  // origin check below needs the real one. Cross-origin (the redirect to the app) still sends no referrer.
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
} as const;

/**
 * The consent screen's CSP also allows the form to lead to the app's redirect URI: Chromium applies form-action to
 * the redirects that follow a form submission, and the decision answers with a 302 there.
 */
function pageHeadersAllowingRedirectTo(redirectUri: string): Record<string, string> {
  const origin = new URL(redirectUri).origin;
  return {
    ...pageSecurityHeaders,
    "Content-Security-Policy": `default-src 'none'; style-src 'self'; form-action 'self' ${origin}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

/** Sign-in window: 15 minutes, fixed. */
const signInWindowMs = 15 * 60_000;
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
  // Behind https (a TLS-terminating proxy in front of this listener), browsers keep to https for a year (RFC 6797).
  // Not includeSubDomains: other hosts under the same parent are not ours to decide for.
  const siteHeaders: Record<string, string> = secure ? { ...pageSecurityHeaders, "Strict-Transport-Security": "max-age=31536000" } : { ...pageSecurityHeaders };
  const sessions = createSessions({ kv, ids });
  const accessRequests = createAccessRequests({ sql: options.sql, config, clock, logger, domain: "partnerapi.v1.GrantService" });
  const accessRequestPaths = ["/oauth/access-requests/decision", "/oauth/access-requests/withdraw"];
  const trustedProxies = addressRanges(config.trustProxy);
  // Fails closed: a store failure ends the sign-in with the 503 page before the password is checked, so no attempt
  // goes uncounted (and no session could be kept anyway).
  const signInAttempts = createFixedWindowCounter({ store: kv, clock, logger, name: "consent sign-in throttle", windowMs: signInWindowMs, whenStoreFails: "throw" });

  // The code's own headers too (Retry-After of server.database_unavailable, from an access-request decision).
  const error = (code: ErrorCode, locale: ReturnType<typeof negotiateLocale>, params: Record<string, string> = {}): Reply => ({
    status: entryOf(code).status,
    headers: codeHeaders(code, params),
    html: errorPage(code, locale, params),
  });

  /** The pre-sign-in CSRF token (double submit): the cookie's value, or a new one set with the page. */
  const preSessionCsrf = (cookies: Map<string, string>): { token: string; set?: string } => {
    const existing = cookies.get(csrfCookie);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return { token: existing };
    const token = ids.randomToken(32);
    return { token, set: cookie(csrfCookie, token, { secure, maxAge: sessionSeconds }) };
  };

  const signIn = (cookies: Map<string, string>, returnTo: string, status = 200, failed = false, context?: string): Reply => {
    const csrf = preSessionCsrf(cookies);
    return { status, html: signInPage({ returnTo, csrf: csrf.token, failed, context }), cookies: csrf.set ? [csrf.set] : [] };
  };

  /** The consent screen, or the error that stops it, for a checked request and a signed-in user. */
  const consentScreen = async (request: ValidAuthorization, session: Session, locale: ReturnType<typeof negotiateLocale>): Promise<Reply> => {
    const eligible = await authorization.eligibility(request, session.companyId);
    if (!eligible.ok) return error(eligible.code, locale);
    return {
      status: 200,
      headers: pageHeadersAllowingRedirectTo(request.redirectUri),
      html: consentPage({
        appName: request.appName,
        organizationName: request.organizationName,
        product: request.product,
        scopes: request.scopes,
        companyName: eligible.merchant.name,
        companyId: eligible.merchant.company_id,
        email: session.email,
        owner: session.role === "OWNER",
        csrf: session.csrf,
        params: request.params,
      }),
    };
  };

  const hashedKey = (value: string) => createHash("sha256").update(value).digest("base64url");

  /** Counts a sign-in attempt per email and per address (IPv6 by /64); true when over a ceiling. */
  const signInThrottled = async (email: string, address: string): Promise<boolean> => {
    const [perEmail, perAddress] = await onStore(() =>
      Promise.all([
        signInAttempts.hit(`consent:sign-in:email:${hashedKey(email)}`),
        signInAttempts.hit(`consent:sign-in:address:${addressKey(address)}`),
      ]),
    );
    return perEmail.count > config.limits.consentSignIn || perAddress.count > config.limits.consentSignIn * 10;
  };

  async function route(request: http.IncomingMessage, url: URL): Promise<Reply> {
    const method = request.method ?? "GET";
    const path = url.pathname;
    // Probes first: liveness needs nothing, readiness only the databases (no session read, no cookie).
    if (path === "/healthz" && method === "GET") return { status: 200, html: "ok\n" };
    if (path === "/readyz" && method === "GET" && options.readiness) {
      const { ready, down } = await options.readiness();
      return ready ? { status: 200, html: "ready\n" } : { status: 503, headers: { "Retry-After": String(databaseRetryAfterSeconds) }, html: `not ready: ${down.join(", ")}\n` };
    }
    const locale = negotiateLocale(request.headers["accept-language"]);
    const cookies = parseCookies(request.headers.cookie);
    const sessionId = cookies.get(sessionCookie);
    // Without a session cookie nothing is read from the store: the authorize and sign-in pages still show.
    const session = await onStore(() => sessions.read(sessionId));

    if (path === "/oauth/authorize" && method === "GET") {
      const checked = await authorization.check(url.searchParams);
      if (!checked.ok) return error(checked.code, locale, checked.fields ? { fields: checked.fields } : {});
      if (!session) {
        return signIn(cookies, path + url.search, 200, false, `${checked.request.appName} wants to connect to your business. Sign in to continue.`);
      }
      return consentScreen(checked.request, session, locale);
    }

    if (path === "/oauth/connections" && method === "GET") {
      if (!session) return signIn(cookies, path);
      const merchant = await createMerchantQueries(options.sql).find(session.companyId);
      const rows = await connections.list(session.companyId);
      return {
        status: 200,
        html: connectionsPage({
          companyName: merchant?.name ?? String(session.companyId),
          owner: session.role === "OWNER",
          csrf: session.csrf,
          connections: rows.map((row) => ({
            appId: row.app_id,
            appName: row.app_name,
            organizationName: row.organization_name,
            product: row.product,
            environment: row.environment,
            since: row.created_at.toISOString().slice(0, 10),
          })),
        }),
      };
    }

    if (path === "/oauth/access-requests" && method === "GET") {
      if (!session) return signIn(cookies, path);
      const merchant = await createMerchantQueries(options.sql).find(session.companyId);
      const rows = await accessRequests.listForCompany(session.companyId);
      const view = (row: (typeof rows)[number]): AccessRequestView => ({
        id: String(row.id),
        appName: row.app_name,
        organizationName: row.organization_name,
        state: row.state,
        storeIds: row.store_ids,
        approvedStoreIds: row.approved_store_ids ?? [],
        created: row.created_at.toISOString().slice(0, 10),
        expires: row.expires_at.toISOString().slice(0, 10),
      });
      return {
        status: 200,
        html: accessRequestsPage({
          companyName: merchant?.name ?? String(session.companyId),
          owner: session.role === "OWNER",
          csrf: session.csrf,
          pending: rows.filter((row) => row.state === "PENDING").map(view),
          approved: rows.filter((row) => row.state === "APPROVED").map(view),
        }),
      };
    }

    const posts = ["/oauth/sign-in", "/oauth/authorize/decision", "/oauth/connections/disconnect", "/oauth/sign-out", ...accessRequestPaths];
    if (method !== "POST" || !posts.includes(path)) {
      const known = ["/oauth/authorize", "/oauth/connections", "/oauth/access-requests", "/healthz", "/readyz", ...posts];
      return known.includes(path) ? { status: 405, html: messagePage("Method not allowed", "This page does not accept that method.") } : { status: 404, html: messagePage("Page not found", "Page not found.") };
    }

    // Every POST: same origin (when the browser says, by Origin or by Sec-Fetch-Site), a form body, and a CSRF token.
    if (fromAnotherSite(request.headers.origin, request.headers["sec-fetch-site"], ownOrigin)) {
      return { status: 403, html: messagePage("Request refused", "This form was sent from another site.") };
    }
    const form = await readForm(request);
    if (!form) return { status: 400, html: messagePage("Bad request", "The form could not be read.") };
    const csrf = form.get("csrf") ?? "";

    if (path === "/oauth/sign-in") {
      const returnTo = form.get("return_to") ?? "";
      // Printable ASCII only: it becomes the Location header, and Node throws on CR, LF or characters above U+00FF
      // (an uncaught throw there ended the whole process).
      const safeReturn = returnPaths.test(returnTo) && /^[!-~]+$/.test(returnTo) ? returnTo : "/oauth/connections";
      if (!sameSecret(csrf, cookies.get(csrfCookie) ?? "")) return { status: 403, html: messagePage("Request refused", "The form expired. Go back and try again.") };
      const email = (form.get("email") ?? "").trim().toLowerCase();
      const address = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
      if (await signInThrottled(email, address)) {
        logger.warn("consent sign-in throttled", { address });
        const retryAfter = String(Math.ceil(signInWindowMs / 1000));
        return { status: 429, html: errorPage("developer.too_many_attempts", locale, { retryAfter }), headers: { "Retry-After": retryAfter } };
      }
      const user = await options.verifyMerchantUser(email, form.get("password") ?? "");
      if (!user) return signIn(cookies, safeReturn, 401, true);
      const created = await onStore(() => sessions.create(user));
      await onStore(() => sessions.destroy(sessionId));
      logger.info("merchant signed in to the consent site", { userId: user.userId, companyId: user.companyId, role: user.role });
      return {
        status: 303,
        location: safeReturn,
        cookies: [cookie(sessionCookie, created.id, { secure, maxAge: sessionSeconds }), cookie(csrfCookie, "", { secure, maxAge: 0 })],
      };
    }

    if (!session) return { status: 401, html: messagePage("Signed out", "Your session ended. Start again from the app.") };
    if (!sameSecret(csrf, session.csrf)) return { status: 403, html: messagePage("Request refused", "The form expired. Go back and try again.") };

    if (path === "/oauth/sign-out") {
      await onStore(() => sessions.destroy(sessionId));
      return { status: 200, html: messagePage("Signed out", "You are signed out."), cookies: [cookie(sessionCookie, "", { secure, maxAge: 0 })] };
    }

    if (path === "/oauth/connections/disconnect") {
      if (session.role !== "OWNER") return { status: 403, html: messagePage("Owner only", "Only the account owner can disconnect apps.") };
      await connections.disconnect(session.companyId, form.get("app_id") ?? "");
      return { status: 303, location: "/oauth/connections" };
    }

    if (accessRequestPaths.includes(path)) {
      // The module checks the owner again (role and company) and the request's state under its row lock.
      if (session.role !== "OWNER") return { status: 403, html: messagePage("Owner only", "Only the account owner can decide on access requests.") };
      const id = Number(/^[1-9]\d{0,15}$/.test(form.get("access_request_id") ?? "") ? form.get("access_request_id") : 0);
      const owned = id > 0 ? await accessRequests.get(id).catch(() => undefined) : undefined;
      // Another merchant's request is as unknown as a missing one.
      if (!owned || owned.company_id !== session.companyId) return error("developer.access_request_not_found", locale);
      try {
        if (path === "/oauth/access-requests/withdraw") {
          await accessRequests.withdraw(id, session.userId);
        } else if (form.get("decision") === "decline") {
          await accessRequests.decline(id, session.userId);
        } else if (form.get("decision") === "approve") {
          const stores = form.getAll("store_ids").map((value) => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : -1));
          if (stores.length === 0) return { status: 400, html: messagePage("Choose stores", "Choose at least one store to approve, or decline the request.") };
          await accessRequests.approve(id, session.userId, stores);
        } else {
          return { status: 400, html: messagePage("Bad request", "Choose Approve or Decline.") };
        }
      } catch (cause) {
        const { code, params } = readServiceError(cause);
        if (code === "server.internal") throw cause;
        return error(code, locale, params);
      }
      return { status: 303, location: "/oauth/access-requests" };
    }

    // /oauth/authorize/decision: the request is checked again from scratch; the form carries no authority.
    const query = new URLSearchParams();
    for (const [name, value] of form) if (name !== "csrf" && name !== "decision") query.append(name, value);
    const checked = await authorization.check(query);
    if (!checked.ok) return error(checked.code, locale, checked.fields ? { fields: checked.fields } : {});
    const eligible = await authorization.eligibility(checked.request, session.companyId);
    if (!eligible.ok) return error(eligible.code, locale);
    const decision = form.get("decision");
    if (decision === "deny") return { status: 302, location: authorization.deny(checked.request) };
    if (decision !== "allow") return { status: 400, html: messagePage("Bad request", "Choose Allow or Deny.") };
    if (session.role !== "OWNER") return { status: 403, html: messagePage("Owner only", "Only the account owner can connect apps.") };
    return { status: 302, location: await authorization.approve(checked.request, eligible.merchant, session.userId) };
  }

  const server = http.createServer((request, response) => {
    let url: URL;
    try {
      url = new URL(request.url ?? "/", "http://consent.invalid");
    } catch (error) {
      endAfterFailure(response, logger, error, "(unparsable)");
      return;
    }
    route(request, url)
      .catch((cause: unknown): Reply => {
        if (cause instanceof SessionStoreUnavailable) {
          logger.warn("consent site: session store unavailable", { path: url.pathname, error: (cause.cause as Error | undefined)?.message });
          const retryAfter = String(storeRetryAfterSeconds);
          return { status: 503, html: errorPage("server.unavailable", negotiateLocale(request.headers["accept-language"])), headers: { "Retry-After": retryAfter } };
        }
        // A database that is down is no internal error: the page says so in the visitor's language, 503 with
        // Retry-After (RFC 9110 section 10.2.3), and the visitor reloads once it is back.
        const read = readServiceError(cause);
        if (read.code === "server.database_unavailable") {
          logger.warn("consent site: database unavailable", { path: url.pathname, error: cause });
          return error(read.code, negotiateLocale(request.headers["accept-language"]), read.params);
        }
        logger.error("consent site failure", { path: url.pathname, error: cause });
        return { status: 500, html: layout("Something went wrong", `<p>${messageFor("server.internal", {}, "en")}</p>`) };
      })
      .then((reply) => {
        const headers: Record<string, string | string[]> = { ...siteHeaders, ...reply.headers };
        if (reply.cookies && reply.cookies.length > 0) headers["Set-Cookie"] = reply.cookies;
        if (reply.location) headers["Location"] = reply.location;
        if (reply.html !== undefined) headers["Content-Type"] = url.pathname === "/healthz" || url.pathname === "/readyz" ? "text/plain; charset=utf-8" : "text/html; charset=utf-8";
        response.writeHead(reply.status, headers);
        response.end(reply.html ?? "");
        logger.info("consent request", { method: request.method, path: url.pathname, status: reply.status });
      })
      .catch((error: unknown) => endAfterFailure(response, logger, error, url.pathname));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const sockets = trackSockets(server);
  return {
    listen: (port, host) => listen(server, port, host),
    close: (graceMs) => closeGracefully(server, sockets, graceMs, () => server.closeIdleConnections()),
  };
}
