// For waits on the injected clock that a test cannot see begin (a slowed sign-in): the manual clock moves a second
// at a time, on a short real-time tick, until the answer comes.
import type { ManualClock } from "../../src/runtime/clock.js";

/** Resolves `answer` while moving `clock` a second at a time; returns the answer and how far the clock moved. */
export async function advancing<T>(clock: ManualClock, answer: Promise<T>): Promise<{ value: T; movedMs: number }> {
  let settled = false;
  let movedMs = 0;
  const value = answer.finally(() => (settled = true));
  while (!settled) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (settled) break;
    clock.advance(1000);
    movedMs += 1000;
  }
  return { value: await value, movedMs };
}
