// Which app and environment a client id belongs to, for the request log's record of an OAuth endpoint's call (the
// token endpoint's refusals included): the credential owner's lookup, remembered for a minute per id (an app under
// load sends its one id again and again) and for at most `max` ids. An unknown id is never remembered, so random ids
// cannot fill the memory; a revoked client's calls may be logged under its app for that minute, which is still its app.
import type { Clock } from "../runtime/clock.js";
import { createBoundedCache } from "../runtime/ttl-cache.js";
import type { LoggedEnvironment } from "./request-log-queries.js";

export interface ClientIdentity {
  appId: string;
  environment: LoggedEnvironment;
}

export type IdentifyClient = (clientId: string) => Promise<ClientIdentity | undefined>;

export function cachedClientIdentities(
  lookup: IdentifyClient,
  clock: Clock,
  options: { ttlMs?: number; max?: number } = {},
): IdentifyClient {
  // The project's one bounded cache (../runtime/ttl-cache.ts), holding known ids only.
  const known = createBoundedCache<ClientIdentity>({
    clock,
    ttlMs: options.ttlMs ?? 60_000,
    maxEntries: options.max ?? 10_000,
  });
  return async (clientId) => {
    const cached = known.get(clientId);
    if (cached) return cached;
    const identity = await lookup(clientId);
    if (identity) known.set(clientId, identity);
    return identity;
  };
}
