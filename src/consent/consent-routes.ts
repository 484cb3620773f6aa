// The consent site's route table, beside the pages it names (./authorize-pages.ts, ./connection-pages.ts,
// ./access-request-pages.ts; sign-in and sign-out are ./consent-server.ts's), and the steps a route wraps its page
// in: a signed-in page, a POST's form, a signed-in POST's session and token.
import { sameSecret } from "../web/csrf.js";
import { readPostedForm } from "../web/posted-form.js";
import { createRouter, route } from "../web/router.js";
import { probePaths } from "../runtime/probe-paths.js";
import type { PageContext } from "./pages.js";
import type { Session } from "./sessions.js";
import type { ConsentKit, FormHandler, Handler, Reply, Visit } from "./consent-site.js";

type SessionHandler = (visit: Visit, form: URLSearchParams, session: Session) => Promise<Reply>;
type SessionPage = (session: Session, context: PageContext) => Promise<Reply>;

/** Every page the table names. */
export interface ConsentPages {
  authorize: Handler;
  cancelAuthorize: Handler;
  decideAuthorization: SessionHandler;
  connectionsReply: SessionPage;
  disconnect: SessionHandler;
  accessRequestsReply: SessionPage;
  decideAccessRequest: SessionHandler;
  withdrawAccessRequest: SessionHandler;
  signInPosted: FormHandler;
  signOut: (visit: Visit) => Promise<Reply>;
}

/** The ui_locales of the authorize request a sign-in returns to (a path with its query), if any. */
function uiLocalesOf(returnTo: string | null): string | null {
  if (!returnTo?.startsWith("/oauth/authorize?")) return null;
  return new URLSearchParams(returnTo.slice("/oauth/authorize?".length)).get("ui_locales");
}

export function createConsentRoutes(kit: ConsentKit, consentPages: ConsentPages) {
  const { ownOrigin, message, signIn } = kit;
  const {
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
  } = consentPages;

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

  return createRouter<Handler>({
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
}
