// The budget view: the last X-RateLimit-* values the server sent for this client's app, so a caller can pace
// itself, and the gate that keeps every call of the app out of a window the server has closed with a 429.

import type { ClientClock } from "./options.js";

/** The app's rate window as last seen (spec, Limits: present on every partner response). */
export interface RateBudget {
  /** X-RateLimit-Limit: requests allowed in the window. */
  limit: number;
  /** X-RateLimit-Remaining: requests left in the window when the answer was sent. */
  remaining: number;
  /** X-RateLimit-Reset: Unix seconds when the window rolls over. */
  reset: number;
  /** The client's clock (ms) when the answer arrived. */
  observedAt: number;
}

export interface RateBudgetTracker {
  /** The last values seen; undefined before the first partner answer. */
  current(): RateBudget | undefined;
  /** Reads the headers of a partner answer (answers without them change nothing). */
  record(headers: Headers): void;
  /** After a 429: no call of this app is sent before `untilMs`, the window's end. */
  closeUntil(untilMs: number): void;
  /** Sleeps until a window closed by a 429 has rolled over (at once when none is closed). */
  waitForOpenWindow(): Promise<void>;
}

const integer = (value: string | null) => (value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined);

export function createRateBudgetTracker(clock: ClientClock, sleep: (ms: number) => Promise<void>): RateBudgetTracker {
  let budget: RateBudget | undefined;
  let closedUntil = 0;
  return {
    current: () => (budget === undefined ? undefined : { ...budget }),
    record(headers) {
      const limit = integer(headers.get("x-ratelimit-limit"));
      const remaining = integer(headers.get("x-ratelimit-remaining"));
      const reset = integer(headers.get("x-ratelimit-reset"));
      if (limit === undefined || remaining === undefined || reset === undefined) return;
      budget = { limit, remaining, reset, observedAt: clock.now() };
    },
    closeUntil(untilMs) {
      closedUntil = Math.max(closedUntil, untilMs);
    },
    async waitForOpenWindow() {
      // A loop: another 429 may close the window again while this call sleeps.
      for (let wait = closedUntil - clock.now(); wait > 0; wait = closedUntil - clock.now()) await sleep(wait);
    },
  };
}
