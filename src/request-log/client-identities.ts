// Which app and environment a client id belongs to, for the request log's record of an OAuth endpoint's call (the
// token endpoint's refusals included): the credential owner's lookup, remembered for a minute per id (an app under
// load sends its one id again and again) and for at most `max` ids. An unknown id is never remembered, so random ids
// cannot fill the memory; a revoked client's calls may be logged under its app for that minute, which is still its app.
import type { Clock } from "../runtime/clock.js";
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
  const ttlMs = options.ttlMs ?? 60_000;
  const max = options.max ?? 10_000;
  const known = new Map<string, { identity: ClientIdentity; until: number }>();
  return async (clientId) => {
    const cached = known.get(clientId);
    if (cached && cached.until > clock.now()) return cached.identity;
    const identity = await lookup(clientId);
    known.delete(clientId);
    if (identity) {
      // The oldest entry goes first (a Map keeps insertion order).
      if (known.size >= max) known.delete(known.keys().next().value!);
      known.set(clientId, { identity, until: clock.now() + ttlMs });
    }
    return identity;
  };
}
