// The developer console's web pages (CONSOLE_URL, its own listener CONSOLE_PORT), built on the ConsoleService the
// /v1/console routes expose and called in process the same way (./console-api.ts). Server-rendered pages whose forms
// work without script; the session in an HttpOnly SameSite cookie holding only a random id; a CSRF token on every
// POST; a CSP without inline script and frame-ancestors 'none'; every string from the message catalogue.
// Every page is a line of one of the two route tables of ./console-routes.ts: the anonymous pages (sign-up, sign-in,
// the mailed links, sign-out), which answer only their own methods, and the signed-in pages (dashboard, program,
// organizations, apps and their sections, the request log, webhooks, sandbox merchants: ./workspace-pages.ts,
// ./app-pages.ts, ./request-log-pages.ts, ./webhook-pages.ts, ./sandbox-orders.ts, ./first-call.ts). A request
// goes through the steps of `answer` (language, session, the form's token), then its route; the listener around
// them, the assets (GET /assets/*) and the probes are the web kit's (src/web/site-server.ts).
import type http from "node:http";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { Config } from "../config/config.js";
import { addressRanges } from "../config/ip-addresses.js";
import { messageFor, type Locale } from "../errors/index.js";
import { clientAddress } from "../runtime/client-address.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { cookie, cookieName, parseCookies } from "../web/cookies.js";
import { csrfTokenPattern, sameSecret } from "../web/csrf.js";
import { html, type SafeHtml } from "../web/html.js";
import { chooseLocale, translator, type MessageKey } from "../web/i18n.js";
import { page, pageHeaders } from "../web/layout.js";
import { readPostedForm } from "../web/posted-form.js";
import { onStore } from "../web/session-store.js";
import { createSiteServer, type SiteServer } from "../web/site-server.js";
import {
  invitationOfReturn,
  invitationTokenPattern,
  returnOf,
  safeReturn,
  signInPage,
  signUp,
} from "./account-pages.js";
import { createConsoleApi, type CallerOf } from "./console-api.js";
import { dispatch, languageSwitchPath, type SiteTools } from "./console-routes.js";
import { createFirstCallLimits, type FirstCallRoute } from "./first-call.js";
import { createWebSessions, type WebSession } from "./web-sessions.js";
import type { SandboxOrderDesk } from "./sandbox-order-desk.js";
import type { MenuTools } from "./sandbox-menu.js";
import type { PageOptions, Reply, Visit } from "./visit.js";
import { errorSummary } from "./error-summary.js";

export interface ConsoleSiteOptions {
  config: Config;
  logger: Logger;
  clock: Clock;
  ids: IdSource;
  kv: KeyValueStore;
  console: ServiceImpl<typeof ConsoleService>;
  /** The sandbox merchants' online orders in their regions (the sandbox merchant page); absent: that page answers 404. */
  sandboxOrders?: SandboxOrderDesk;
  /** The sandbox merchants' menus and the events that went out (the menu page); absent: that page answers 404. */
  sandboxMenu?: MenuTools;
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

export type ConsoleSite = SiteServer;

export { languageSwitchPath };

/** Renew the console access token this long before it expires (the spec's guidance for partners, applied here). */
const renewBeforeMs = 60_000;

/** The API no longer knows the session (signed out elsewhere, password reset): the site's session ends too. */
class SessionEnded extends Error {}

export function createConsoleSite(options: ConsoleSiteOptions): ConsoleSite {
  const { config, clock, ids, kv } = options;
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
  const sessionTtl = config.lifetimes.consoleRefresh;
  const tools: SiteTools = {
    signIn,
    signUp: async (visit) => rememberInvitation(visit, await signUp(visit)),
    signOut,
    clock,
    baseUrl: config.urls.base,
    firstCallLimits: createFirstCallLimits({ kv, clock, logger: options.logger }),
    firstCall: options.firstCall,
    sandboxOrders: options.sandboxOrders,
    sandboxMenu: options.sandboxMenu,
  };

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

  /** The form's token: the session's, else the double-submit cookie's (a new one set when there is none). */
  function formToken(session: WebSession | undefined, cookies: Map<string, string>, setCookies: string[]): string {
    if (session?.csrf) return session.csrf;
    const existing = cookies.get(csrfCookie);
    if (existing && csrfTokenPattern.test(existing)) return existing;
    const csrf = ids.randomToken(32);
    setCookies.push(cookie(csrfCookie, csrf, { secure, maxAge: 24 * 3600 }));
    return csrf;
  }

  /**
   * The steps every request starts with: its language, its session (renewed when due), the token its forms carry,
   * and the cookies those set, which go with whatever it answers.
   */
  async function begin(request: http.IncomingMessage, url: URL) {
    const method = request.method ?? "GET";
    const path = url.pathname;
    const cookies = parseCookies(request.headers.cookie);
    const choice = chooseLocale({
      query: url.searchParams,
      cookies,
      acceptLanguage: request.headers["accept-language"],
      secure,
    });
    const locale = choice.locale;
    const address = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
    const caller = { locale, clientAddress: address, path };
    const sessionId = cookies.get(sessionCookie);
    const session = sessionId ? await liveSession(sessionId, caller) : undefined;
    const setCookies: string[] = choice.setCookie ? [choice.setCookie] : [];
    // Before sign-in, forms carry a double-submit token from their own cookie.
    const csrf = formToken(session, cookies, setCookies);
    // A session cookie whose session is over is cleared.
    if (sessionId && !session) setCookies.push(cookie(sessionCookie, "", { secure, maxAge: 0 }));
    const page = shell(locale, path, url.searchParams, Boolean(session), csrf);
    return {
      method,
      path,
      query: url.searchParams,
      cookies,
      locale,
      caller,
      sessionId,
      session,
      csrf,
      setCookies,
      page,
    };
  }
  type Start = Awaited<ReturnType<typeof begin>>;

  /** A POST's form: sent from our own pages, readable, and carrying the page's token; else the page refusing it. */
  async function postedForm(request: http.IncomingMessage, start: Start): Promise<URLSearchParams | Reply> {
    const t = translator(start.locale);
    const refuse = (status: number, titleKey: MessageKey, textKey: MessageKey) =>
      start.page(t(titleKey), t(textKey), { status });
    const read = await readPostedForm(request, ownOrigin);
    if (!read.ok) return refuse(read.status, read.titleKey, read.textKey);
    if (!sameSecret(read.form.get("csrf") ?? "", start.csrf))
      return refuse(403, "common.refusedTitle", "common.formExpired");
    return read.form;
  }

  /** What the pages see of a request (./visit.ts), the ConsoleService called on the developer's behalf. */
  function visitOf(start: Start, form: URLSearchParams): Visit {
    const { session, cookies } = start;
    return {
      method: start.method,
      path: start.path,
      query: start.query,
      locale: start.locale,
      t: translator(start.locale),
      signedIn: Boolean(session),
      clientAddress: start.caller.clientAddress,
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
      csrf: start.csrf,
      form,
      api: async (name, fields = {}) => {
        const result = await api.call(name, fields, { ...start.caller, accessToken: session?.accessToken });
        if (session && !result.ok && result.error.code === "developer.unauthenticated") throw new SessionEnded();
        return result;
      },
      page: start.page,
    };
  }

  /** The route's answer; when the API no longer knows the session, the site's ends too, and sign-in follows. */
  async function routed(start: Start, visit: Visit): Promise<Reply> {
    try {
      return await dispatch({ visit, sessionId: start.sessionId, signedIn: Boolean(start.session), site: tools });
    } catch (cause) {
      if (!(cause instanceof SessionEnded)) throw cause;
      await onStore(() => sessions.destroy(start.sessionId));
      return { status: 303, location: "/sign-in", cookies: [cookie(sessionCookie, "", { secure, maxAge: 0 })] };
    }
  }

  /** One request: its first steps, a POST's form, its route; the cookies its first steps set go with the answer. */
  async function answer(request: http.IncomingMessage, url: URL): Promise<Reply> {
    const start = await begin(request, url);
    const form = start.method === "POST" ? await postedForm(request, start) : new URLSearchParams();
    const reply = form instanceof URLSearchParams ? await routed(start, visitOf(start, form)) : form;
    return { ...reply, cookies: [...start.setCookies, ...(reply.cookies ?? [])] };
  }

  /** POST /sign-out: the API's session ends (when there is one), then the site's. */
  async function signOut(visit: Visit, signedIn: boolean, sessionId: string | undefined): Promise<Reply> {
    if (signedIn) await visit.api("signOut");
    await onStore(() => sessions.destroy(sessionId));
    return { status: 303, location: "/sign-in", cookies: [cookie(sessionCookie, "", { secure, maxAge: 0 })] };
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

  /** The page of a failed request (the session store or a database away, or a failure of ours), in its language. */
  const failurePage = (
    request: http.IncomingMessage,
    url: URL,
    code: "server.unavailable" | "server.database_unavailable" | "server.internal",
    params: Record<string, string>,
  ): string => {
    const locale = chooseLocale({
      query: url.searchParams,
      cookies: parseCookies(request.headers.cookie),
      acceptLanguage: request.headers["accept-language"],
      secure,
    }).locale;
    const t = translator(locale);
    const title = code !== "server.internal" ? t("common.unavailableTitle") : t("common.internalTitle");
    const body = html`<div class="alert error" role="alert"><p>${messageFor(code, params, locale)}</p><p>${t("common.errorCode", { code })}</p></div>`;
    return page({
      locale,
      title,
      section: t("console.section"),
      path: url.pathname,
      query: url.searchParams,
      body,
    });
  };

  return createSiteServer({
    ids,
    logger: options.logger,
    name: "console site",
    requestLine: "console site request",
    base: "http://console.invalid",
    headers: pageHeaders({ secure }),
    readiness: options.readiness,
    visit: (request, url) => ({
      answer: () => answer(request, url),
      failurePage: (code, params) => failurePage(request, url, code, params),
    }),
  });
}
