// The per-app rate limit of partner calls: PARTNER_RATE_LIMIT requests per app per fixed minute, the window
// resetting on the minute boundary, counted in the shared store so every instance shares the count.
//
// When the shared store fails (Redis unreachable or too slow), calls go on, counted per process ("count-in-process",
// runtime/fixed-window.ts): an app may then get up to N x limit across N instances for the length of the outage
// (availability over strictness; docs/decisions.md).
import type { KeyValueStore } from "../storage/key-value.js";
import type { Clock } from "../runtime/clock.js";
import { createFixedWindowCounter, type WindowCount } from "../storage/fixed-window.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";

/** The window of the spec: fixed, one minute. */
export const rateWindowMs = 60_000;

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
  /** Counts each counted decision (hit), allowed or limited; absent: not counted. */
  metrics?: Metrics;
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
  const counter = createFixedWindowCounter({
    store,
    clock,
    logger,
    name: "partner rate limits",
    windowMs: rateWindowMs,
    whenStoreFails: "count-in-process",
  });
  const decide = ({ count, endsAtMs, retryAfter }: WindowCount): RateDecision => ({
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset: endsAtMs / 1000,
    retryAfter,
  });
  const keyOf = (appId: string) => `partner-rate:${appId}`;
  return {
    hit: async (appId) => {
      const decision = decide(await counter.hit(keyOf(appId)));
      options.metrics?.rateLimitDecisions.inc({ decision: decision.allowed ? "allowed" : "limited" });
      return decision;
    },
    peek: async (appId) => decide(await counter.peek(keyOf(appId))),
  };
}
