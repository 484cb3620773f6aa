// What a key-value store is (./key-value.ts makes them: Redis, or a map in process), apart from how one is made, so a
// wrapper of a store (./traced-key-value.ts) depends on the interface alone.

/** The small store the front's limits are built on; both implementations behave the same. */
export interface KeyValueStore {
  /**
   * Adds one hit to the fixed window `key`, created to expire at `expiresAtMs` (epoch ms on the store's clock);
   * returns the count after this hit. One round trip.
   */
  hit(key: string, expiresAtMs: number): Promise<number>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets only if absent; true when it was set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /**
   * Runs `script` on `keys` with `args` as one atomic step: its Lua on Redis (EVALSHA), its `local` twin on the
   * in-process map, synchronously, so nothing else touches the store between its reads and its writes.
   */
  run(script: AtomicScript, keys: string[], args: number[]): Promise<number[]>;
  close(): Promise<void>;
  /** Whether the store answers within `timeoutMs` (readiness, /readyz). Never throws; the in-process store always does. */
  ping(timeoutMs: number): Promise<boolean>;
  /** True for Redis (every instance sees it); false for the in-process store. */
  readonly shared: boolean;
  /** For a shared store: how long a count waits for it before counting in process (REDIS_COUNT_TIMEOUT_MS). */
  readonly countTimeoutMs?: number;
}

/** What an atomic script's in-process twin may do: Redis's GET, SET PX and INCR, on the store's clock. */
export interface LocalEntries {
  get(key: string): string | null;
  /** SET key value PX ttlMs. */
  set(key: string, value: string, ttlMs: number): void;
  /** INCRBY key by, keeping the key's expiry; a new key expires after `ttlMsIfNew`. Returns the new count. */
  incrBy(key: string, by: number, ttlMsIfNew: number): number;
}

/**
 * An operation over several keys that must not interleave with any other (a check and its count): the same rule
 * written twice, in Lua for Redis and as a synchronous function for the in-process store, both returning integers.
 */
export interface AtomicScript {
  /** What the script is called in errors. */
  name: string;
  lua: string;
  local(entries: LocalEntries, keys: string[], args: number[]): number[];
}
