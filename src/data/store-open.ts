// Whether a store is open at an instant (issue 39): its opening hours read in its time zone, daylight-saving changes
// included. docs/decisions.md, "The menu: orders that respect the menu": a range of a local date is one interval of
// real time, from the first instant the store's clock shows its opening to the last instant it shows a time before
// its closing. A range that opens or closes inside a spring-forward gap does so at the jump; on a fall-back night
// an opening in the repeated hour is its first pass and a closing its second, so no range closes and opens again.
import type { StoredOpeningHours, StoredRange } from "./opening-hours.js";
import { spanOf } from "./opening-hours.js";
import { systemClock } from "../runtime/clock.js";
import { createBoundedCache } from "../runtime/ttl-cache.js";

const minuteMs = 60_000;
const dayMs = 86_400_000;
const weekdayNames = ["SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"];

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The zone's offset (wall clock minus UTC) at the whole second `second` (ms), read from the platform's tz data. */
function exactOffsetAt(second: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(second)))
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  const local = Date.UTC(
    parts["year"]!,
    parts["month"]! - 1,
    parts["day"]!,
    parts["hour"]!,
    parts["minute"]!,
    parts["second"]!,
  );
  return local - second;
}

/**
 * Offsets by zone and quarter hour. formatToParts costs about 10 µs and a placement's hours check asks for a dozen
 * offsets (bench:orders' profile: 4% of a placement's CPU), all of them near now and near the same few openings.
 * Every rule of the tz database since 1970 changes offsets at a whole quarter hour, so a quarter whose first and last
 * seconds agree has one offset throughout; one that holds a change (an older rule's odd instant) is never cached.
 */
const quarterMs = 15 * minuteMs;
/** Zone and quarter → offset; offsets never change, so entries end only when the least used are pushed out. */
const offsetCache = createBoundedCache<number>({ clock: systemClock, ttlMs: Infinity, maxEntries: 16_384 });

/** The zone's offset (wall clock minus UTC) at `at`. */
function offsetAt(at: number, timeZone: string): number {
  const quarter = Math.floor(at / quarterMs);
  const key = `${timeZone} ${quarter}`;
  const cached = offsetCache.get(key);
  if (cached !== undefined) return cached;
  const first = exactOffsetAt(quarter * quarterMs, timeZone);
  const last = exactOffsetAt((quarter + 1) * quarterMs - 1000, timeZone);
  if (first !== last) return exactOffsetAt(Math.floor(at / 1000) * 1000, timeZone);
  offsetCache.set(key, first);
  return first;
}

/** The store's wall clock at `at`, as milliseconds of a UTC timeline (local midnight of 2026-03-08 is that day's 0 h). */
export function wallClockOf(at: number, timeZone: string): number {
  return at + offsetAt(at, timeZone);
}

/**
 * The instant a wall-clock time `local` (ms on the UTC timeline, see wallClockOf) resolves to: `first` is the first
 * instant the clock shows it (an opening), `last` the last one (a closing: from then on the clock never shows an
 * earlier time). Both are the jump itself when `local` falls in a spring-forward gap.
 */
function instantOf(local: number, timeZone: string, pass: "first" | "last"): number {
  // Zone offsets change at most a few times a year and by less than a day: the two around `local` cover both sides.
  const offsets = [...new Set([offsetAt(local - dayMs, timeZone), offsetAt(local + dayMs, timeZone)])];
  const matches = offsets.map((offset) => local - offset).filter((at) => wallClockOf(at, timeZone) === local);
  if (matches.length > 0) return pass === "first" ? Math.min(...matches) : Math.max(...matches);
  // In a gap: the clock jumps over `local` at one instant, between the two candidates; find it to the minute.
  let [low, high] = offsets.map((offset) => local - offset).sort((a, b) => a - b) as [number, number];
  while (high - low > minuteMs) {
    const middle = low + Math.max(1, Math.floor((high - low) / 2 / minuteMs)) * minuteMs;
    if (wallClockOf(middle, timeZone) < local) low = middle;
    else high = middle;
  }
  return high;
}

/** The ranges that open on a local date (ms of its midnight): its dated exception's, else its weekday's. */
function rangesOn(hours: StoredOpeningHours, midnight: number): StoredRange[] {
  const date = new Date(midnight).toISOString().slice(0, 10);
  const exception = hours.exceptions.find((candidate) => candidate.date === date);
  if (exception) return exception.ranges;
  const weekday = weekdayNames[new Date(midnight).getUTCDay()];
  return hours.weekly.find((day) => day.day === weekday)?.ranges ?? [];
}

/**
 * Whether hours published for `timeZone` have the store open at `at`: a range of the local date or of the day
 * before (one past midnight) that holds it. A store without published hours (null) is not judged by them.
 */
export function isOpenAt(hours: StoredOpeningHours | null, timeZone: string, at: number): boolean {
  if (hours === null) return true;
  const today = Math.floor(wallClockOf(at, timeZone) / dayMs) * dayMs;
  for (const midnight of [today - dayMs, today]) {
    for (const range of rangesOn(hours, midnight)) {
      const [open, close] = spanOf(range);
      const opens = instantOf(midnight + open * minuteMs, timeZone, "first");
      const closes = instantOf(midnight + close * minuteMs, timeZone, "last");
      if (opens <= at && at < closes) return true;
    }
  }
  return false;
}
