// The merchant directory as the gateway reads it: the credential owner's merchants, served from one bounded
// in-process cache for both ways a partner authenticates (bearer tokens and API keys), so a merchant is read once
// per GATEWAY_CACHE_SECONDS whichever way its partners call. A deactivated merchant is refused within that bound.
import { findMerchant, type Merchant } from "../credential/index.js";
import type { Clock } from "../runtime/clock.js";
import { createTtlCache } from "../runtime/ttl-cache.js";
import type { SqlClient } from "../storage/sql-client.js";

/** One entry per merchant: a few MB at most. */
const maxEntries = 50_000;

export interface MerchantDirectory {
  /** The merchant, cached; undefined when the company is not in the directory. Rejects when the read fails. */
  find(companyId: number): Promise<Merchant | undefined>;
}

export function createMerchantDirectory(options: {
  controlSql: SqlClient;
  clock: Clock;
  cacheSeconds: number;
}): MerchantDirectory {
  const cache = createTtlCache<Merchant | undefined>({
    clock: options.clock,
    ttlMs: options.cacheSeconds * 1000,
    maxEntries,
  });
  return {
    find: (companyId) => cache.get(String(companyId), () => findMerchant(options.controlSql, companyId)),
  };
}
