// Short-lived shared counters and flags (rate windows, throttles, one-time markers): Redis when configured, so
// every instance sees the same counts, or an in-process map with the same semantics for a single process.
import { createHash } from "node:crypto";
import { Redis, type RedisOptions } from "ioredis";
import { systemClock, type Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { storageSpansOn } from "../runtime/tracing.js";
import { dropSilentConnections } from "./redis-silence.js";
import type { AtomicScript, KeyValueStore, LocalEntries } from "./key-value-store.js";
import { tracedKeyValueStore } from "./traced-key-value.js";

export type { AtomicScript, KeyValueStore, LocalEntries } from "./key-value-store.js";

/**
 * INCR, and on the first hit give the window its remaining lifetime, in one script so it is one round trip and
 * no other client can see a counter without an expiry. The lifetime is relative (PEXPIRE, not PEXPIREAT): the
 * window's end is computed on the caller's clock, the same clock that named the window, so a front whose clock
 * is a little off Redis's neither ends a window early nor keeps it late, and an injected clock means the same
 * thing to Redis as to the in-process store.
 */
const hitScript = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** The Redis client with our script registered as a command (run by EVALSHA, EVAL only on a cache miss). */
type ScriptedRedis = Redis & { fixedWindowHit(key: string, ttlMs: number): Promise<number> };

/** How long one Redis command may take before it fails (the caller's fallback or 503 then applies). */
export const redisCommandTimeoutMs = 1000;
/** The longest wait between two reconnection attempts while Redis is away. */
export const redisReconnectCapMs = 1000;

/** Redis behind Sentinel: where the sentinels listen and the name of the primary they watch. */
export interface RedisSentinelOptions {
  sentinels: { host: string; port: number }[];
  name: string;
}

export interface RedisStoreOptions {
  /** redis:// URL; with `sentinel`, only its credentials and database number are used. */
  url?: string;
  /** Ask these sentinels which server is the primary, at every (re)connection. */
  sentinel?: RedisSentinelOptions;
  logger: Logger;
  /** Prepended to every key, so tests (or deployments) sharing one Redis do not collide. */
  prefix?: string;
  /** The clock windows' ends are measured on (`hit`'s expiresAtMs). Default: the system clock. */
  clock?: Clock;
  /** How long a count waits for Redis before counting in process; unset: the counter's default. */
  countTimeoutMs?: number;
  /** How long to wait for the first connection before returning anyway (calls then fail fast). Default 2000 ms. */
  connectTimeoutMs?: number;
}

/** A Redis-backed store. Calls fail fast while Redis is unreachable; the client reconnects by itself. */
export async function createRedisStore(options: RedisStoreOptions): Promise<KeyValueStore> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  const clock = options.clock ?? systemClock;
  const redisOptions: RedisOptions = {
    ...(options.sentinel ? sentinelOptions(options.sentinel) : {}),
    keyPrefix: options.prefix,
    // Fail fast instead of queueing requests while Redis is down: a rate check must not hang a request. With no
    // offline queue a command sent while the connection is not ready fails at once ("Stream isn't writeable").
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // A Redis that accepts the connection but does not answer (stopped, overloaded) fails a command after this.
    commandTimeout: redisCommandTimeoutMs,
    // Reconnect attempts every 100, 200, ... ms, then every redisReconnectCapMs, for ever: a Redis that comes back
    // is in use again within about that long (docs/decisions.md, store-failure policy).
    retryStrategy: (attempt: number) => Math.min(attempt * 100, redisReconnectCapMs),
    connectTimeout: connectTimeoutMs,
    // On close, a socket that already died never emits "close" again, and ioredis then waits this long (default
    // 2 s, on a timer that holds the process open) before destroying it. A healthy QUIT needs far less.
    disconnectTimeout: 200,
    // A command whose connection was dropped already failed to its caller, who answered by its outage policy; sent
    // again on the next connection it would count a hit twice.
    autoResendUnfulfilledCommands: false,
    // Commands issued in the same turn of the event loop (the counts of concurrent calls) go out in one write and are
    // read by Redis in one read: measured, Redis's CPU per partner call fell from 29-43 to 12-14 µs (bench/items.ts).
    enableAutoPipelining: true,
  };
  const redis = (options.url ? new Redis(options.url, redisOptions) : new Redis(redisOptions)) as ScriptedRedis;
  redis.defineCommand("fixedWindowHit", { lua: hitScript, numberOfKeys: 1 });
  const watched = dropSilentConnections(redis, options.logger);
  // EVALSHA, and EVAL once when Redis does not know the script yet (first use, or after a restart).
  const run = async (script: AtomicScript, keys: string[], args: number[]): Promise<number[]> => {
    const sha = createHash("sha1").update(script.lua).digest("hex");
    try {
      return integers(script, await watched(() => redis.evalsha(sha, keys.length, ...keys, ...args)));
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
      return integers(script, await watched(() => redis.eval(script.lua, keys.length, ...keys, ...args)));
    }
  };
  watchOutages(redis, options.logger);
  await firstConnection(redis, connectTimeoutMs);
  return {
    shared: true,
    countTimeoutMs: options.countTimeoutMs,
    hit: (key, expiresAtMs) => watched(() => redis.fixedWindowHit(key, positiveMs(expiresAtMs - clock.now()))),
    get: (key) => watched(() => redis.get(key)),
    set: async (key, value, ttlMs) => {
      await watched(() => redis.set(key, value, "PX", positiveMs(ttlMs)));
    },
    setIfAbsent: async (key, value, ttlMs) =>
      (await watched(() => redis.set(key, value, "PX", positiveMs(ttlMs), "NX"))) === "OK",
    del: async (key) => {
      await watched(() => redis.del(key));
    },
    run,
    close: async () => {
      await redis.quit().catch(() => undefined);
      // QUIT ends the data connection only; with Sentinel, the failover detector's subscriptions to the sentinels
      // stay open (and reconnect) until the connector itself is disconnected.
      redis.disconnect();
    },
    ping: (timeoutMs) => pingRedis(() => watched(() => redis.ping()), timeoutMs),
  };
}

/**
 * The primary is the one the sentinels name now: asked again at every reconnection, and a `+switch-master` the
 * sentinels announce drops the connection at once (failoverDetector) rather than when it next fails. A demoted
 * primary still reachable answers writes READONLY: that connection is dropped too, and the next one asks again.
 */
function sentinelOptions(sentinel: RedisSentinelOptions): RedisOptions {
  return {
    sentinels: sentinel.sentinels,
    name: sentinel.name,
    role: "master",
    failoverDetector: true,
    // A sentinel that does not answer is left for the next one after the store's own command bound.
    sentinelCommandTimeout: redisCommandTimeoutMs,
    // All sentinels unreachable: ask them again after 10, 20, ... ms, at most every second (the data connection's cap).
    sentinelRetryStrategy: (attempt: number) => Math.min(attempt * 10, redisReconnectCapMs),
    reconnectOnError: (error: Error) => error.message.startsWith("READONLY"),
  };
}

/**
 * PING raced against a timer: while Redis is away the command fails at once (no offline queue) or after the command
 * timeout; the answer never waits longer than `timeoutMs`.
 */
async function pingRedis(ping: () => Promise<string>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = ping().then(
    (reply) => reply === "PONG",
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Logs once when Redis becomes unreachable and once when it is back, not once per failed request. */
function watchOutages(redis: Redis, logger: Logger): void {
  let down = false;
  redis.on("error", (error: Error) => {
    if (down) return;
    down = true;
    // The message names host and port only (e.g. "connect ECONNREFUSED 127.0.0.1:6379"), never the password.
    logger.warn("redis unreachable; shared limits fail until it is back", { error: error.message });
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    logger.info("redis reachable again");
  });
}

/** Resolves on the first ready or error, or after the timeout: a down Redis must not block start. */
function firstConnection(redis: Redis, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off("ready", done);
      redis.off("error", done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once("ready", done);
    redis.once("error", done);
  });
}

/** A script's reply, checked to be what every script returns: a list of integers. */
function integers(script: AtomicScript, reply: unknown): number[] {
  if (Array.isArray(reply) && reply.every((value) => typeof value === "number")) return reply;
  throw new Error(`script ${script.name} answered ${JSON.stringify(reply)}, not a list of integers`);
}

/** Redis rejects PX 0 and fractions; a non-positive TTL means "expire as soon as possible". */
function positiveMs(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}

export interface MemoryStoreOptions {
  clock: Clock;
  /** How often expired entries are swept, in real milliseconds (expiry itself follows the clock). Default 60 s. */
  sweepIntervalMs?: number;
}

/** An in-process store for a single instance and for tests; time comes from the injected clock. */
export function createMemoryStore(options: MemoryStoreOptions): KeyValueStore {
  const { clock } = options;
  const entries = new Map<string, { value: string; expiresAtMs: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAtMs <= clock.now()) entries.delete(key);
    return entries.get(key);
  };
  const sweep = () => {
    const now = clock.now();
    for (const [key, entry] of entries) if (entry.expiresAtMs <= now) entries.delete(key);
  };
  const local: LocalEntries = {
    get: (key) => live(key)?.value ?? null,
    set: (key, value, ttlMs) => {
      entries.set(key, { value, expiresAtMs: clock.now() + positiveMs(ttlMs) });
    },
    incrBy: (key, by, ttlMsIfNew) => {
      const entry = live(key);
      const count = (entry ? Number(entry.value) : 0) + by;
      entries.set(key, {
        value: String(count),
        expiresAtMs: entry?.expiresAtMs ?? clock.now() + positiveMs(ttlMsIfNew),
      });
      return count;
    },
  };
  const sweeper = setInterval(sweep, options.sweepIntervalMs ?? 60_000);
  sweeper.unref(); // never keeps the process alive
  return {
    shared: false,
    hit: async (key, expiresAtMs) => {
      const entry = live(key);
      const count = entry ? Number(entry.value) + 1 : 1;
      entries.set(key, { value: String(count), expiresAtMs: entry ? entry.expiresAtMs : expiresAtMs });
      return count;
    },
    get: async (key) => live(key)?.value ?? null,
    set: async (key, value, ttlMs) => {
      entries.set(key, { value, expiresAtMs: clock.now() + positiveMs(ttlMs) });
    },
    setIfAbsent: async (key, value, ttlMs) => {
      if (live(key)) return false;
      entries.set(key, { value, expiresAtMs: clock.now() + positiveMs(ttlMs) });
      return true;
    },
    del: async (key) => {
      entries.delete(key);
    },
    run: async (script, keys, args) => script.local(local, keys, args),
    close: async () => {
      clearInterval(sweeper);
      entries.clear();
    },
    ping: async () => true,
  };
}

export interface OpenKeyValueStoreOptions {
  /** redis:// URL; absent (and no `sentinel`) means the in-process store. */
  url?: string;
  /** Redis behind Sentinel (REDIS_SENTINELS); `url` then gives only credentials and database. */
  sentinel?: RedisSentinelOptions;
  clock: Clock;
  logger: Logger;
  prefix?: string;
  countTimeoutMs?: number;
}

/** Redis when a URL is configured, otherwise the in-process store (and a one-time warning about what that means). */
export async function openKeyValueStore(options: OpenKeyValueStoreOptions): Promise<KeyValueStore> {
  if (options.url || options.sentinel) {
    const store = await createRedisStore({
      url: options.url,
      sentinel: options.sentinel,
      logger: options.logger,
      prefix: options.prefix,
      clock: options.clock,
      countTimeoutMs: options.countTimeoutMs,
    });
    // A span per command when TRACE_STORAGE_SPANS=1 asked for them (./traced-key-value.ts); the URL's path is its
    // database number.
    return storageSpansOn()
      ? tracedKeyValueStore(store, Number(options.url ? new URL(options.url).pathname.slice(1) || 0 : 0))
      : store;
  }
  options.logger.warn("no Redis configured: rate limits and throttles are counted per process, not shared");
  return createMemoryStore({ clock: options.clock });
}
