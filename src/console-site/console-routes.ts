// The console site's two route tables: the anonymous pages (sign-up, sign-in, the mailed links, sign-out), which
// answer only their own methods, and the signed-in pages (dashboard, program, organizations, apps and their
// sections, the request log, webhooks, sandbox merchants). `dispatch` picks a request's line; ./console-server.ts
// runs the steps before it (language, session, the form's token).
import type { Clock } from "../runtime/clock.js";
import { createRouter, route, type ParamsOf, type PathParams } from "../web/router.js";
import { probePaths } from "../runtime/probe-paths.js";
import { acceptInvitation, invitationPage } from "./invitation-pages.js";
import {
  forgotPasswordPage,
  requestReset,
  returnOf,
  resetPassword,
  resetPasswordPage,
  signInPage,
  signUpPage,
  verifyEmail,
} from "./account-pages.js";
import { firstCallPage, runFirstCall, type FirstCallLimits, type FirstCallRoute } from "./first-call.js";
import { provisionForFirstCall } from "./first-call-merchant.js";
import { requestEntryPage, requestLogPage, usagePage } from "./request-log-pages.js";
import { createWebhookEndpoint, resendWebhookDelivery, webhookEndpointAction, webhooksPage } from "./webhook-pages.js";
import { moveSandboxOrder, sandboxMerchantPage } from "./sandbox-orders.js";
import type { SandboxOrderDesk } from "./sandbox-order-desk.js";
import { sandboxMenuPage, type MenuTools } from "./sandbox-menu.js";
import { setMenuItemAvailability, setMenuOnlineOrdering, setMenuOpeningHours } from "./sandbox-menu-forms.js";
import type { Reply, Visit } from "./visit.js";
import { appPage } from "./app-pages.js";
import {
  archiveApp,
  archivePage,
  createAccessRequest,
  createApiKey,
  renameApp,
  setPushedRequests,
  setRequireDpop,
  revealProduction,
  revokeApiKey,
  rotateSecret,
  setClientAllowlist,
  setKeyAllowlist,
  setRedirectUris,
  submitApp,
} from "./app-forms.js";
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

/** What the site itself holds, for the routes that need more than the visit (its sessions, clock and limits). */
export interface SiteTools {
  signIn(visit: Visit, oldSessionId: string | undefined): Promise<Reply>;
  signUp(visit: Visit): Promise<Reply>;
  signOut(visit: Visit, signedIn: boolean, sessionId: string | undefined): Promise<Reply>;
  clock: Clock;
  /** BASE_URL: what the first call page shows partners. */
  baseUrl: string;
  firstCallLimits: FirstCallLimits;
  firstCall: FirstCallRoute | undefined;
  sandboxOrders: SandboxOrderDesk | undefined;
  /** The sandbox merchants' menus in their regions and the events that went out (the menu page); absent: 404. */
  sandboxMenu: MenuTools | undefined;
}

/** A request that reached its route: the visit, the path's segments, the session, the site's tools. */
export interface Routed<Params = PathParams> {
  visit: Visit;
  params: Params;
  sessionId: string | undefined;
  signedIn: boolean;
  site: SiteTools;
}

type PageHandler = (routed: Routed) => Reply | Promise<Reply>;

/** A line of a route table, its handler seeing the path's segments by name. */
function on<Path extends string>(
  method: "GET" | "POST",
  path: Path,
  handler: (routed: Routed<ParamsOf<Path>>) => Reply | Promise<Reply>,
) {
  // The router captures every named segment of the path, so the params hold each name the path declares.
  return route(method, path, handler as PageHandler);
}

/** The shape of each path segment: numbered rows (organizations, accounts, orders, calls) and string ids. */
const segments = {
  org: "[1-9]\\d{0,15}",
  invitation: "[1-9]\\d{0,15}",
  account: "[1-9]\\d{0,15}",
  company: "[1-9]\\d{0,15}",
  order: "[1-9]\\d{0,15}",
  store: "[1-9]\\d{0,15}",
  item: "[1-9]\\d{0,15}",
  call: "[1-9]\\d{0,15}",
  app: "[A-Za-z0-9_-]{1,64}",
  endpoint: "[A-Za-z0-9_-]{1,64}",
  delivery: "[A-Za-z0-9_-]{1,64}",
};

/** A store form of the menu page: its handler with the path's organization, merchant and store. */
function menuForm(
  { visit, params, site }: Routed<{ org: string; company: string; store: string }>,
  handler: typeof setMenuOnlineOrdering,
): Promise<Reply> | Reply {
  if (!site.sandboxMenu) return notFound(visit);
  const target = {
    organizationId: Number(params.org),
    companyId: Number(params.company),
    storeId: Number(params.store),
  };
  return handler(visit, site.sandboxMenu, target);
}

/** 404 in the site's shell. */
const notFound = ({ t, page }: Visit): Reply =>
  page(t("common.notFoundTitle"), t("common.notFoundText"), { status: 404 });

/**
 * The anonymous pages (a signed-in visitor may still open the mailed links), and the probes the site answers before
 * any page: another method gets 405 with Allow, signed in or not. A path of neither goes to the signed-in table.
 */
const anonymousPages = createRouter<PageHandler>({
  headAsGet: true,
  reserved: probePaths,
  routes: [
    on("GET", "/sign-in", ({ visit, signedIn }) =>
      signedIn ? { status: 303, location: returnOf(visit) } : signInPage(visit),
    ),
    on("POST", "/sign-in", ({ visit, site, sessionId }) => site.signIn(visit, sessionId)),
    on("GET", "/sign-up", ({ visit }) => signUpPage(visit)),
    on("POST", "/sign-up", ({ visit, site }) => site.signUp(visit)),
    on("GET", "/verify-email", ({ visit }) => verifyEmail(visit)),
    on("GET", "/forgot-password", ({ visit }) => forgotPasswordPage(visit)),
    on("POST", "/forgot-password", ({ visit }) => requestReset(visit, false)),
    on("GET", "/resend-verification", ({ visit }) => forgotPasswordPage(visit, { resend: true })),
    on("POST", "/resend-verification", ({ visit }) => requestReset(visit, true)),
    on("GET", "/reset-password", ({ visit }) => resetPasswordPage(visit)),
    on("POST", "/reset-password", ({ visit }) => resetPassword(visit)),
    on("GET", "/invitations/accept", ({ visit }) => invitationPage(visit)),
    on("POST", "/invitations/accept", ({ visit, signedIn }) =>
      signedIn ? acceptInvitation(visit) : signInPage(visit, {}, 401),
    ),
    on("POST", "/sign-out", ({ visit, site, signedIn, sessionId }) => site.signOut(visit, signedIn, sessionId)),
  ],
});

/** The signed-in pages; a GET route also answers HEAD, and another method gets 405 with Allow. */
const signedInPages = createRouter<PageHandler>({
  segments,
  headAsGet: true,
  routes: [
    on("GET", "/", ({ visit }) => dashboard(visit)),
    on("POST", "/organizations", ({ visit }) => createOrganization(visit)),
    on("GET", "/program", ({ visit }) => programPage(visit)),
    on("POST", "/program/apply", ({ visit }) => applyToProgram(visit)),
    on("POST", "/program/sign", ({ visit }) => signAgreement(visit)),
    on("GET", "/organizations/{org}", ({ visit, params }) => organizationPage(visit, Number(params.org))),
    on("POST", "/organizations/{org}/apps", ({ visit, params }) => createApp(visit, Number(params.org))),
    on("POST", "/organizations/{org}/invitations", ({ visit, params }) => inviteMember(visit, Number(params.org))),
    on("POST", "/organizations/{org}/invitations/{invitation}/resend", ({ visit, params }) =>
      resendInvitation(visit, Number(params.org), Number(params.invitation)),
    ),
    on("POST", "/organizations/{org}/invitations/{invitation}/revoke", ({ visit, params }) =>
      revokeInvitation(visit, Number(params.org), Number(params.invitation)),
    ),
    on("POST", "/organizations/{org}/members/{account}/role", ({ visit, params }) =>
      updateMember(visit, Number(params.org), Number(params.account)),
    ),
    on("POST", "/organizations/{org}/members/{account}/remove", ({ visit, params }) =>
      removeMember(visit, Number(params.org), Number(params.account)),
    ),
    on("POST", "/organizations/{org}/sandbox-merchants", ({ visit, params }) =>
      provisionMerchant(visit, Number(params.org)),
    ),
    on("GET", "/organizations/{org}/sandbox-merchants/{company}", ({ visit, params, site }) =>
      site.sandboxOrders
        ? sandboxMerchantPage(visit, site.sandboxOrders, Number(params.org), Number(params.company))
        : notFound(visit),
    ),
    on("POST", "/organizations/{org}/sandbox-merchants/{company}/deactivate", ({ visit, params }) =>
      setMerchantActive(visit, Number(params.org), Number(params.company), false),
    ),
    on("POST", "/organizations/{org}/sandbox-merchants/{company}/activate", ({ visit, params }) =>
      setMerchantActive(visit, Number(params.org), Number(params.company), true),
    ),
    on("POST", "/organizations/{org}/sandbox-merchants/{company}/orders/{order}/move", ({ visit, params, site }) =>
      site.sandboxOrders
        ? moveSandboxOrder(
            visit,
            site.sandboxOrders,
            site.clock,
            Number(params.org),
            Number(params.company),
            Number(params.order),
          )
        : notFound(visit),
    ),
    on("GET", "/organizations/{org}/sandbox-merchants/{company}/menu", ({ visit, params, site }) =>
      site.sandboxMenu
        ? sandboxMenuPage(visit, site.sandboxMenu, Number(params.org), Number(params.company))
        : notFound(visit),
    ),
    on("POST", "/organizations/{org}/sandbox-merchants/{company}/menu/stores/{store}/online-ordering", (routed) =>
      menuForm(routed, setMenuOnlineOrdering),
    ),
    on("POST", "/organizations/{org}/sandbox-merchants/{company}/menu/stores/{store}/hours", (routed) =>
      menuForm(routed, setMenuOpeningHours),
    ),
    on(
      "POST",
      "/organizations/{org}/sandbox-merchants/{company}/menu/stores/{store}/items/{item}/availability",
      ({ visit, params, site }) =>
        site.sandboxMenu
          ? setMenuItemAvailability(visit, site.sandboxMenu, {
              organizationId: Number(params.org),
              companyId: Number(params.company),
              storeId: Number(params.store),
              itemId: Number(params.item),
            })
          : notFound(visit),
    ),
    on("GET", "/apps/{app}", ({ visit, params }) => appPage(visit, params.app, "overview")),
    on("GET", "/apps/{app}/credentials", ({ visit, params }) => appPage(visit, params.app, "credentials")),
    on("GET", "/apps/{app}/review", ({ visit, params }) => appPage(visit, params.app, "review")),
    on("GET", "/apps/{app}/settings", ({ visit, params }) => appPage(visit, params.app, "settings")),
    on("POST", "/apps/{app}/rename", ({ visit, params }) => renameApp(visit, params.app)),
    on("POST", "/apps/{app}/pushed-requests", ({ visit, params }) => setPushedRequests(visit, params.app)),
    on("POST", "/apps/{app}/dpop", ({ visit, params }) => setRequireDpop(visit, params.app)),
    on("POST", "/apps/{app}/submit", ({ visit, params }) => submitApp(visit, params.app)),
    on("POST", "/apps/{app}/rotate", ({ visit, params, site }) =>
      rotateSecret(visit, params.app, () => site.clock.now()),
    ),
    on("POST", "/apps/{app}/allowed-ips", ({ visit, params }) => setClientAllowlist(visit, params.app)),
    on("POST", "/apps/{app}/production-credentials", ({ visit, params }) => revealProduction(visit, params.app)),
    on("GET", "/apps/{app}/redirect-uris", ({ visit, params }) => appPage(visit, params.app, "redirect-uris")),
    on("POST", "/apps/{app}/redirect-uris", ({ visit, params }) => setRedirectUris(visit, params.app)),
    on("GET", "/apps/{app}/api-keys", ({ visit, params }) => appPage(visit, params.app, "api-keys")),
    on("POST", "/apps/{app}/api-keys", ({ visit, params }) => createApiKey(visit, params.app)),
    on("POST", "/apps/{app}/api-keys/revoke", ({ visit, params }) => revokeApiKey(visit, params.app)),
    on("POST", "/apps/{app}/api-keys/allowed-ips", ({ visit, params }) => setKeyAllowlist(visit, params.app)),
    on("GET", "/apps/{app}/access-requests", ({ visit, params }) => appPage(visit, params.app, "access-requests")),
    on("POST", "/apps/{app}/access-requests", ({ visit, params }) => createAccessRequest(visit, params.app)),
    on("GET", "/apps/{app}/archive", ({ visit, params }) => archivePage(visit, params.app)),
    on("POST", "/apps/{app}/archive", ({ visit, params }) => archiveApp(visit, params.app)),
    on("GET", "/apps/{app}/first-call", ({ visit, params, site }) => firstCallPage(visit, params.app, site.baseUrl)),
    on("POST", "/apps/{app}/first-call", ({ visit, params, site }) =>
      runFirstCall(visit, params.app, site.baseUrl, site.firstCallLimits, site.firstCall),
    ),
    on("POST", "/apps/{app}/first-call/sandbox-merchant", ({ visit, params, site }) =>
      provisionForFirstCall(visit, params.app, (step, status) =>
        firstCallPage(visit, params.app, site.baseUrl, undefined, undefined, status, step),
      ),
    ),
    on("GET", "/apps/{app}/requests", ({ visit, params }) => requestLogPage(visit, params.app)),
    on("GET", "/apps/{app}/requests/{call}", ({ visit, params }) => requestEntryPage(visit, params.app, params.call)),
    on("GET", "/apps/{app}/usage", ({ visit, params }) => usagePage(visit, params.app)),
    on("GET", "/apps/{app}/webhooks", ({ visit, params }) => webhooksPage(visit, params.app)),
    on("POST", "/apps/{app}/webhooks", ({ visit, params }) => createWebhookEndpoint(visit, params.app)),
    on("POST", "/apps/{app}/webhooks/{endpoint}/test", ({ visit, params }) =>
      webhookEndpointAction(visit, params.app, params.endpoint, "test"),
    ),
    on("POST", "/apps/{app}/webhooks/{endpoint}/enable", ({ visit, params }) =>
      webhookEndpointAction(visit, params.app, params.endpoint, "enable"),
    ),
    on("POST", "/apps/{app}/webhooks/{endpoint}/rotate", ({ visit, params }) =>
      webhookEndpointAction(visit, params.app, params.endpoint, "rotate"),
    ),
    on("POST", "/apps/{app}/webhooks/{endpoint}/delete", ({ visit, params }) =>
      webhookEndpointAction(visit, params.app, params.endpoint, "delete"),
    ),
    on("POST", "/apps/{app}/webhooks/{endpoint}/deliveries/{delivery}/resend", ({ visit, params }) =>
      resendWebhookDelivery(visit, params.app, params.endpoint, params.delivery),
    ),
  ],
});

/** Whether a link (a GET) to `path` finds a page. */
function answersGet(path: string): boolean {
  return anonymousPages.match("GET", path).kind === "route" || signedInPages.match("GET", path).kind === "route";
}

/**
 * Where the language switch of a page at `path` leads: the page itself when it answers GET, else the nearest page
 * above it that does (a form's result, rendered by a POST to `/apps/{id}/rotate`, switches to `/apps/{id}`): a link
 * is followed with GET, and a POST-only path answers it 405. Paths that are none of ours stay as they are (a 404 in
 * another language).
 */
export function languageSwitchPath(path: string): string {
  if (answersGet(path)) return path;
  if (!anonymousPages.knows(path) && !signedInPages.knows(path)) return path;
  for (let end = path.lastIndexOf("/"); end > 0; end = path.lastIndexOf("/", end - 1)) {
    if (answersGet(path.slice(0, end))) return path.slice(0, end);
  }
  return "/";
}

/**
 * A request's route: an anonymous page, or a signed-in one (404 for a path of neither; signed out, the sign-in
 * page first; 405 with Allow for another method).
 */
export function dispatch(routed: Omit<Routed, "params">): Reply | Promise<Reply> {
  const { visit } = routed;
  const anonymous = anonymousPages.match(visit.method, visit.path);
  if (anonymous.kind === "route") return anonymous.handler({ ...routed, params: anonymous.params });
  if (anonymous.kind === "method-not-allowed") return methodNotAllowed(visit, anonymous.allow);
  const match = signedInPages.match(visit.method, visit.path);
  if (match.kind === "not-found") return notFound(visit);
  if (!routed.signedIn)
    return visit.method === "GET" || visit.method === "HEAD"
      ? { status: 303, location: "/sign-in" }
      : signInPage(visit, {}, 401);
  if (match.kind === "method-not-allowed") return methodNotAllowed(visit, match.allow);
  return match.handler({ ...routed, params: match.params });
}

/** 405 for a path of ours asked with another method, naming the methods it has (RFC 9110 section 15.5.6). */
function methodNotAllowed(visit: Visit, allow: string): Reply {
  const { t } = visit;
  return {
    ...visit.page(t("common.methodNotAllowedTitle"), t("common.methodNotAllowedText"), { status: 405 }),
    headers: { Allow: allow },
  };
}
