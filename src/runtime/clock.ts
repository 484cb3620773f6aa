// Time as a dependency: code asks an injected clock, never Date.now(), so tests move time instead of sleeping.

/** A source of the current time in milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
}

/** The wall clock, for production. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests. */
export interface ManualClock extends Clock {
  /** Moves time forward (or back, with a negative value) by `ms` milliseconds. */
  advance(ms: number): void;
  /** Jumps to an absolute time in milliseconds since the epoch. */
  set(ms: number): void;
}

export function createManualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}

/** Whole seconds since the epoch, as JWT and rate-limit headers count time. */
export function epochSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
