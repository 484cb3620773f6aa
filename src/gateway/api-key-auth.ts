// ADSR API keys on partner routes (spec, Authentication 2): `X-API-Key` with `companyId` on every request. The
// gateway hands a call carrying a key (and no bearer token) to this module, which runs its steps in order:
//   1. key             the credential owner's verifyApiKey: unknown, revoked, malformed (partner.api_key_invalid, 401)
//   2. company param   companyId present and a company id (partner.company_param_required, 400)
//   3. product         the key's app is ADSR (partner.api_key_product, 403)
//   4. ip allowlist    the key's allowlist (partner.ip_denied)
//   5. merchant        active, in the directory (else partner.company_not_granted); the key's environment matches
//                      its demo flag (partner.env_mismatch)
//   6. scope           the route's scope is in the ADSR bundle (partner.scope_denied)
//   7. access          sandbox key: the organization's own sandbox merchant, every store; production key: an
//                      APPROVED access request, its stores only (else partner.company_not_granted)
// Fail closed: when the control database cannot answer (key, merchant or access request), the call is
// partner.api_key_unavailable (503), never a pass. Merchant and access answers are cached for cacheSeconds
// (GATEWAY_CACHE_SECONDS): a decline or withdrawal shows within that bound; the key's own verification is cached
// by the credential owner for CREDENTIAL_CACHE_SECONDS.
import {
  addressAllowed,
  credentialsOf,
  scopesForProduct,
  type CredentialEnvironment,
  type Credentials,
  type CredentialServiceImpl,
  type Product,
} from "../credential/index.js";
import { readServiceError, type ErrorToRender } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { addToLogContext } from "../runtime/log-context.js";
import { approvedStoreIds } from "../grant/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import { databaseRetryAfterSeconds } from "../storage/unavailable.js";
import type { Region } from "../config/regions.js";
import { createTtlCache } from "../runtime/ttl-cache.js";
import type { MerchantDirectory } from "./merchant-directory.js";

/** What a verified key stands for. */
export interface VerifiedKey {
  appId: string;
  organizationId: number;
  /** FULL, ONLINE_ORDER or ADSR (keys are only issued to ADSR apps; the check stands anyway). */
  product: Product | undefined;
  environment: CredentialEnvironment;
  allowedIps: string[];
}

/** Verifies a key; rejects with partner.api_key_invalid, or with anything else when verification is unavailable. */
export type VerifyApiKey = (apiKey: string) => Promise<VerifiedKey>;

/** A VerifyApiKey over the credential owner's plain verifyApiKey (given the owner's interface, or its service). */
export function apiKeyVerifier(source: Credentials | CredentialServiceImpl): VerifyApiKey {
  const credentials = credentialsOf(source);
  return async (apiKey) => {
    const key = await credentials.verifyApiKey(apiKey);
    return {
      appId: key.appId,
      organizationId: key.organizationId,
      product: key.product,
      environment: key.environment,
      allowedIps: key.allowedIps,
    };
  };
}

export interface ApiKeyRequest {
  apiKey: string;
  /** The raw `companyId` query parameter; undefined when absent. */
  companyId: string | undefined;
  clientAddress: string;
  /** The scope the route needs. */
  scope: string;
}

export type ApiKeyAdmission =
  | {
      ok: true;
      appId: string;
      environment: "SANDBOX" | "PRODUCTION";
      companyId: number;
      region: Region;
      provisioned: boolean;
      /** The stores the call may read; undefined for every store of the merchant. */
      storeIds: readonly number[] | undefined;
    }
  /** `appId` once the key is known, so the refusal can carry the app's rate-limit headers. */
  | { ok: false; error: ErrorToRender; appId?: string; environment?: "SANDBOX" | "PRODUCTION"; companyId?: number };

export interface ApiKeyAuth {
  admit(request: ApiKeyRequest): Promise<ApiKeyAdmission>;
}

export interface ApiKeyAuthOptions {
  verifyApiKey: VerifyApiKey;
  /** The control database (access requests). */
  controlSql: SqlClient;
  /** The merchant directory, shared with bearer-token calls. */
  merchants: MerchantDirectory;
  clock: Clock;
  logger: Logger;
  /** How long approved access requests are served from this process's cache (the directory has the same bound). */
  cacheSeconds: number;
  /** Counts verifications that failed closed (by step: key, merchant, access_request); absent: not counted. */
  metrics?: Metrics;
}

/** Cache entries, one per (app, merchant); a few MB at most. */
const maxCacheEntries = 50_000;

/** Thrown inside the steps when the control database does not answer: the call fails closed. */
class Unavailable extends Error {}

export function createApiKeyAuth(options: ApiKeyAuthOptions): ApiKeyAuth {
  const { verifyApiKey, clock, logger } = options;
  const accessCache = createTtlCache<number[] | undefined>({
    clock,
    ttlMs: options.cacheSeconds * 1000,
    maxEntries: maxCacheEntries,
  });
  const adsrScopes = new Set(scopesForProduct("ADSR"));

  /** Runs a control-database read; its failure becomes Unavailable (logged once per call, without secrets). */
  const reading = async <T>(what: string, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      logger.warn("api key verification unavailable: failing closed", { step: what, error: (error as Error).message });
      throw new Unavailable(what);
    }
  };

  const merchantOf = (companyId: number) => reading("merchant", () => options.merchants.find(companyId));
  const approvedStores = (appId: string, companyId: number) =>
    reading("access request", () =>
      accessCache.get(`${appId}\u0000${companyId}`, () => approvedStoreIds(options.controlSql, appId, companyId)),
    );

  /** Step 1: the key, or why it does not work (invalid), or Unavailable. */
  const verify = async (apiKey: string): Promise<VerifiedKey | ErrorToRender> => {
    try {
      return await verifyApiKey(apiKey);
    } catch (error) {
      const { code } = readServiceError(error);
      if (code === "partner.api_key_invalid") return { code };
      logger.warn("api key verification unavailable: failing closed", { step: "key", error: (error as Error).message });
      throw new Unavailable("key");
    }
  };

  const steps = async (request: ApiKeyRequest): Promise<ApiKeyAdmission> => {
    const key = await verify(request.apiKey);
    if ("code" in key) return { ok: false, error: key };
    const appId = key.appId;
    addToLogContext({ appId });
    const environment = key.environment;
    let known: number | undefined;
    const refuse = (error: ErrorToRender): ApiKeyAdmission => ({
      ok: false,
      error,
      appId,
      environment,
      ...(known !== undefined ? { companyId: known } : {}),
    });
    if (request.companyId === undefined || !/^[1-9]\d{0,15}$/.test(request.companyId))
      return refuse({ code: "partner.company_param_required" });
    const companyId = Number(request.companyId);
    known = companyId;
    addToLogContext({ companyId });
    if (key.product !== "ADSR") return refuse({ code: "partner.api_key_product" });
    // An empty list is no allowlist (as a token without the allowedIps claim).
    if (key.allowedIps.length > 0 && !addressAllowed(key.allowedIps, request.clientAddress))
      return refuse({ code: "partner.ip_denied" });

    const merchant = await merchantOf(companyId);
    if (!merchant?.active) return refuse({ code: "partner.company_not_granted" });
    if ((key.environment === "SANDBOX") !== merchant.demo) return refuse({ code: "partner.env_mismatch" });
    if (!adsrScopes.has(request.scope)) return refuse({ code: "partner.scope_denied" });

    let storeIds: readonly number[] | undefined;
    if (key.environment === "SANDBOX") {
      // Granted automatically: the organization's own sandbox merchants, every store.
      if (merchant.sandbox_organization_id !== key.organizationId)
        return refuse({ code: "partner.company_not_granted" });
    } else {
      storeIds = await approvedStores(appId, companyId);
      if (!storeIds) return refuse({ code: "partner.company_not_granted" });
    }
    return {
      ok: true,
      appId,
      environment,
      companyId,
      region: merchant.region,
      provisioned: merchant.provisioned,
      storeIds,
    };
  };

  return {
    async admit(request) {
      try {
        return await steps(request);
      } catch (error) {
        if (error instanceof Unavailable) {
          options.metrics?.apiKeyFailClosed.inc({ step: error.message.replaceAll(" ", "_") });
          return {
            ok: false,
            error: { code: "partner.api_key_unavailable", params: { retryAfter: databaseRetryAfterSeconds } },
          };
        }
        throw error;
      }
    },
  };
}
