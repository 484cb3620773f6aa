// The verification keys of this process, for whoever verifies access tokens (the partner gateway): public keys by
// kid, cached in process, re-read from the control database at a bounded interval and on an unknown kid.
//
// `publicKey(kid)` is synchronous because the verifier (access-token.ts) runs on every partner call; a refresh it
// triggers runs in the background. That is safe because rotation publishes a key `publishAheadSeconds` before it
// signs (signing-keys.ts), far longer than the refresh interval here.
import { createPublicKey, type KeyObject } from "node:crypto";
import type postgres from "postgres";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createSigningKeyQueries } from "./queries/signing-key-queries.js";
import { keyRefreshSeconds } from "./signing-keys.js";

export interface KeyRingOptions {
  /** The control database. */
  sql: postgres.Sql;
  clock: Clock;
  logger: Logger;
  /** Re-read the keys when the last read is older than this (default 30 s: keyRefreshSeconds). */
  refreshIntervalMs?: number;
  /** An unknown kid triggers a re-read at most this often (default 1 s), so garbage kids cannot flood the database. */
  unknownKidIntervalMs?: number;
}

export interface KeyRing {
  /** The public key of `kid` from the cache; undefined when unknown (a re-read is then started, rate limited). */
  publicKey(kid: string): KeyObject | undefined;
  /** Like publicKey, but on an unknown kid waits for the (rate-limited) re-read before answering. */
  lookup(kid: string): Promise<KeyObject | undefined>;
  /** Re-reads the keys now; resolves when done. Call once at start so the first call finds them. */
  refresh(): Promise<void>;
}

/** A key ring over the control database's signing keys (every unretired key, published or about to be). */
export function createKeyRing(options: KeyRingOptions): KeyRing {
  const { sql, clock, logger } = options;
  const interval = options.refreshIntervalMs ?? keyRefreshSeconds * 1000;
  const unknownInterval = options.unknownKidIntervalMs ?? 1000;
  let keys = new Map<string, KeyObject>();
  let loadedAt = Number.NEGATIVE_INFINITY;
  let lastUnknownRefresh = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  const refresh = (): Promise<void> =>
    (loading ??= (async () => {
      try {
        const at = clock.now();
        const rows = await createSigningKeyQueries(sql).unretired(new Date(at));
        const next = new Map<string, KeyObject>();
        for (const row of rows)
          next.set(row.kid, keys.get(row.kid) ?? createPublicKey({ key: { ...row.public_jwk }, format: "jwk" }));
        keys = next;
        loadedAt = at;
      } catch (error) {
        // Keep serving the keys we have; the next call tries again.
        logger.warn("reading the signing keys failed; keeping the cached ones", { error });
      } finally {
        loading = undefined;
      }
    })());

  const maybeRefresh = (unknown: boolean): Promise<void> | undefined => {
    const now = clock.now();
    if (now - loadedAt >= interval || now < loadedAt) return refresh();
    if (unknown && now - lastUnknownRefresh >= unknownInterval) {
      lastUnknownRefresh = now;
      return refresh();
    }
    return undefined;
  };

  return {
    publicKey(kid) {
      const key = keys.get(kid);
      void maybeRefresh(key === undefined); // in the background; refresh never rejects
      return key;
    },
    async lookup(kid) {
      const key = keys.get(kid);
      // On an unknown kid, wait for the re-read this call started or the one already in flight.
      const pending = maybeRefresh(key === undefined) ?? loading;
      if (key) return key;
      if (pending) await pending;
      return keys.get(kid);
    },
    refresh,
  };
}
