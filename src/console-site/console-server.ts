// The developer console's web pages (CONSOLE_URL, its own listener CONSOLE_PORT), built on the ConsoleService the
// /v1/console routes expose and called in process the same way (./console-api.ts). Server-rendered pages whose forms
// work without script; the session in an HttpOnly SameSite cookie holding only a random id; a CSRF token on every
// POST; a CSP without inline script and frame-ancestors 'none'; every string from the message catalogue.
//   GET/POST /sign-up, /sign-in, /forgot-password, /resend-verification, /reset-password; GET /verify-email (the
//   mailed links land there); POST /sign-out; GET / (dashboard), POST /organizations; GET /program, POST
//   /program/apply, /program/sign; GET /organizations/{id}, POST .../apps, .../sandbox-merchants,
//   .../sandbox-merchants/{company}/(de)activate, .../members/{account}/role, .../members/{account}/remove,
//   .../invitations/{invitation}/resend, .../invitations/{invitation}/revoke; GET
//   /organizations/{id}/sandbox-merchants/{company} (the merchant's recent online orders), POST
//   .../sandbox-merchants/{company}/orders/{order}/move (./sandbox-orders.ts); GET
//   /apps/{id} and its sections /apps/{id}/credentials, .../review, .../settings, .../api-keys, .../access-requests,
//   .../redirect-uris (./app-pages.ts; the last three also take their form's POST), POST .../rename, .../submit,
//   .../rotate, .../allowed-ips, .../api-keys/revoke, .../api-keys/allowed-ips, .../production-credentials; GET/POST
//   /apps/{id}/archive (the confirmation step, then the archive); GET/POST /apps/{id}/first-call; GET /assets/*
//   (the stylesheet and the copy script). GET /apps/{id}/requests (the request log), /apps/{id}/requests/{call}
//   (one call), /apps/{id}/usage (the usage chart): ./request-log-pages.ts. GET/POST /apps/{id}/webhooks (the
//   endpoints of one environment, their deliveries; POST adds one), POST .../webhooks/{endpoint}/test, .../rotate,
//   .../delete, .../webhooks/{endpoint}/deliveries/{delivery}/resend: ./webhook-pages.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { Config } from "../config/config.js";
import { addressRanges } from "../config/ip-addresses.js";
import { entryOf, messageFor, readServiceError, type Locale } from "../errors/index.js";
import { clientAddress } from "../runtime/client-address.js";
import type { Clock } from "../runtime/clock.js";
import { servedGracefully } from "../runtime/http-shutdown.js";
import type { IdSource } from "../runtime/ids.js";
import { endAfterFailure } from "../runtime/last-resort.js";
import type { Logger } from "../runtime/logger.js";
import { databaseRetryAfterSeconds } from "../storage/unavailable.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { assetReply } from "../web/assets.js";
import { probeReply, siteContentType, siteUrl, tracedSiteRequests } from "../web/site-request.js";
import { ClientGone, clientClosedStatus } from "../runtime/client-gone.js";
import { cookie, cookieName, parseCookies } from "../web/cookies.js";
import { csrfTokenPattern, fromAnotherSite, sameSecret } from "../web/csrf.js";
import { readForm } from "../web/forms.js";
import { html, type SafeHtml } from "../web/html.js";
import { chooseLocale, translator } from "../web/i18n.js";
import { page, pageHeaders } from "../web/layout.js";
import {
  forgotPasswordPage,
  invitationOfReturn,
  invitationTokenPattern,
  requestReset,
  returnOf,
  resetPassword,
  resetPasswordPage,
  safeReturn,
  signInPage,
  signUp,
  signUpPage,
  verifyEmail,
} from "./account-pages.js";
import { createConsoleApi, type CallerOf } from "./console-api.js";
import { createFirstCallLimits, firstCallPage, runFirstCall, type FirstCallRoute } from "./first-call.js";
import { requestEntryPage, requestLogPage, usagePage } from "./request-log-pages.js";
import { acceptInvitation, invitationPage } from "./invitation-pages.js";
import { createWebhookEndpoint, resendWebhookDelivery, webhookEndpointAction, webhooksPage } from "./webhook-pages.js";
import { createWebSessions, type WebSession } from "./web-sessions.js";
import { moveSandboxOrder, sandboxMerchantPage, type SandboxOrderDesk } from "./sandbox-orders.js";
import type { PageOptions, Reply, Visit } from "./visit.js";
import { errorSummary } from "./error-summary.js";
import {
  appPage,
  archiveApp,
  archivePage,
  createAccessRequest,
  createApiKey,
  renameApp,
  revealProduction,
  revokeApiKey,
  rotateSecret,
  setClientAllowlist,
  setKeyAllowlist,
  setRedirectUris,
  submitApp,
} from "./app-pages.js";
import {
  applyToProgram,
  createApp,
  createOrganization,
  dashboard,
  inviteMember,
  organizationPage,
  programPage,
  provisionMerchant,
  removeMember,
  resendInvitation,
  revokeInvitation,
  setMerchantActive,
  signAgreement,
  updateMember,
} from "./workspace-pages.js";

export interface ConsoleSiteOptions {
  config: Config;
  logger: Logger;
  clock: Clock;
  ids: IdSource;
  kv: KeyValueStore;
  console: ServiceImpl<typeof ConsoleService>;
  /** The sandbox merchants' online orders in their regions (the sandbox merchant page); absent: that page answers 404. */
  sandboxOrders?: SandboxOrderDesk;
  readiness?: () => Promise<{ ready: boolean; down: string[] }>;
  /**
   * Development mode (config.internal.localStaff): no staff exist and `npm run staff` acts as them, so the program
   * page says which command approves the developer's application. Off unless given.
   */
  development?: boolean;
  /**
   * Where the first call reaches the API: the front of this process (its loopback URL, once it listens), vouching
   * for the developer's address. Absent: BASE_URL, from the console server's own address.
   */
  firstCall?: FirstCallRoute;
}

export interface ConsoleSite {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
}

/** Renew the console access token this long before it expires (the spec's guidance for partners, applied here). */
const renewBeforeMs = 60_000;
/** Retry-After of the 503 page while the session store (Redis) is away. */
const storeRetryAfterSeconds = 5;

/** A failure of the session store: 503, never a sign-in without a session that lasts. */
class SessionStoreUnavailable extends Error {}
async function onStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    throw new SessionStoreUnavailable("the console site's session store is unavailable", { cause });
  }
}

/** The API no longer knows the session (signed out elsewhere, password reset): the site's session ends too. */
class SessionEnded extends Error {}

const id = "[1-9]\\d{0,15}";
const appId = "[A-Za-z0-9_-]{1,64}";
/** The methods a signed-in route answers (the Allow header of a 405, RFC 9110 §15.5.6). */
function allowOf(name: string): string {
  if (
    [
      "app/first-call",
      "app/archive",
      "app/webhooks",
      "app/api-keys",
      "app/access-requests",
      "app/redirect-uris",
    ].includes(name)
  )
    return "GET, HEAD, POST";
  return [
    "dashboard",
    "program",
    "organization",
    "organization/sandbox-merchant",
    "app",
    "app/credentials",
    "app/review",
    "app/settings",
    "app/requests",
    "app/request",
    "app/usage",
  ].includes(name)
    ? "GET, HEAD"
    : "POST";
}

/** The anonymous pages that answer GET (each also takes its form's POST at the same path). */
const anonymousPages = new Set([
  "/sign-in",
  "/sign-up",
  "/verify-email",
  "/forgot-password",
  "/resend-verification",
  "/reset-password",
  "/invitations/accept",
]);

function answersGet(path: string): boolean {
  if (anonymousPages.has(path)) return true;
  const route = matchSignedIn(path);
  return route !== undefined && allowOf(route[0]).startsWith("GET");
}

/**
 * Where the language switch of a page at `path` leads: the page itself when it answers GET, else the nearest page
 * above it that does (a form's result, rendered by a POST to `/apps/{id}/rotate`, switches to `/apps/{id}`): a link
 * is followed with GET, and a POST-only path answers it 405. Paths that are none of ours stay as they are (a 404 in
 * another language).
 */
export function languageSwitchPath(path: string): string {
  if (answersGet(path)) return path;
  if (path !== "/sign-out" && !matchSignedIn(path)) return path;
  for (let end = path.lastIndexOf("/"); end > 0; end = path.lastIndexOf("/", end - 1)) {
    if (answersGet(path.slice(0, end))) return path.slice(0, end);
  }
  return "/";
}

export function createConsoleSite(options: ConsoleSiteOptions): ConsoleSite {
  const { config, logger, clock, ids, kv } = options;
  const site = new URL(config.urls.console);
  const secure = site.protocol === "https:";
  const ownOrigin = site.origin;
  const sessionCookie = cookieName("lp_console_session", secure);
  const csrfCookie = cookieName("lp_console_csrf", secure);
  // The invitation an invited visitor signed up from, kept across the verification mail for sign-in to lead back to.
  const invitationCookie = cookieName("lp_console_invitation", secure);
  const api = createConsoleApi(options.console, ids);
  const sessions = createWebSessions({ kv, ids });
  const trustedProxies = addressRanges(config.trustProxy);
  const firstCallLimits = createFirstCallLimits({ kv, clock, logger });
  const headers = pageHeaders({ secure });
  const sessionTtl = config.lifetimes.consoleRefresh;

  function shell(locale: Locale, path: string, query: URLSearchParams, signedIn: boolean, csrf: string) {
    const t = translator(locale);
    return (title: string, body: SafeHtml | string, opts: PageOptions = {}): Reply => {
      const nav = signedIn
        ? [
            { href: "/", label: t("console.navDashboard"), current: path === "/" },
            { href: "/program", label: t("console.navProgram"), current: path === "/program" },
          ]
        : [];
      const switchPath = opts.switchPath ?? languageSwitchPath(path);
      const headerEnd = signedIn
        ? html`<form method="post" action="/sign-out" class="inline-form"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">${t("common.signOut")}</button></form>`
        : undefined;
      return {
        status: opts.status ?? 200,
        html: page({
          locale,
          title,
          documentTitle: opts.documentTitle,
          section: t("console.section"),
          homePath: "/",
          path: switchPath,
          // A form's fields are not in the query; a page the switch moves to keeps no query of the one it left.
          query: switchPath === path ? (opts.query ?? query) : undefined,
          nav,
          headerEnd,
          narrow: opts.narrow,
          copyScript: opts.copyScript,
          errorSummary: opts.problems && opts.problems.length > 0 ? errorSummary(t, opts.problems) : undefined,
          body: typeof body === "string" ? html`<p>${body}</p>` : body,
        }),
      };
    };
  }

  /** The session's tokens, renewed by RefreshSession when the access token is about to expire; undefined when over. */
  async function liveSession(
    sessionId: string | undefined,
    caller: Omit<CallerOf, "accessToken">,
  ): Promise<WebSession | undefined> {
    const session = await onStore(() => sessions.read(sessionId));
    if (!session) return undefined;
    if (session.accessExpiresAt - renewBeforeMs > clock.now()) return session;
    const renewed = await api.call("refreshSession", { refreshToken: session.refreshToken }, caller);
    if (!renewed.ok) {
      await onStore(() => sessions.destroy(sessionId));
      return undefined;
    }
    const tokens = renewed.value.session!;
    const next: WebSession = {
      ...session,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      accessExpiresAt: clock.now() + tokens.expiresIn * 1000,
    };
    await onStore(() => sessions.update(sessionId!, next, tokens.refreshTokenExpiresIn));
    return next;
  }

  async function route(request: http.IncomingMessage, url: URL): Promise<Reply> {
    const method = request.method ?? "GET";
    const path = url.pathname;
    const probe = await probeReply(method, path, options.readiness, databaseRetryAfterSeconds);
    if (probe) return probe;
    const cookies = parseCookies(request.headers.cookie);
    const choice = chooseLocale({
      query: url.searchParams,
      cookies,
      acceptLanguage: request.headers["accept-language"],
      secure,
    });
    const locale = choice.locale;
    const t = translator(locale);
    const address = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
    const caller = { locale, clientAddress: address, path };
    const sessionId = cookies.get(sessionCookie);
    const session = sessionId ? await liveSession(sessionId, caller) : undefined;
    const setCookies: string[] = choice.setCookie ? [choice.setCookie] : [];

    // Before sign-in, forms carry a double-submit token from their own cookie.
    let csrf = session?.csrf;
    if (!csrf) {
      const existing = cookies.get(csrfCookie);
      if (existing && csrfTokenPattern.test(existing)) csrf = existing;
      else {
        csrf = ids.randomToken(32);
        setCookies.push(cookie(csrfCookie, csrf, { secure, maxAge: 24 * 3600 }));
      }
    }
    // A session cookie whose session is over is cleared.
    if (sessionId && !session) setCookies.push(cookie(sessionCookie, "", { secure, maxAge: 0 }));

    const withCookies = (reply: Reply): Reply => ({ ...reply, cookies: [...setCookies, ...(reply.cookies ?? [])] });
    const message = (title: string, text: string, status: number) =>
      withCookies(shell(locale, path, url.searchParams, Boolean(session), csrf!)(title, text, { status }));

    const isPost = method === "POST";
    let form = new URLSearchParams();
    if (isPost) {
      if (fromAnotherSite(request.headers.origin, request.headers["sec-fetch-site"], ownOrigin))
        return message(t("common.refusedTitle"), t("common.otherSite"), 403);
      const read = await readForm(request);
      if (!read) return message(t("common.badRequestTitle"), t("common.formUnreadable"), 400);
      form = read;
      if (!sameSecret(form.get("csrf") ?? "", csrf))
        return message(t("common.refusedTitle"), t("common.formExpired"), 403);
    }

    const visit: Visit = {
      method,
      path,
      query: url.searchParams,
      locale,
      t,
      signedIn: Boolean(session),
      clientAddress: address,
      now: () => clock.now(),
      development: options.development === true,
      pendingInvitation: invitationTokenPattern.test(cookies.get(invitationCookie) ?? "")
        ? cookies.get(invitationCookie)
        : undefined,
      rules: {
        signInAttempts: config.limits.consoleSignIn,
        lockoutMinutes: Math.ceil(config.limits.consoleLockoutSeconds / 60),
      },
      mailInLog: config.mail.transport === "log",
      csrf,
      form,
      api: async (name, fields = {}) => {
        const result = await api.call(name, fields, { ...caller, accessToken: session?.accessToken });
        if (session && !result.ok && result.error.code === "developer.unauthenticated") throw new SessionEnded();
        return result;
      },
      page: shell(locale, path, url.searchParams, Boolean(session), csrf),
    };
    try {
      return withCookies(await dispatch(visit, method, path, sessionId, session));
    } catch (cause) {
      if (!(cause instanceof SessionEnded)) throw cause;
      await onStore(() => sessions.destroy(sessionId));
      return {
        status: 303,
        location: "/sign-in",
        cookies: [...setCookies, cookie(sessionCookie, "", { secure, maxAge: 0 })],
      };
    }
  }

  async function dispatch(
    visit: Visit,
    method: string,
    path: string,
    sessionId: string | undefined,
    session: WebSession | undefined,
  ): Promise<Reply> {
    const { t } = visit;
    const get = method === "GET" || method === "HEAD";
    const post = method === "POST";

    // Anonymous pages (a signed-in visitor may still open the mailed links).
    if (path === "/sign-in" && get) return session ? { status: 303, location: returnOf(visit) } : signInPage(visit);
    if (path === "/sign-in" && post) return signIn(visit, sessionId);
    if (path === "/sign-up" && get) return signUpPage(visit);
    if (path === "/sign-up" && post) return rememberInvitation(visit, await signUp(visit));
    if (path === "/verify-email" && get) return verifyEmail(visit);
    if (path === "/forgot-password" && get) return forgotPasswordPage(visit);
    if (path === "/forgot-password" && post) return requestReset(visit, false);
    if (path === "/resend-verification" && get) return forgotPasswordPage(visit, { resend: true });
    if (path === "/resend-verification" && post) return requestReset(visit, true);
    if (path === "/reset-password" && get) return resetPasswordPage(visit);
    if (path === "/reset-password" && post) return resetPassword(visit);
    if (path === "/invitations/accept" && get) return invitationPage(visit);
    if (path === "/invitations/accept" && post) return session ? acceptInvitation(visit) : signInPage(visit, {}, 401);
    if (path === "/sign-out" && post) {
      if (session) await visit.api("signOut");
      await onStore(() => sessions.destroy(sessionId));
      return { status: 303, location: "/sign-in", cookies: [cookie(sessionCookie, "", { secure, maxAge: 0 })] };
    }

    const known = matchSignedIn(path);
    if (!known) return visit.page(t("common.notFoundTitle"), t("common.notFoundText"), { status: 404 });
    if (!session) return get ? { status: 303, location: "/sign-in" } : signInPage(visit, {}, 401);
    const [name, params] = known;
    const org = Number(params[0] ?? 0);
    switch (`${method} ${name}`) {
      case "GET dashboard":
      case "HEAD dashboard":
        return dashboard(visit);
      case "POST organizations":
        return createOrganization(visit);
      case "GET program":
      case "HEAD program":
        return programPage(visit);
      case "POST program/apply":
        return applyToProgram(visit);
      case "POST program/sign":
        return signAgreement(visit);
      case "GET organization":
      case "HEAD organization":
        return organizationPage(visit, org);
      case "POST organization/apps":
        return createApp(visit, org);
      case "POST organization/invitations":
        return inviteMember(visit, org);
      case "POST organization/invitation/resend":
        return resendInvitation(visit, org, Number(params[1]));
      case "POST organization/invitation/revoke":
        return revokeInvitation(visit, org, Number(params[1]));
      case "POST organization/member/role":
        return updateMember(visit, org, Number(params[1]));
      case "POST organization/member/remove":
        return removeMember(visit, org, Number(params[1]));
      case "POST app/allowed-ips":
        return setClientAllowlist(visit, params[0]!);
      case "POST app/api-keys/allowed-ips":
        return setKeyAllowlist(visit, params[0]!);
      case "POST app/access-requests":
        return createAccessRequest(visit, params[0]!);
      case "GET app/archive":
      case "HEAD app/archive":
        return archivePage(visit, params[0]!);
      case "POST app/archive":
        return archiveApp(visit, params[0]!);
      case "POST app/api-keys":
        return createApiKey(visit, params[0]!);
      case "POST app/api-keys/revoke":
        return revokeApiKey(visit, params[0]!);
      case "POST app/production-credentials":
        return revealProduction(visit, params[0]!);
      case "POST organization/sandbox-merchants":
        return provisionMerchant(visit, org);
      case "POST organization/sandbox-merchant/deactivate":
        return setMerchantActive(visit, org, Number(params[1]), false);
      case "POST organization/sandbox-merchant/activate":
        return setMerchantActive(visit, org, Number(params[1]), true);
      case "GET organization/sandbox-merchant":
      case "HEAD organization/sandbox-merchant":
        return options.sandboxOrders
          ? sandboxMerchantPage(visit, options.sandboxOrders, org, Number(params[1]))
          : visit.page(t("common.notFoundTitle"), t("common.notFoundText"), { status: 404 });
      case "POST organization/sandbox-merchant/order-move":
        return options.sandboxOrders
          ? moveSandboxOrder(visit, options.sandboxOrders, clock, org, Number(params[1]), Number(params[2]))
          : visit.page(t("common.notFoundTitle"), t("common.notFoundText"), { status: 404 });
      case "GET app":
      case "HEAD app":
        return appPage(visit, params[0]!, "overview");
      case "GET app/credentials":
      case "HEAD app/credentials":
        return appPage(visit, params[0]!, "credentials");
      case "GET app/api-keys":
      case "HEAD app/api-keys":
        return appPage(visit, params[0]!, "api-keys");
      case "GET app/access-requests":
      case "HEAD app/access-requests":
        return appPage(visit, params[0]!, "access-requests");
      case "GET app/redirect-uris":
      case "HEAD app/redirect-uris":
        return appPage(visit, params[0]!, "redirect-uris");
      case "GET app/review":
      case "HEAD app/review":
        return appPage(visit, params[0]!, "review");
      case "GET app/settings":
      case "HEAD app/settings":
        return appPage(visit, params[0]!, "settings");
      case "POST app/rename":
        return renameApp(visit, params[0]!);
      case "POST app/submit":
        return submitApp(visit, params[0]!);
      case "POST app/redirect-uris":
        return setRedirectUris(visit, params[0]!);
      case "POST app/rotate":
        return rotateSecret(visit, params[0]!, () => clock.now());
      case "GET app/requests":
      case "HEAD app/requests":
        return requestLogPage(visit, params[0]!);
      case "GET app/request":
      case "HEAD app/request":
        return requestEntryPage(visit, params[0]!, params[1]!);
      case "GET app/usage":
      case "HEAD app/usage":
        return usagePage(visit, params[0]!);
      case "GET app/webhooks":
      case "HEAD app/webhooks":
        return webhooksPage(visit, params[0]!);
      case "POST app/webhooks":
        return createWebhookEndpoint(visit, params[0]!);
      case "POST app/webhook/test":
        return webhookEndpointAction(visit, params[0]!, params[1]!, "test");
      case "POST app/webhook/enable":
        return webhookEndpointAction(visit, params[0]!, params[1]!, "enable");
      case "POST app/webhook/rotate":
        return webhookEndpointAction(visit, params[0]!, params[1]!, "rotate");
      case "POST app/webhook/delete":
        return webhookEndpointAction(visit, params[0]!, params[1]!, "delete");
      case "POST app/webhook/resend":
        return resendWebhookDelivery(visit, params[0]!, params[1]!, params[2]!);
      case "GET app/first-call":
      case "HEAD app/first-call":
        return firstCallPage(visit, params[0]!, config.urls.base);
      case "POST app/first-call":
        return runFirstCall(visit, params[0]!, config.urls.base, firstCallLimits, options.firstCall);
      default:
        return {
          ...visit.page(t("common.methodNotAllowedTitle"), t("common.methodNotAllowedText"), { status: 405 }),
          headers: { Allow: allowOf(name) },
        };
    }
  }

  /**
   * An invited visitor's sign-up (its form names the invitation): the invitation is kept in a cookie for as long as
   * the verification link lives, so the sign-in after verifying leads to it, even from a page that lost the query.
   */
  function rememberInvitation(visit: Visit, reply: Reply): Reply {
    const token = invitationOfReturn(safeReturn(visit.form.get("return_to")));
    if (reply.status !== 200 || !token) return reply;
    const maxAge = config.lifetimes.verifyLink;
    return { ...reply, cookies: [...(reply.cookies ?? []), cookie(invitationCookie, token, { secure, maxAge })] };
  }

  async function signIn(visit: Visit, oldSessionId: string | undefined): Promise<Reply> {
    const email = visit.form.get("email") ?? "";
    const result = await visit.api("signIn", { email, password: visit.form.get("password") ?? "" });
    if (!result.ok) return signInPage(visit, { error: result.error, email }, result.error.status);
    const tokens = result.value.session!;
    const created = await onStore(() =>
      sessions.create(
        {
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          accessExpiresAt: clock.now() + tokens.expiresIn * 1000,
        },
        tokens.refreshTokenExpiresIn,
      ),
    );
    // A new id at sign-in (no fixation); the pre-sign-in CSRF cookie is no longer needed.
    await onStore(() => sessions.destroy(oldSessionId));
    // The invitation kept across sign-up has done its work once the sign-in leads to it.
    return {
      status: 303,
      location: returnOf(visit),
      cookies: [
        cookie(sessionCookie, created.id, { secure, maxAge: Math.min(tokens.refreshTokenExpiresIn, sessionTtl) }),
        cookie(csrfCookie, "", { secure, maxAge: 0 }),
        ...(visit.pendingInvitation ? [cookie(invitationCookie, "", { secure, maxAge: 0 })] : []),
      ],
    };
  }

  const server = http.createServer(
    tracedSiteRequests(ids, (request, response) => {
      const started = performance.now();
      let url: URL;
      try {
        url = siteUrl(request.url, "http://console.invalid");
      } catch (error) {
        endAfterFailure(response, logger, error, "(unparsable)");
        return;
      }
      const asset = url.pathname.startsWith("/assets/")
        ? assetReply(request.method ?? "GET", url.pathname, request.headers["if-none-match"])
        : undefined;
      if (asset) {
        response.writeHead(asset.status, asset.headers);
        response.end(asset.body);
        return;
      }
      const failed = (
        status: number,
        code: "server.unavailable" | "server.database_unavailable" | "server.internal",
        params: Record<string, string> = {},
      ): Reply => {
        const locale = chooseLocale({
          query: url.searchParams,
          cookies: parseCookies(request.headers.cookie),
          acceptLanguage: request.headers["accept-language"],
          secure,
        }).locale;
        const t = translator(locale);
        const title =
          status >= 500 && code !== "server.internal" ? t("common.unavailableTitle") : t("common.internalTitle");
        const body = html`<div class="alert error" role="alert"><p>${messageFor(code, params, locale)}</p><p>${t("common.errorCode", { code })}</p></div>`;
        return {
          status,
          html: page({
            locale,
            title,
            section: t("console.section"),
            path: url.pathname,
            query: url.searchParams,
            body,
          }),
        };
      };
      // Counted until it settles, so that shutdown waits for it even when its client has gone.
      const handling = route(request, url)
        .catch((cause: unknown): Reply => {
          // Its own doing, not an outage: logged at info and counted 499 below; nothing reaches the closed socket.
          if (cause instanceof ClientGone) return { status: clientClosedStatus };
          if (cause instanceof SessionStoreUnavailable) {
            logger.warn("console site: session store unavailable", {
              path: url.pathname,
              error: (cause.cause as Error | undefined)?.message,
            });
            return { ...failed(503, "server.unavailable"), headers: { "Retry-After": String(storeRetryAfterSeconds) } };
          }
          const read = readServiceError(cause);
          if (read.code === "server.database_unavailable") {
            logger.warn("console site: database unavailable", { path: url.pathname, error: cause });
            const params = Object.fromEntries(Object.entries(read.params).map(([k, v]) => [k, String(v)]));
            return {
              ...failed(entryOf(read.code).status, read.code, params),
              headers: { "Retry-After": String(databaseRetryAfterSeconds) },
            };
          }
          logger.error("console site failure", { path: url.pathname, error: cause });
          return failed(500, "server.internal");
        })
        .then((reply) => {
          const out: Record<string, string | string[]> = { ...headers, ...reply.headers };
          if (reply.cookies && reply.cookies.length > 0) out["Set-Cookie"] = reply.cookies;
          if (reply.location) out["Location"] = reply.location;
          if (reply.html !== undefined) out["Content-Type"] = siteContentType(url.pathname);
          response.writeHead(reply.status, out);
          response.end(request.method === "HEAD" ? "" : (reply.html ?? ""));
          logger.info("console site request", {
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

/** The signed-in pages: a route name and its path parameters, or undefined for a path that is none of ours. */
function matchSignedIn(path: string): [string, string[]] | undefined {
  const routes: Array<[string, RegExp]> = [
    ["dashboard", /^\/$/],
    ["organizations", /^\/organizations$/],
    ["program", /^\/program$/],
    ["program/apply", /^\/program\/apply$/],
    ["program/sign", /^\/program\/sign$/],
    ["organization", new RegExp(`^/organizations/(${id})$`)],
    ["organization/apps", new RegExp(`^/organizations/(${id})/apps$`)],
    ["organization/invitations", new RegExp(`^/organizations/(${id})/invitations$`)],
    ["organization/invitation/resend", new RegExp(`^/organizations/(${id})/invitations/(${id})/resend$`)],
    ["organization/invitation/revoke", new RegExp(`^/organizations/(${id})/invitations/(${id})/revoke$`)],
    ["organization/member/role", new RegExp(`^/organizations/(${id})/members/(${id})/role$`)],
    ["organization/member/remove", new RegExp(`^/organizations/(${id})/members/(${id})/remove$`)],
    ["app/allowed-ips", new RegExp(`^/apps/(${appId})/allowed-ips$`)],
    ["app/api-keys/allowed-ips", new RegExp(`^/apps/(${appId})/api-keys/allowed-ips$`)],
    ["app/access-requests", new RegExp(`^/apps/(${appId})/access-requests$`)],
    ["app/archive", new RegExp(`^/apps/(${appId})/archive$`)],
    ["app/api-keys", new RegExp(`^/apps/(${appId})/api-keys$`)],
    ["app/api-keys/revoke", new RegExp(`^/apps/(${appId})/api-keys/revoke$`)],
    ["app/production-credentials", new RegExp(`^/apps/(${appId})/production-credentials$`)],
    ["organization/sandbox-merchants", new RegExp(`^/organizations/(${id})/sandbox-merchants$`)],
    [
      "organization/sandbox-merchant/deactivate",
      new RegExp(`^/organizations/(${id})/sandbox-merchants/(${id})/deactivate$`),
    ],
    [
      "organization/sandbox-merchant/activate",
      new RegExp(`^/organizations/(${id})/sandbox-merchants/(${id})/activate$`),
    ],
    ["organization/sandbox-merchant", new RegExp(`^/organizations/(${id})/sandbox-merchants/(${id})$`)],
    [
      "organization/sandbox-merchant/order-move",
      new RegExp(`^/organizations/(${id})/sandbox-merchants/(${id})/orders/(${id})/move$`),
    ],
    ["app", new RegExp(`^/apps/(${appId})$`)],
    ["app/rename", new RegExp(`^/apps/(${appId})/rename$`)],
    ["app/submit", new RegExp(`^/apps/(${appId})/submit$`)],
    ["app/redirect-uris", new RegExp(`^/apps/(${appId})/redirect-uris$`)],
    ["app/rotate", new RegExp(`^/apps/(${appId})/rotate$`)],
    ["app/credentials", new RegExp(`^/apps/(${appId})/credentials$`)],
    ["app/review", new RegExp(`^/apps/(${appId})/review$`)],
    ["app/settings", new RegExp(`^/apps/(${appId})/settings$`)],
    ["app/first-call", new RegExp(`^/apps/(${appId})/first-call$`)],
    ["app/requests", new RegExp(`^/apps/(${appId})/requests$`)],
    ["app/request", new RegExp(`^/apps/(${appId})/requests/(${id})$`)],
    ["app/usage", new RegExp(`^/apps/(${appId})/usage$`)],
    ["app/webhooks", new RegExp(`^/apps/(${appId})/webhooks$`)],
    ["app/webhook/test", new RegExp(`^/apps/(${appId})/webhooks/(${appId})/test$`)],
    ["app/webhook/rotate", new RegExp(`^/apps/(${appId})/webhooks/(${appId})/rotate$`)],
    ["app/webhook/enable", new RegExp(`^/apps/(${appId})/webhooks/(${appId})/enable$`)],
    ["app/webhook/delete", new RegExp(`^/apps/(${appId})/webhooks/(${appId})/delete$`)],
    ["app/webhook/resend", new RegExp(`^/apps/(${appId})/webhooks/(${appId})/deliveries/(${appId})/resend$`)],
  ];
  for (const [name, pattern] of routes) {
    const match = pattern.exec(path);
    if (match) return [name, match.slice(1)];
  }
  return undefined;
}
