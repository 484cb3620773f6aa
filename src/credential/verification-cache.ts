// The in-process cache of successful verifications. Entries live at most CREDENTIAL_CACHE_SECONDS (and never past
// the secret's own expiry), so a revocation made by any instance takes effect everywhere within that bound.
// Keys are SHA-256 hashes of what was presented, so the cache never holds a secret in clear.
import type { Clock } from "../runtime/clock.js";

/** Entries kept at most; the oldest is dropped first. Bounds memory against floods of distinct valid secrets. */
const maxEntries = 10_000;

export interface VerificationCache<T> {
  get(key: string): T | undefined;
  /** Keeps `value` until `untilMs` or the cache bound, whichever comes first. */
  set(key: string, value: T, untilMs?: number): void;
  /** Drops every entry (this instance revoked something: no need to wait for the bound here). */
  clear(): void;
}

export function createVerificationCache<T>(options: { clock: Clock; seconds: number }): VerificationCache<T> {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  const bound = options.seconds * 1000;
  return {
    get: (key) => {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (options.clock.now() >= entry.expiresAt) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set: (key, value, untilMs) => {
      if (bound <= 0) return;
      const expiresAt = Math.min(options.clock.now() + bound, untilMs ?? Infinity);
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, expiresAt });
    },
    clear: () => entries.clear(),
  };
}
