// A store's wall clock (src/data/store-open.ts, wallClockOf): its offsets are cached by zone and quarter hour, and
// must equal what the platform's tz data says at every instant, across both daylight-saving changes, in zones whose
// offsets are not whole hours, and around an older rule that changed at an odd instant (never cached).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { wallClockOf } from "../../src/data/store-open.js";

const Clock = suite("data/store-clock");

/** The wall clock at `at` as the tz data has it, written independently of the code under test. */
function expectedWallClock(at: number, timeZone: string): number {
  const second = Math.floor(at / 1000) * 1000;
  const text = new Date(second).toLocaleString("sv-SE", { timeZone, hourCycle: "h23" }); // 2026-03-08 03:00:00
  const [date, time] = text.split(" ") as [string, string];
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const [hour, minute, sec] = time.split(":").map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, day, hour, minute, sec) + (at - second);
}

/** Every `stepMs` over the 48 hours around `middle`, each instant read twice (the second a cache hit). */
function checkAround(timeZone: string, middle: number, stepMs: number): void {
  for (let at = middle - 86_400_000; at <= middle + 86_400_000; at += stepMs) {
    const expected = expectedWallClock(at, timeZone);
    assert.is(wallClockOf(at, timeZone), expected, `${timeZone} at ${new Date(at).toISOString()}`);
    assert.is(wallClockOf(at, timeZone), expected, `${timeZone} at ${new Date(at).toISOString()}, again`);
  }
}

Clock("both daylight-saving changes of New York and London, to the second around each jump", () => {
  for (const [zone, change] of [
    ["America/New_York", "2026-03-08T07:00:00Z"],
    ["America/New_York", "2026-11-01T06:00:00Z"],
    ["Europe/London", "2026-03-29T01:00:00Z"],
    ["Europe/London", "2026-10-25T01:00:00Z"],
  ] as const) {
    const jump = Date.parse(change);
    checkAround(zone, jump, 7 * 60_000 + 13_000);
    for (const at of [jump - 1000, jump - 1, jump, jump + 1, jump + 999])
      assert.is(wallClockOf(at, zone), expectedWallClock(at, zone), `${zone} at ${at - jump} ms of the jump`);
  }
});

Clock("zones whose offsets or changes are not whole hours", () => {
  checkAround("Asia/Kathmandu", Date.parse("2026-06-01T00:00:00Z"), 11 * 60_000);
  checkAround("Australia/Lord_Howe", Date.parse("2026-04-04T15:00:00Z"), 5 * 60_000 + 1_000);
  checkAround("Asia/Kolkata", Date.parse("2026-01-01T00:00:00Z"), 17 * 60_000);
});

Clock("an older rule's change at an odd instant is read exactly, not from a cached quarter", () => {
  // Liberia left Monrovia Mean Time (-0:44:30) on 7 January 1972 at 00:44:30 UTC, inside the quarter from 00:30.
  const jump = Date.parse("1972-01-07T00:44:30Z");
  checkAround("Africa/Monrovia", jump, 60_000 + 500);
  for (const at of [jump - 1000, jump, jump + 1, jump + 15_000, jump + 29_999])
    assert.is(
      wallClockOf(at, "Africa/Monrovia"),
      expectedWallClock(at, "Africa/Monrovia"),
      `${at - jump} ms of the change`,
    );
});

Clock.run();
