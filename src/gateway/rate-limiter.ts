// The per-app rate limit of partner calls: PARTNER_RATE_LIMIT requests per app per fixed minute, the window
// resetting on the minute boundary, counted with one round trip (`kv.hit`) so every instance shares the count.
//
// When the shared store fails (Redis unreachable or too slow), calls go on, counted in a window of this process
// only: each instance then admits up to the full limit on its own, so an app may get up to N x limit across N
// instances for the length of the outage (availability over strictness; docs/decisions.md). Each call still tries
// the shared store first, so counting is shared again as soon as it answers. The log says so once per outage.
import { createMemoryStore, type KeyValueStore } from "../storage/key-value.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";

/** The window of the spec: fixed, one minute. */
export const rateWindowMs = 60_000;

/** How long a call waits for the shared store before counting locally: a slow Redis must not slow every call. */
export const sharedStoreTimeoutMs = 250;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds of the next minute boundary (X-RateLimit-Reset). */
  reset: number;
  /** Whole seconds until the window resets, at least 1 (Retry-After and the 429 message). */
  retryAfter: number;
}

export interface RateLimiterOptions {
  store: KeyValueStore;
  limit: number;
  clock: Clock;
  logger: Logger;
}

export interface RateLimiter {
  /** Counts one call of `appId` in the current window. */
  hit(appId: string): Promise<RateDecision>;
  /** The current window of `appId` without counting (for calls refused before the limit step). */
  peek(appId: string): Promise<RateDecision>;
}

/** The X-RateLimit-* headers of a decision (spec, Limits). */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(decision.reset),
  };
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { store, limit, clock, logger } = options;
  const local = store.shared ? createMemoryStore({ clock }) : store;
  let degraded = false;

  /** Runs `operation` on the shared store; on failure or timeout, on the local one (logging once per outage). */
  async function withFallback<T>(operation: (kv: KeyValueStore) => Promise<T>): Promise<T> {
    if (local === store) return operation(store);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${sharedStoreTimeoutMs} ms`)), sharedStoreTimeoutMs);
      });
      const result = await Promise.race([operation(store), timeout]);
      if (degraded) {
        degraded = false;
        logger.info("partner rate limits are shared again");
      }
      return result;
    } catch (error) {
      if (!degraded) {
        degraded = true;
        logger.warn("partner rate limits fall back to per-process windows until the shared store answers", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      return operation(local);
    } finally {
      clearTimeout(timer);
    }
  }

  const windowOf = () => {
    const now = clock.now();
    const start = Math.floor(now / rateWindowMs) * rateWindowMs;
    const end = start + rateWindowMs;
    return { start, end, retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
  };
  const decide = (count: number, window: ReturnType<typeof windowOf>): RateDecision => ({
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset: window.end / 1000,
    retryAfter: window.retryAfter,
  });
  const keyOf = (appId: string, start: number) => `partner-rate:${appId}:${start / 1000}`;

  return {
    async hit(appId) {
      const window = windowOf();
      const key = keyOf(appId, window.start);
      const count = await withFallback((kv) => kv.hit(key, window.end));
      return decide(count, window);
    },
    async peek(appId) {
      const window = windowOf();
      const key = keyOf(appId, window.start);
      const count = await withFallback((kv) => kv.get(key));
      return decide(Number(count ?? 0), window);
    },
  };
}
