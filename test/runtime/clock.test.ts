// src/runtime/clock.ts: time as a dependency: the system clock, the manual clock tests move, and whole epoch seconds.
import { getEventListeners } from "node:events";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock, epochSeconds, sleep, systemClock } from "../../src/runtime/clock.js";

const Clock = suite("runtime/clock");

Clock("a manual clock starts at 2026-01-01T00:00:00Z unless told otherwise, and stays there", () => {
  const clock = createManualClock();
  assert.is(clock.now(), Date.UTC(2026, 0, 1));
  assert.is(new Date(clock.now()).toISOString(), "2026-01-01T00:00:00.000Z");
  assert.is(clock.now(), Date.UTC(2026, 0, 1));
  assert.is(createManualClock(1234).now(), 1234);
  assert.is(createManualClock(0).now(), 0);
});

Clock("advance moves forward and, with a negative value, back; set jumps", () => {
  const clock = createManualClock(1_000);
  clock.advance(500);
  assert.is(clock.now(), 1_500);
  clock.advance(-1_200);
  assert.is(clock.now(), 300);
  clock.set(Date.UTC(2030, 5, 15));
  assert.is(clock.now(), Date.UTC(2030, 5, 15));
  clock.advance(1);
  assert.is(clock.now(), Date.UTC(2030, 5, 15) + 1);
});

Clock("each manual clock has its own time", () => {
  const a = createManualClock(0);
  const b = createManualClock(0);
  a.advance(10);
  assert.equal([a.now(), b.now()], [10, 0]);
});

Clock("epoch seconds: whole seconds, rounded down", () => {
  const clock = createManualClock(1_999);
  assert.is(epochSeconds(clock), 1);
  clock.set(2_000);
  assert.is(epochSeconds(clock), 2);
  assert.is(epochSeconds(createManualClock()), 1767225600);
});

Clock("the system clock reads Date.now()", () => {
  const before = Date.now();
  const now = systemClock.now();
  const after = Date.now();
  assert.ok(before <= now && now <= after);
});

Clock("a manual clock's sleep resolves when advance or set reaches its end, not before", async () => {
  const clock = createManualClock(1_000);
  const woke: string[] = [];
  const two = clock.sleep(2_000).then(() => woke.push("two"));
  const five = clock.sleep(5_000).then(() => woke.push("five"));
  clock.advance(1_999);
  await Promise.resolve();
  assert.equal(woke, []);
  clock.advance(1);
  await two;
  assert.equal(woke, ["two"]);
  clock.set(6_000);
  await five;
  assert.equal(woke, ["two", "five"]);
});

Clock("a manual clock's sleep of 0 resolves at once, and an abort ends a sleep early", async () => {
  const clock = createManualClock();
  await clock.sleep(0);
  const controller = new AbortController();
  let woke = false;
  const pending = clock.sleep(60_000, controller.signal).then(() => (woke = true));
  await Promise.resolve();
  assert.is(woke, false);
  controller.abort();
  await pending;
  assert.is(woke, true);
});

Clock("sleep on a clock without its own sleep uses a real timer that an abort ends", async () => {
  const controller = new AbortController();
  let woke = false;
  const pending = sleep({ now: () => 0 }, 3_600_000, controller.signal).then(() => (woke = true));
  // A whole turn of the event loop: an hour's timer has not fired, and the sleep listens for the abort.
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(woke, false);
  assert.is(getEventListeners(controller.signal, "abort").length, 1);
  controller.abort();
  await pending;
  assert.is(woke, true);
  // Woken, it stops listening: a long-lived signal does not collect one listener per sleep.
  assert.is(getEventListeners(controller.signal, "abort").length, 0);
});

Clock("a real sleep of 0, or on a signal already aborted, resolves without waiting for a timer", async () => {
  const order: string[] = [];
  const zero = sleep(systemClock, 0).then(() => order.push("zero"));
  const aborted = sleep(systemClock, 3_600_000, AbortSignal.abort()).then(() => order.push("aborted"));
  // Both resolve in the microtasks of this turn, before a timer of the next one could fire.
  const timer = new Promise((resolve) => setTimeout(resolve, 0)).then(() => order.push("timer"));
  await Promise.all([zero, aborted, timer]);
  assert.equal(order, ["zero", "aborted", "timer"]);
});

Clock.run();
