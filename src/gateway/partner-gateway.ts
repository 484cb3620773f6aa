// The partner gateway: what the front does for a business route before the request is validated and sent on.
// One partner call is a list of steps in order of cost:
//   1. authenticate   the bearer or DPoP-bound token (RS256, no network; a DPoP proof and its replay-cache write:
//                     ./token-auth.ts), or an API key with companyId (./api-key-auth.ts: its own steps 1-7 stand for
//                     steps 1-5 here, and fail closed when the control database is down)
//   2. ip allowlist   the token's allowedIps against the client address
//   3. environment    the token's env against the merchant's demo flag (merchant directory, cached)
//   4. scope          the route's scope among the token's scopes; a sandbox test helper admits sandbox tokens only
//   5. grant          a live grant of the app for the merchant (control.grants, cached)
//   6. rate limit     PARTNER_RATE_LIMIT per app per fixed minute, one shared-store round trip
//   7. route          the DataService of the token's region; the merchant's data must be provisioned
// Every answer after step 1 carries the app's X-RateLimit-* headers: counted at step 6, read without counting
// when an earlier step refuses the call (a refused call does not use the app's budget).
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { addressAllowed, findApp } from "../credential/index.js";
import { formatStoreScope, partnerAppHeader, partnerEnvironmentHeader, storeScopeHeader } from "../data/index.js";
import type { ErrorToRender } from "../errors/index.js";
import type {
  AdmittedCall,
  PartnerAdmission,
  PartnerIdentity,
  PartnerRequest,
  RefusedCall,
} from "../front/partner-admission.js";
import { Refusal } from "../front/partner-admission.js";
import { findLiveGrant } from "../grant/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { addToLogContext } from "../runtime/log-context.js";
import type { ServiceCaller, UnaryCall } from "../runtime/service-caller.js";
import { createTtlCache } from "../runtime/ttl-cache.js";
import { isRegion, type Region } from "../config/regions.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { AccessTokenClaims, AccessTokenVerifier } from "../token/index.js";
import { createTokenAuth, type TokenAuthOptions } from "./token-auth.js";
import type { ApiKeyAuth } from "./api-key-auth.js";
import type { MerchantDirectory } from "./merchant-directory.js";
import { rateLimitHeaders, type RateLimiter } from "./rate-limiter.js";

/** A call the gateway let through: who it is for, and how it reaches the DataService of the merchant's region. */
export interface AdmittedPartnerCall extends AdmittedCall {
  appId: string;
  /** The verified token; absent for an API-key call. */
  claims?: AccessTokenClaims;
  companyId: number;
  /** The stores the call may read (an ADSR key's approved access request); undefined for every store. */
  storeIds?: readonly number[];
  region: Region;
  /** The token's environment; an API key is PRODUCTION (ADSR keys are production credentials). */
  env: "SANDBOX" | "PRODUCTION";
}

/** The front's partner admission, as the gateway implements it. */
export type PartnerGateway = PartnerAdmission<AdmittedPartnerCall>;

export interface PartnerGatewayOptions {
  verifier: AccessTokenVerifier;
  /** The control database (grants). */
  controlSql: SqlClient;
  /** The merchant directory, shared with API-key authentication. */
  merchants: MerchantDirectory;
  /** The DataService caller of each configured region; a region absent here answers partner.region_unavailable. */
  regions: ReadonlyMap<Region, ServiceCaller>;
  rateLimiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  /**
   * How long grant checks are served from this process's cache (GATEWAY_CACHE_SECONDS, the merchant directory's
   * bound too). A revoked grant, a deactivated merchant or a changed demo flag takes effect within this bound.
   */
  cacheSeconds: number;
  /** API-key authentication (ADSR); without it an `X-API-Key` call answers server.unimplemented. */
  apiKeys?: ApiKeyAuth;
  /** DPoP proofs of bound tokens (RFC 9449); absent: a DPoP-bound token is refused. */
  dpop?: TokenAuthOptions["dpop"];
}

/** Entries of the grant cache: one per (app, merchant) pair; a few MB at most. */
const maxCacheEntries = 50_000;

export function createPartnerGateway(options: PartnerGatewayOptions): PartnerGateway {
  const { verifier, rateLimiter, regions, clock, logger } = options;
  const grantCache = createTtlCache<boolean>({
    clock,
    ttlMs: options.cacheSeconds * 1000,
    maxEntries: maxCacheEntries,
  });
  // Whether an app requires DPoP, from the same cache bound: turning it on refuses its Bearer tokens within it.
  const dpopCache = createTtlCache<boolean>({ clock, ttlMs: options.cacheSeconds * 1000, maxEntries: maxCacheEntries });
  const requiresDpop = (appId: string) =>
    dpopCache.get(appId, async () => (await findApp(options.controlSql, appId))?.require_dpop === true);
  const liveGrant = (appId: string, companyId: number) =>
    grantCache.get(
      `${appId}\u0000${companyId}`,
      async () => (await findLiveGrant(options.controlSql, appId, companyId)) !== undefined,
    );

  const tokenAuth = createTokenAuth({ verifier, dpop: options.dpop, logger });
  /** Step 1: the token, or why there is none that works. */
  const authenticate = async (request: PartnerRequest): Promise<AccessTokenClaims | ErrorToRender> => {
    if (request.authorization === undefined) {
      // Only without an API-key module (front tests): never a pretended success.
      if (request.apiKey !== undefined) return { code: "server.unimplemented" };
      return { code: "partner.token_missing" };
    }
    return tokenAuth({
      authorization: request.authorization,
      dpop: request.dpop,
      method: request.method ?? "GET",
      path: request.path ?? "/",
    });
  };

  /** Steps 6 and 7, shared by tokens and keys: the per-app limit, then the merchant's region. */
  const limitAndRoute = async (call: {
    appId: string;
    environment: PartnerIdentity["environment"];
    companyId: number;
    region: string;
    provisioned: boolean;
    claims?: AccessTokenClaims;
    storeIds?: readonly number[];
  }): Promise<AdmittedPartnerCall | RefusedCall> => {
    const partner: PartnerIdentity = { appId: call.appId, environment: call.environment, companyId: call.companyId };
    const decision = await rateLimiter.hit(call.appId);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      return {
        ok: false,
        error: { code: "partner.rate_limited", params: { retryAfter: decision.retryAfter } },
        headers,
        partner,
      };
    }
    const region = call.region;
    const caller = isRegion(region) ? regions.get(region) : undefined;
    if (!isRegion(region) || !caller) {
      logger.warn("partner call for a region with no DataService configured", { region, companyId: call.companyId });
      return { ok: false, error: { code: "partner.region_unavailable" }, headers, partner };
    }
    if (!call.provisioned) return { ok: false, error: { code: "company.not_provisioned" }, headers, partner };
    const env = call.claims?.env === "SANDBOX" ? "SANDBOX" : "PRODUCTION";
    const admitted: AdmittedPartnerCall = {
      ok: true,
      appId: call.appId,
      companyId: call.companyId,
      region,
      send: (unary) => caller.call(bound(admitted, unary)),
      headers,
      partner,
      env,
    };
    if (call.claims) admitted.claims = call.claims;
    if (call.storeIds) admitted.storeIds = call.storeIds;
    return admitted;
  };

  /**
   * The request fixed to its admitted call: the merchant of the message is the call's (a `companyId` the client
   * sent must be the admitted one, else partner.company_not_granted; set when absent), and the headers only the
   * gateway sets travel with it: the app, its environment, and an ADSR key's approved stores.
   */
  const bound = <M extends DescMethodUnary>(call: AdmittedPartnerCall, unary: UnaryCall<M>): UnaryCall<M> => {
    const fields = unary.input as { companyId?: bigint };
    const companyId = BigInt(call.companyId);
    if (fields.companyId !== undefined && fields.companyId !== companyId)
      throw Refusal.of({ code: "partner.company_not_granted" });
    fields.companyId = companyId;
    const headers = unary.headers ?? new Headers();
    if (call.storeIds) headers.set(storeScopeHeader, formatStoreScope(call.storeIds));
    headers.set(partnerAppHeader, call.appId);
    headers.set(partnerEnvironmentHeader, call.env);
    return { ...unary, headers };
  };

  /** Steps 1-5 for an API key (./api-key-auth.ts), then the steps shared with tokens. */
  const admitKeyed = async (
    request: PartnerRequest,
    apiKey: string,
    apiKeys: ApiKeyAuth,
  ): Promise<AdmittedPartnerCall | RefusedCall> => {
    const keyed = await apiKeys.admit({
      apiKey,
      companyId: request.companyId,
      clientAddress: request.clientAddress,
      scope: request.scope,
    });
    if (!keyed.ok) {
      const partner =
        keyed.appId && keyed.environment
          ? {
              appId: keyed.appId,
              environment: keyed.environment,
              ...(keyed.companyId !== undefined ? { companyId: keyed.companyId } : {}),
            }
          : undefined;
      return {
        ok: false,
        error: keyed.error,
        headers: keyed.appId ? rateLimitHeaders(await rateLimiter.peek(keyed.appId)) : {},
        ...(partner ? { partner } : {}),
      };
    }
    // An API key is a production credential: a sandbox test helper is not for it.
    if (request.sandboxOnly)
      return {
        ok: false,
        error: { code: "partner.env_mismatch" },
        headers: rateLimitHeaders(await rateLimiter.peek(keyed.appId)),
      };
    return limitAndRoute(keyed);
  };

  return {
    async admit(request) {
      if (request.authorization === undefined && request.apiKey !== undefined && options.apiKeys)
        return admitKeyed(request, request.apiKey, options.apiKeys);
      const authenticated = await authenticate(request);
      if ("code" in authenticated) return { ok: false, error: authenticated, headers: {} };
      const claims = authenticated;
      const appId = claims.sub;
      // From here on, every line of this request names the app and the merchant.
      addToLogContext({ appId, companyId: claims.companyId });
      const partner: PartnerIdentity = { appId, environment: claims.env, companyId: claims.companyId };
      const refuse = async (error: ErrorToRender): Promise<RefusedCall> => ({
        ok: false,
        error,
        headers: rateLimitHeaders(await rateLimiter.peek(appId)),
        partner,
      });

      // A Bearer token of an app that requires DPoP (minted before it did) is refused: every token must be bound.
      if (claims.cnf === undefined && (await requiresDpop(appId))) return refuse({ code: "partner.dpop_required" });
      if (!addressAllowed(claims.allowedIps, request.clientAddress)) return refuse({ code: "partner.ip_denied" });

      const merchant = await options.merchants.find(claims.companyId);
      // A merchant gone from the directory or deactivated: the app has no access to it any more.
      if (!merchant?.active) return refuse({ code: "partner.grant_missing" });
      if ((claims.env === "SANDBOX") !== merchant.demo) return refuse({ code: "partner.env_mismatch" });

      if (!claims.scopes.includes(request.scope)) return refuse({ code: "partner.scope_denied" });
      // A sandbox test helper (POST /v1/sandbox/...): a production token meets the same code as a wrong merchant.
      if (request.sandboxOnly && claims.env !== "SANDBOX") return refuse({ code: "partner.env_mismatch" });

      if (!(await liveGrant(appId, claims.companyId))) return refuse({ code: "partner.grant_missing" });

      return limitAndRoute({
        appId,
        environment: claims.env,
        companyId: claims.companyId,
        region: claims.region,
        provisioned: merchant.provisioned,
        claims,
      });
    },
  };
}
