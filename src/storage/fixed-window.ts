// The one fixed-window counter every limit and throttle counts with: windows of `windowMs` aligned on the epoch,
// one round trip per hit (`store.hit`), and what to do when the store fails chosen by the caller, not coded at
// each site. Ceilings stay with the callers: this only counts.
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createMemoryStore, type KeyValueStore } from "./key-value.js";

/**
 * What a count answers while the store fails (Redis unreachable, or slower than the timeout):
 * - "count-in-process": count in a window of this process only, so each of N instances admits the full ceiling
 *   (availability over strictness, but never unlimited); each call still tries the store first, and the log says so
 *   once per outage;
 * - "throw": let the store's error reach the caller (who answers 503).
 * There is deliberately no "admit": a counter that opens while Redis is away is no security counter at all
 * (docs/decisions.md, "Source tree", store-failure policy).
 */
export type WhenStoreFails = "count-in-process" | "throw";

/**
 * How long "count-in-process" waits for the shared store before counting locally, unless the store says
 * (REDIS_COUNT_TIMEOUT_MS): a slow Redis must not slow every call.
 */
export const sharedStoreTimeoutMs = 250;

export interface FixedWindowCounterOptions {
  store: KeyValueStore;
  clock: Clock;
  logger: Logger;
  /** What is counted, as log lines name it ("partner rate limits", "token throttle"). */
  name: string;
  windowMs: number;
  whenStoreFails: WhenStoreFails;
}

/** A key's count in the current window. */
export interface WindowCount {
  /** Hits in this window (this one included, for `hit`). */
  count: number;
  /** Epoch milliseconds at which the window ends and the next one starts. */
  endsAtMs: number;
  /** Whole seconds until the window ends, at least 1 (Retry-After). */
  retryAfter: number;
}

export interface FixedWindowCounter {
  /** Counts one hit of `key` (unique to the limit) in the current window. */
  hit(key: string): Promise<WindowCount>;
  /** The current window's count of `key`, without counting. */
  peek(key: string): Promise<WindowCount>;
}

export function createFixedWindowCounter(options: FixedWindowCounterOptions): FixedWindowCounter {
  const { clock, windowMs } = options;
  const onFailure = failurePolicy(options);

  const windowNow = () => {
    const now = clock.now();
    const index = Math.floor(now / windowMs);
    const endsAtMs = (index + 1) * windowMs;
    return { index, endsAtMs, retryAfter: Math.max(1, Math.ceil((endsAtMs - now) / 1000)) };
  };
  const count = async (
    key: string,
    operation: (kv: KeyValueStore, key: string, endsAtMs: number) => Promise<number>,
  ) => {
    const window = windowNow();
    const stored = `${key}:${window.index}`;
    // The window's index in the key, not the key's expiry, decides which window a hit counts in, so the key may
    // outlive its window: it is kept one window longer. That costs only memory, and it keeps a count whole while a
    // front's clock lags the one that created the key, or a test's manual clock stands still as real time runs.
    const counted = await onFailure((kv) => operation(kv, stored, window.endsAtMs + windowMs));
    return { count: counted, endsAtMs: window.endsAtMs, retryAfter: window.retryAfter };
  };
  return {
    hit: (key) => count(key, (kv, stored, endsAtMs) => kv.hit(stored, endsAtMs)),
    peek: (key) => count(key, async (kv, stored) => Number((await kv.get(stored)) ?? 0)),
  };
}

/** Runs a count on the store, answering as `whenStoreFails` says when the store fails. */
function failurePolicy(
  options: FixedWindowCounterOptions,
): (operation: (kv: KeyValueStore) => Promise<number>) => Promise<number> {
  const { store, clock, logger, name } = options;
  switch (options.whenStoreFails) {
    case "throw":
      return (operation) => operation(store);
    case "count-in-process": {
      // A store of this process is already what the fallback would be.
      if (!store.shared) return (operation) => operation(store);
      const local = createMemoryStore({ clock });
      const timeoutMs = store.countTimeoutMs ?? sharedStoreTimeoutMs;
      let degraded = false;
      return async (operation) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          });
          const result = await Promise.race([operation(store), timeout]);
          if (degraded) {
            degraded = false;
            logger.info(`${name} are shared again`);
          }
          return result;
        } catch (error) {
          if (!degraded) {
            degraded = true;
            logger.warn(`${name} fall back to per-process windows until the shared store answers`, {
              error: messageOf(error),
            });
          }
          return operation(local);
        } finally {
          clearTimeout(timer);
        }
      };
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
