// The partner gateway's wiring: token verification on the key ring, merchants, rate limits, API keys.
import { apiKeyVerifier, createApiKeyAuth } from "../gateway/api-key-auth.js";
import { createMerchantDirectory } from "../gateway/merchant-directory.js";
import { createPartnerGateway } from "../gateway/partner-gateway.js";
import { partnerDpopOptions } from "../gateway/token-auth.js";
import { createRateLimiter } from "../gateway/rate-limiter.js";
import { appTokenAudience, createAccessTokenVerifier, createKeyRing } from "../token/index.js";
import type { AppContext } from "./context.js";
import type { SigningKeys, Stores } from "./stores.js";
import type { Owners } from "./owners.js";

/** The partner gateway: tokens verified against the key ring, checks, per-app limits, routing by region. */
export async function buildPartnerGateway(context: AppContext, stores: Stores, owners: Owners, keys: SigningKeys) {
  const { config, logger, metrics } = context;
  const { control, keyValue } = stores;
  const keyRing = createKeyRing({ sql: control.sql, clock: context.clock, logger });
  await keyRing.refresh();
  const merchants = createMerchantDirectory({
    controlSql: control.sql,
    clock: context.clock,
    cacheSeconds: config.caches.gatewaySeconds,
  });
  const gateway = createPartnerGateway({
    verifier: createAccessTokenVerifier({
      issuer: config.urls.base,
      audience: appTokenAudience,
      keys: (kid) => keyRing.publicKey(kid),
      clock: context.clock,
      lifetimeSeconds: config.lifetimes.accessToken,
    }),
    controlSql: control.sql,
    merchants,
    regions: owners.regional.callers,
    rateLimiter: createRateLimiter({
      store: keyValue,
      limit: config.limits.partnerPerMinute,
      clock: context.clock,
      logger,
      metrics,
    }),
    clock: context.clock,
    logger,
    cacheSeconds: config.caches.gatewaySeconds,
    dpop: partnerDpopOptions({
      store: keyValue,
      clock: context.clock,
      kek: keys.kek,
      nonces: config.dpop.nonces,
      publicBaseUrl: config.urls.base,
    }),
    apiKeys: createApiKeyAuth({
      verifyApiKey: apiKeyVerifier(owners.credentials),
      controlSql: control.sql,
      merchants,
      clock: context.clock,
      logger,
      cacheSeconds: config.caches.gatewaySeconds,
      metrics,
    }),
  });
  return { gateway, keyRing };
}
export type Partner = Awaited<ReturnType<typeof buildPartnerGateway>>;
