// The consent site's authorization pages: GET /oauth/authorize (the request checked in the spec's order; the
// sign-in page or the consent screen), its Cancel, and POST /oauth/authorize/decision (checked again from scratch).
import type { Decision, ValidAuthorization } from "../grant/index.js";
import { pageHeaders } from "../web/layout.js";
import { consentPage } from "./consent-page.js";
import type { PageContext } from "./pages.js";
import type { Session } from "./sessions.js";
import type { ConsentKit, Handler, Reply, Visit } from "./consent-site.js";

/**
 * The consent screen's CSP also allows the form to lead to the app's redirect URI: Chromium applies form-action to
 * the redirects that follow a form submission, and the decision answers with a 302 there. The rest is the web
 * kit's policy (src/web/layout.ts): our own stylesheet only, no inline script or style, frame-ancestors 'none'.
 */
function pageHeadersAllowingRedirectTo(redirectUri: string, secure: boolean): Record<string, string> {
  return pageHeaders({ secure, formTargets: [new URL(redirectUri).origin] });
}

export function createAuthorizePages(kit: ConsentKit) {
  const { options, secure, error, message, signIn } = kit;
  const { authorization } = options;

  /** A decision's 302 to the app, or the page saying why it could not be made. */
  const redirectOrError = (decision: Decision, context: PageContext): Reply =>
    decision.ok ? { status: 302, location: decision.location } : error(decision.code, context);

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
    return redirectOrError(await authorization.deny(checked.request), visit.context);
  };

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
    if (decision === "deny") return redirectOrError(await authorization.deny(checked.request), screen);
    if (decision !== "allow") return message(400, screen, "common.badRequestTitle", "consent.chooseAllowOrDeny");
    if (session.role !== "OWNER") return message(403, screen, "consent.ownerOnlyTitle", "consent.ownerOnlyConnect");
    return redirectOrError(await authorization.approve(checked.request, eligible.merchant, session.userId), screen);
  };

  return { appNameOf, authorize, cancelAuthorize, decideAuthorization };
}
