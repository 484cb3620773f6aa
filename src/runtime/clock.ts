// Time as a dependency: code asks an injected clock, never Date.now(), so tests move time instead of sleeping.

/** A source of the current time in milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
  /**
   * Resolves once `ms` milliseconds of this clock have passed, or at once when `signal` aborts (waits that must
   * follow the clock: the shutdown drain, the health poll). Absent: a real timer (see `sleep`).
   */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A real timer that never keeps the process alive by itself; resolves early when `signal` aborts. */
function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener("abort", done);
  });
}

/** The wall clock, for production. */
export const systemClock: Clock = { now: () => Date.now(), sleep: realSleep };

/** Waits `ms` on `clock` (its own sleep, else a real timer); resolves early when `signal` aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return clock.sleep ? clock.sleep(ms, signal) : realSleep(ms, signal);
}

/** A clock that only moves when told to; for tests. */
export interface ManualClock extends Clock {
  /** Resolves when `advance` or `set` reaches `ms` later than now (at once for 0 or less), or when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Moves time forward (or back, with a negative value) by `ms` milliseconds. */
  advance(ms: number): void;
  /** Jumps to an absolute time in milliseconds since the epoch. */
  set(ms: number): void;
}

export function createManualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let current = startMs;
  const sleepers = new Set<{ at: number; wake: () => void }>();
  const wakeDue = () => {
    for (const sleeper of sleepers) if (sleeper.at <= current) sleeper.wake();
  };
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
      wakeDue();
    },
    set: (ms) => {
      current = ms;
      wakeDue();
    },
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (ms <= 0 || signal?.aborted) return resolve();
        const sleeper = {
          at: current + ms,
          wake: () => {
            sleepers.delete(sleeper);
            signal?.removeEventListener("abort", sleeper.wake);
            resolve();
          },
        };
        sleepers.add(sleeper);
        signal?.addEventListener("abort", sleeper.wake);
      }),
  };
}

/** Whole seconds since the epoch, as JWT and rate-limit headers count time. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
