// The authorization endpoint's decisions, independent of HTML (the consent site renders them): validating an
// authorize request in the spec's order, a company's eligibility, and the approve / deny redirects. Approving
// makes (or reuses) the grant and a single-use code bound to the redirect_uri and the S256 challenge. Both
// redirects carry `iss`, the metadata's issuer exactly (RFC 9207 section 2), so a client talking to several
// authorization servers can tell which one answered (mix-up attacks, RFC 9700 section 4.4).
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import {
  clientIdEnvironment,
  hashSecret,
  secretBytes,
  findApp,
  findClient,
  findMerchant,
  findOrganization,
  redirectUrisOfApp,
  scopesForProduct,
  type CredentialEnvironment,
  type Merchant,
  type Product,
} from "../credential/index.js";
import type { ErrorCode } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { createCodeQueries } from "./queries/code-queries.js";
import { createGrantQueries } from "./queries/grant-queries.js";
import type { SqlClient } from "../storage/sql-client.js";
import { isS256Challenge } from "./pkce.js";
import { consumePushedRequest, createPushedRequests, type PushedParameters } from "./pushed-requests.js";

/** The query parameters of GET /oauth/authorize (spec, "Endpoints"). */
export const authorizationParameters = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "scope",
  "code_challenge",
  "code_challenge_method",
  "response_mode",
  // RFC 9449 section 10: the code is bound to this DPoP key (its RFC 7638 thumbprint), exchanged only with its proof.
  "dpop_jkt",
] as const;
export type AuthorizationParameter = (typeof authorizationParameters)[number];
export type AuthorizationParams = Partial<Record<AuthorizationParameter, string>>;

/** A request that passed every check that does not need the merchant. */
export interface ValidAuthorization {
  /** The parameters the browser carries: the request's own, or client_id and request_uri of a pushed one. */
  params: AuthorizationParams & { request_uri?: string };
  /** A pushed request (RFC 9126): its key, used up by the decision. */
  pushed?: Uint8Array;
  /** The app requires pushed requests (RFC 9126 section 6): a plain request is refused. */
  pushRequired: boolean;
  clientId: string;
  environment: CredentialEnvironment;
  appId: string;
  appName: string;
  organizationId: number;
  organizationName: string;
  product: Product;
  scopes: string[];
  redirectUri: string;
  state: string;
  codeChallenge: string | null;
  /** RFC 9449 section 10: the DPoP key the code is bound to; null: none named. */
  dpopJkt: string | null;
}

export type AuthorizationCheck =
  | { ok: true; request: ValidAuthorization }
  | {
      ok: false;
      code: ErrorCode;
      fields?: string /** Whether the redirect URI was validated (never redirected to anyway). */;
      redirectUri?: string;
    };

/** A decision's redirect, or why it cannot be made (a pushed request another decision used up). */
export type Decision = { ok: true; location: string } | { ok: false; code: ErrorCode };

/** The known parameters of a query string, and the names that appeared more than once (RFC 6749 section 3.1). */
export function readAuthorizationParams(query: URLSearchParams): {
  params: AuthorizationParams;
  repeated: AuthorizationParameter[];
} {
  const params: AuthorizationParams = {};
  const repeated: AuthorizationParameter[] = [];
  for (const name of authorizationParameters) {
    const values = query.getAll(name);
    if (values.length > 1) repeated.push(name);
    if (values.length > 0) params[name] = values[0];
  }
  return { params, repeated };
}

/** The redirect with `values` added to the registered URI's own query, leaving its spelling untouched. */
export function redirectTo(redirectUri: string, values: Record<string, string>): string {
  const query = new URLSearchParams(values).toString();
  return redirectUri + (redirectUri.includes("?") ? "&" : "?") + query;
}

/** A new authorization code: 256 random bits, base64url, stored only as its SHA-256 (like every secret here). */
export function newAuthorizationCode(ids: IdSource): string {
  return ids.randomToken(secretBytes);
}

export interface AuthorizationDeps {
  sql: postgres.Sql;
  config: Config;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
}

/** The pushed parameters of a request as a query, with the client that pushed them. */
function pushedQuery(clientId: string, parameters: PushedParameters): URLSearchParams {
  const query = new URLSearchParams({ client_id: clientId });
  for (const name of authorizationParameters) {
    const value = parameters[name];
    if (name !== "client_id" && value !== undefined) query.set(name, value);
  }
  return query;
}

/**
 * RFC 9126 section 4: beside client_id and request_uri, an authorization parameter may be sent again only with the
 * pushed value (some clients repeat response_type); one that differs, is repeated, or was not pushed contradicts
 * the request. Parameters that are not authorization parameters (ui_locales, the language hint) are not compared.
 */
function contradictions(query: URLSearchParams, parameters: PushedParameters): string[] {
  return authorizationParameters.filter((name) => {
    if (name === "client_id" || !query.has(name)) return false;
    const values = query.getAll(name);
    return values.length > 1 || values[0] !== parameters[name];
  });
}

/**
 * Steps 5 to 5c of the authorization checks, the parameters of the extensions: PKCE (S256 only; a challenge needs its
 * method, and a method its challenge), response_mode (`query` or absent, OAuth 2.0 Multiple Response Types section
 * 2.1: the code flow answers in the query, and a mode we would ignore is refused rather than silently changed, issue
 * 27), dpop_jkt (a JWK SHA-256 thumbprint, RFC 7638: 43 base64url characters, as a DPoP proof's key gives).
 */
function extensionRefusal(params: AuthorizationParams, redirectUri: string): AuthorizationCheck | undefined {
  const method = params.code_challenge_method;
  const challenge = params.code_challenge;
  if ((method !== undefined && method !== "S256") || (challenge !== undefined && method === undefined))
    return { ok: false, code: "oauth.pkce_method_unsupported", redirectUri };
  if (method !== undefined && (challenge === undefined || !isS256Challenge(challenge)))
    return { ok: false, code: "oauth.invalid_request", fields: "code_challenge", redirectUri };
  if (params.response_mode !== undefined && params.response_mode !== "query")
    return { ok: false, code: "oauth.unsupported_response_mode", redirectUri };
  if (params.dpop_jkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(params.dpop_jkt))
    return { ok: false, code: "oauth.invalid_request", fields: "dpop_jkt", redirectUri };
  return undefined;
}

export function createAuthorization(deps: AuthorizationDeps) {
  const { sql, config, clock, ids, logger } = deps;
  const pushedRequests = createPushedRequests({ sql, clock, ids });

  /**
   * Checks a request in the spec's order: client_id, redirect_uri (these two never redirect), state,
   * response_type, PKCE method, the app's publication (production) and product. `scope` is ignored.
   */
  async function checkParameters(query: URLSearchParams): Promise<AuthorizationCheck> {
    const { params, repeated } = readAuthorizationParams(query);
    // 0. A NUL can be in no client id or registered URI, and PostgreSQL refuses it in a query: the request is
    // malformed before anything is looked up, and nothing unchecked is redirected to.
    const withNul = authorizationParameters.filter((name) =>
      query.getAll(name).some((value) => value.includes("\u0000")),
    );
    if (withNul.length > 0) return { ok: false, code: "oauth.invalid_request", fields: withNul.join(", ") };
    // 1. client_id: a live client id of the environment its prefix names.
    const clientId = params.client_id ?? "";
    const environment = clientIdEnvironment(clientId);
    const client = environment && !repeated.includes("client_id") ? await findClient(sql, clientId) : undefined;
    if (!client || client.environment !== environment) return { ok: false, code: "oauth.client_not_found" };
    // 2. redirect_uri: an exact match of a registered one.
    const redirectUri = params.redirect_uri ?? "";
    const registered = await redirectUrisOfApp(sql, client.app_id);
    if (repeated.includes("redirect_uri") || !registered.includes(redirectUri))
      return { ok: false, code: "oauth.redirect_uri_mismatch" };
    // 3. state.
    if (!params.state || repeated.includes("state")) return { ok: false, code: "oauth.state_required", redirectUri };
    // 4. response_type, then any other repeated parameter.
    if (params.response_type !== "code")
      return { ok: false, code: "oauth.invalid_request", fields: "response_type", redirectUri };
    const others = repeated.filter((name) => name !== "client_id" && name !== "redirect_uri" && name !== "state");
    if (others.length > 0) return { ok: false, code: "oauth.invalid_request", fields: others.join(", "), redirectUri };
    // 5. PKCE, response_mode, dpop_jkt.
    const refused = extensionRefusal(params, redirectUri);
    if (refused) return refused;
    const challenge = params.code_challenge;
    // 6. The app: a production client needs an APPROVED app; archived apps connect nothing; ADSR uses API keys.
    if (environment === "PRODUCTION" && client.state !== "APPROVED")
      return { ok: false, code: "oauth.app_not_published", redirectUri };
    if (client.state === "ARCHIVED") return { ok: false, code: "developer.app_archived", redirectUri };
    if (client.product === "ADSR") return { ok: false, code: "developer.use_api_key", redirectUri };
    return {
      ok: true,
      request: {
        params,
        clientId,
        environment,
        ...(await appFacts(client.app_id, client.organization_id)),
        product: client.product,
        scopes: scopesForProduct(client.product),
        redirectUri,
        state: params.state,
        codeChallenge: challenge ?? null,
        dpopJkt: params.dpop_jkt ?? null,
      },
    };
  }

  /** What the consent screen shows of the app and its organization, and whether the app requires PAR. */
  async function appFacts(appId: string, organizationId: number) {
    const app = await findApp(sql, appId);
    const organization = await findOrganization(sql, organizationId);
    return {
      appId,
      appName: app?.name ?? appId,
      organizationId,
      organizationName: organization?.name ?? "",
      pushRequired: app?.require_pushed_authorization_requests ?? false,
    };
  }

  /**
   * A pushed request (RFC 9126 section 4): exactly one client_id and request_uri; the request live and pushed by
   * that client (opened for the consent window); no contradicting parameter; then the pushed parameters checked
   * again (the app may have been archived since).
   */
  async function checkPushed(query: URLSearchParams): Promise<AuthorizationCheck> {
    const requestUris = query.getAll("request_uri");
    const clientIds = query.getAll("client_id");
    const malformed = [
      ...(requestUris.length !== 1 ? ["request_uri"] : []),
      ...(clientIds.length !== 1 || clientIds[0]!.includes("\u0000") ? ["client_id"] : []),
    ];
    if (malformed.length > 0) return { ok: false, code: "oauth.invalid_request", fields: malformed.join(", ") };
    const clientId = clientIds[0]!;
    const requestUri = requestUris[0]!;
    const opened = await pushedRequests.open(clientId, requestUri);
    if (!opened) return { ok: false, code: "oauth.invalid_request_uri" };
    const contradicting = contradictions(query, opened.parameters);
    if (contradicting.length > 0) return { ok: false, code: "oauth.invalid_request", fields: contradicting.join(", ") };
    const checked = await checkParameters(pushedQuery(clientId, opened.parameters));
    if (!checked.ok) return checked;
    return {
      ok: true,
      request: { ...checked.request, params: { client_id: clientId, request_uri: requestUri }, pushed: opened.hash },
    };
  }

  return {
    /**
     * Checks a request: a pushed one by its request_uri, any other in the spec's order, then refused when its app
     * requires pushed requests (RFC 9126 section 6; once client_id and redirect_uri are known good, like the rest).
     */
    async check(query: URLSearchParams): Promise<AuthorizationCheck> {
      if (query.has("request_uri")) return checkPushed(query);
      const checked = await checkParameters(query);
      if (checked.ok && checked.request.pushRequired)
        return { ok: false, code: "oauth.pushed_request_required", redirectUri: checked.request.redirectUri };
      return checked;
    },

    /**
     * RFC 9126 section 2: checks parameters a client pushed, as the authorization endpoint would, and stores them
     * under a new request_uri. The client is authenticated already (the token endpoint's way).
     */
    async push(
      clientId: string,
      parameters: PushedParameters,
    ): Promise<{ ok: true; requestUri: string; expiresIn: number } | Extract<AuthorizationCheck, { ok: false }>> {
      const checked = await checkParameters(pushedQuery(clientId, parameters));
      if (!checked.ok) return checked;
      return { ok: true, ...(await pushedRequests.push(clientId, parameters)) };
    },

    /**
     * Whether the company may be connected in the client's environment: sandbox clients reach only their
     * organization's own active sandbox (demo) merchants, production clients only active live ones.
     */
    async eligibility(
      request: ValidAuthorization,
      companyId: number,
    ): Promise<{ ok: true; merchant: Merchant } | { ok: false; code: ErrorCode }> {
      const merchant = await findMerchant(sql, companyId);
      const eligible =
        merchant?.active &&
        (request.environment === "SANDBOX"
          ? merchant.demo && merchant.sandbox_organization_id === request.organizationId
          : !merchant.demo);
      return eligible ? { ok: true, merchant: merchant! } : { ok: false, code: "oauth.company_not_eligible" };
    },

    /**
     * Approval by the owner: a pushed request used up, the grant (made or reused) and a code, in one transaction;
     * the redirect location, or oauth.invalid_request_uri when another decision used the pushed request first.
     */
    async approve(request: ValidAuthorization, merchant: Merchant, userId: number): Promise<Decision> {
      const code = newAuthorizationCode(ids);
      const now = new Date(clock.now());
      const decided = await sql.begin(async (tx: SqlClient) => {
        if (request.pushed && !(await consumePushedRequest(tx, request.pushed, request.clientId, now))) return false;
        const grantId = await createGrantQueries(tx).ensureLive(
          request.appId,
          merchant.company_id,
          request.environment,
          now,
        );
        await createCodeQueries(tx).insert({
          hash: hashSecret(code),
          appId: request.appId,
          clientId: request.clientId,
          companyId: merchant.company_id,
          grantId,
          approvedByUserId: userId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          dpopJkt: request.dpopJkt,
          now,
          expiresAt: new Date(now.getTime() + config.lifetimes.authCode * 1000),
        });
        return true;
      });
      if (!decided) return { ok: false, code: "oauth.invalid_request_uri" };
      logger.info("consent approved", { clientId: request.clientId, companyId: merchant.company_id, userId });
      const location = redirectTo(request.redirectUri, {
        code,
        state: request.state,
        merchant_id: String(merchant.company_id),
        iss: config.urls.base,
      });
      return { ok: true, location };
    },

    /** Decline: a pushed request used up; error=access_denied, the state and the issuer (RFC 9207), no code. */
    async deny(request: ValidAuthorization): Promise<Decision> {
      const now = new Date(clock.now());
      if (request.pushed && !(await consumePushedRequest(sql, request.pushed, request.clientId, now)))
        return { ok: false, code: "oauth.invalid_request_uri" };
      const values = { error: "access_denied", state: request.state, iss: config.urls.base };
      return { ok: true, location: redirectTo(request.redirectUri, values) };
    },
  };
}

export type Authorization = ReturnType<typeof createAuthorization>;
