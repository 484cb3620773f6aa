// The one bounded in-process cache: lru-cache, adapted to our clock and our options. Staleness is bounded (entries
// live `ttlMs` on the injected clock, or less when an entry has its own end) and so is size (the least recently
// used entry goes when full). Two faces: `createBoundedCache` holds values (synchronous, for the per-request path),
// and `createTtlCache` holds loads through lru-cache's `fetch`, so concurrent misses for one key share one load (a
// burst of calls for a cold merchant costs one database read) and a failed load is not cached.
import { LRUCache } from "lru-cache";
import type { Clock } from "./clock.js";

export interface TtlCacheOptions {
  clock: Clock;
  /** How long a value is served at most (Infinity: until evicted); 0 disables caching (`set` keeps nothing). */
  ttlMs: number;
  /** Most entries kept; the least recently used is dropped beyond this. 0 disables caching. */
  maxEntries: number;
}

/**
 * lru-cache's `ttl` for an entry that must be gone at `endMs`, or undefined when it must not be kept at all.
 * lru-cache serves an entry while its age is at most `ttl` (ours end at `endMs`, exclusive: hence the 1), and a
 * `ttl` of 0 means no end.
 */
function ttlUntil(endMs: number, nowMs: number): number | undefined {
  if (endMs === Infinity) return 0;
  const ttl = endMs - nowMs - 1;
  return ttl >= 1 ? ttl : undefined;
}

/** The `ttl` of a value set now: kept ttlMs, or until `untilMs` when that comes first. */
function ttlOfSet(clock: Clock, ttlMs: number, untilMs: number | undefined): number | undefined {
  const now = clock.now();
  return ttlUntil(Math.min(now + ttlMs, untilMs ?? Infinity), now);
}

/**
 * The lru-cache options every cache shares: time from the injected clock, read on each check (`ttlResolution` 0:
 * lru-cache otherwise keeps a read for 1 ms of real time with a timer), and no purge timers (`ttlAutopurge` off: a
 * stale entry goes when next read or when pushed out). No default `ttl`: each entry gets its own from `ttlUntil`.
 * lru-cache treats a start time of 0 as "no end", which epoch milliseconds never are.
 */
const lruOptions = (clock: Clock, maxEntries: number) =>
  ({ max: maxEntries, perf: clock, ttlResolution: 0, ttlAutopurge: false }) as const;

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

/** Keeps nothing: a cache with ttlMs or maxEntries 0 (lru-cache needs a positive bound). */
const noValues: BoundedCache<never> = { get: () => undefined, set() {}, delete() {}, clear() {} };

export function createBoundedCache<V extends {}>(options: TtlCacheOptions): BoundedCache<V> {
  const { clock, ttlMs, maxEntries } = options;
  if (ttlMs <= 0 || maxEntries <= 0) return noValues;
  const entries = new LRUCache<string, V>(lruOptions(clock, maxEntries));
  return {
    get: (key) => entries.get(key),
    set(key, value, untilMs) {
      const ttl = ttlOfSet(clock, ttlMs, untilMs);
      if (ttl === undefined) entries.delete(key);
      else entries.set(key, value, { ttl });
    },
    delete(key) {
      entries.delete(key);
    },
    clear: () => entries.clear(),
  };
}

export interface TtlCache<V> {
  /** The cached value of `key`, or the value `load` gives (then cached for ttlMs from the load's start). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** The cached value of `key` without loading: undefined when absent, past its end, or still loading. */
  peek(key: string): Promise<V> | undefined;
  /** Caches a value already known until ttlMs or `untilMs` (e.g. a secret's own expiry), whichever comes first. */
  set(key: string, value: V, untilMs?: number): void;
  /** Forgets `key` (after a local change that must show at once); a load in flight still answers its callers. */
  delete(key: string): void;
  /** Forgets every entry. */
  clear(): void;
}

export function createTtlCache<V>(options: TtlCacheOptions): TtlCache<V> {
  const { clock, ttlMs, maxEntries } = options;
  if (ttlMs <= 0 || maxEntries <= 0) {
    return { get: (_key, load) => load(), peek: () => undefined, set() {}, delete() {}, clear() {} };
  }
  // Values are boxed: lru-cache reads an undefined value as "absent", and "no such merchant" is an answer to keep.
  const entries = new LRUCache<string, { value: V }, () => Promise<V>>({
    ...lruOptions(clock, maxEntries),
    fetchMethod: async (_key, _stale, { options: entry, context: load }) => {
      // The bound counts from the load's start, as if the answer were read then: lru-cache would count from its
      // end. A load slower than the whole bound keeps its answer 2 ms (lru-cache cannot keep a fetched value for 0).
      const end = clock.now() + ttlMs;
      const value = await load();
      entry.ttl = ttlUntil(end, clock.now()) ?? 1;
      return { value };
    },
    // A load pushed out (or deleted) while in flight still answers its callers, without being kept; by default
    // lru-cache would reject them, and a full cache under a burst of distinct keys would fail calls.
    ignoreFetchAbort: true,
  });
  return {
    get(key, load) {
      // A hit is read synchronously: through `fetch` (two async calls more) a hit cost about twice as much.
      const hit = entries.get(key);
      if (hit) return Promise.resolve(hit.value);
      return entries.fetch(key, { context: load }).then((entry) => entry!.value);
    },
    peek(key) {
      const entry = entries.get(key);
      return entry && Promise.resolve(entry.value);
    },
    set(key, value, untilMs) {
      const ttl = ttlOfSet(clock, ttlMs, untilMs);
      if (ttl === undefined) entries.delete(key);
      else entries.set(key, { value }, { ttl });
    },
    delete(key) {
      entries.delete(key);
    },
    clear: () => entries.clear(),
  };
}
