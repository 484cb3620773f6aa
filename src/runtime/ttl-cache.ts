// The one small in-process cache, with a hard bound on both staleness (entries live `ttlMs` on the injected clock,
// or less when an entry has its own end) and size (the oldest entry goes when full). Concurrent misses for one key
// share one load, so a burst of calls for a cold merchant costs one database read. A failed load is not cached.
import type { Clock } from "./clock.js";

export interface TtlCacheOptions {
  clock: Clock;
  /** How long a value is served at most; 0 disables caching (every call loads, `set` keeps nothing). */
  ttlMs: number;
  /** Most entries kept; the oldest is dropped beyond this. */
  maxEntries: number;
}

export interface TtlCache<V> {
  /** The cached value of `key`, or the value `load` gives (then cached for ttlMs). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** The cached value of `key` without loading: undefined when absent or past its end. */
  peek(key: string): Promise<V> | undefined;
  /** Caches a value already known until ttlMs or `untilMs` (e.g. a secret's own expiry), whichever comes first. */
  set(key: string, value: V, untilMs?: number): void;
  /** Forgets `key` (after a local change that must show at once). */
  delete(key: string): void;
  /** Forgets every entry. */
  clear(): void;
}

export function createTtlCache<V>(options: TtlCacheOptions): TtlCache<V> {
  const { clock, ttlMs, maxEntries } = options;
  const entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  /** The entry of `key` if still live; a dead one is dropped. */
  const live = (key: string, now: number) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt > now) return entry;
    if (entry) entries.delete(key);
    return undefined;
  };
  /** Stores `key` as the newest entry, making room first. */
  const put = (key: string, value: Promise<V>, expiresAt: number) => {
    entries.delete(key);
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(key, { value, expiresAt });
  };
  return {
    get(key, load) {
      const now = clock.now();
      const entry = live(key, now);
      if (entry) return entry.value;
      const value = load();
      if (ttlMs <= 0) return value;
      put(key, value, now + ttlMs);
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
    peek(key) {
      return live(key, clock.now())?.value;
    },
    set(key, value, untilMs) {
      if (ttlMs <= 0) return;
      put(key, Promise.resolve(value), Math.min(clock.now() + ttlMs, untilMs ?? Infinity));
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
}
