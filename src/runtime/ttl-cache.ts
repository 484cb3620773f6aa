// A small in-process cache with a hard bound on both staleness (entries live `ttlMs` on the injected clock) and
// size (the oldest entry goes when full). Concurrent misses for one key share one load, so a burst of calls for a
// cold merchant costs one database read. A failed load is not cached.
import type { Clock } from "./clock.js";

export interface TtlCacheOptions {
  clock: Clock;
  /** How long a loaded value is served; 0 disables caching (every call loads). */
  ttlMs: number;
  /** Most entries kept; the oldest is dropped beyond this. */
  maxEntries: number;
}

export interface TtlCache<V> {
  /** The cached value of `key`, or the value `load` gives (then cached for ttlMs). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Forgets `key` (after a local change that must show at once). */
  delete(key: string): void;
}

export function createTtlCache<V>(options: TtlCacheOptions): TtlCache<V> {
  const { clock, ttlMs, maxEntries } = options;
  const entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  return {
    get(key, load) {
      const now = clock.now();
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now) return entry.value;
      if (entry) entries.delete(key);
      const value = load();
      if (ttlMs <= 0) return value;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: now + ttlMs });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
    delete(key) {
      entries.delete(key);
    },
  };
}
