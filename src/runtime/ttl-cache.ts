// The one bounded in-process cache, with a hard bound on both staleness (entries live `ttlMs` on the injected clock,
// or less when an entry has its own end) and size (the oldest entry goes when full). Two faces of one mechanism:
// `createBoundedCache` holds values (synchronous, for the per-request path), and `createTtlCache` holds loads on
// top of it, so concurrent misses for one key share one load (a burst of calls for a cold merchant costs one
// database read) and a failed load is not cached.
import type { Clock } from "./clock.js";

export interface TtlCacheOptions {
  clock: Clock;
  /** How long a value is served at most (Infinity: until evicted); 0 disables caching (`set` keeps nothing). */
  ttlMs: number;
  /** Most entries kept; the oldest is dropped beyond this. */
  maxEntries: number;
}

export interface BoundedCache<V> {
  /** The value of `key`; undefined when absent or past its end. */
  get(key: string): V | undefined;
  /** Keeps a value until ttlMs or `untilMs` (e.g. a secret's own expiry), whichever comes first. */
  set(key: string, value: V, untilMs?: number): void;
  /** Forgets `key` (after a local change that must show at once). */
  delete(key: string): void;
  /** Forgets every entry. */
  clear(): void;
}

export function createBoundedCache<V>(options: TtlCacheOptions): BoundedCache<V> {
  const { clock, ttlMs, maxEntries } = options;
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt > clock.now()) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key, value, untilMs) {
      if (ttlMs <= 0) return;
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: Math.min(clock.now() + ttlMs, untilMs ?? Infinity) });
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
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
  const loads = createBoundedCache<Promise<V>>(options);
  return {
    get(key, load) {
      const cached = loads.get(key);
      if (cached !== undefined) return cached;
      const value = load();
      loads.set(key, value);
      value.catch(() => {
        if (loads.get(key) === value) loads.delete(key);
      });
      return value;
    },
    peek: (key) => loads.get(key),
    set: (key, value, untilMs) => loads.set(key, Promise.resolve(value), untilMs),
    delete: (key) => loads.delete(key),
    clear: () => loads.clear(),
  };
}
