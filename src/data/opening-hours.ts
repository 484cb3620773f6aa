// A store's time zone and opening hours (issue 39): checked before they are stored, kept as the wire spells them
// (weekday names, HH:MM local times), so the stored JSON is what GET /v1/stores/{id} answers. docs/decisions.md,
// "The menu: stores": a close at or before its open runs past midnight; a day not listed is closed; a dated
// exception replaces its weekday's ranges for that date.
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  DataService,
  type OpeningHours,
  type OpeningHoursSchema,
  WeekdaySchema,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { serviceError } from "../errors/index.js";
import { enumNumberOf, wireEnumName } from "../runtime/wire/index.js";

export interface StoredRange {
  open: string;
  close: string;
}

/** Opening hours as stored in stores.opening_hours and answered on the wire. */
export interface StoredOpeningHours {
  weekly: Array<{ day: string; ranges: StoredRange[] }>;
  exceptions: Array<{ date: string; ranges: StoredRange[]; note?: string }>;
}

const minutesPerDay = 1440;
const minutesPerWeek = 7 * minutesPerDay;

const invalidHours = (field: string) => serviceError(DataService.typeName, "partner.opening_hours_invalid", { field });

/**
 * Whether `name` is an IANA time zone name as the tz database spells it: one Intl knows and resolves to itself, so
 * "europe/london" (a case Intl forgives) and "EST" (which Intl maps to America/Panama) are refused, and an offset
 * ("+05:30") is not a zone.
 */
export function isIanaTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone === name;
  } catch {
    return false;
  }
}

/** Minutes after the start of its day of an HH:MM the field rules let through (24:00 is 1440). */
export function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** A range as [start, end) minutes from the start of its day; an end at or before the start runs into the next day. */
export function spanOf(range: StoredRange): [number, number] {
  const open = minutesOf(range.open);
  const close = minutesOf(range.close);
  return [open, close <= open ? close + minutesPerDay : close];
}

/** The index of the first span of `spans` (sorted by start) that overlaps the one before it; -1 when none does. */
function firstOverlap(spans: Array<{ start: number; end: number }>): number {
  for (let index = 1; index < spans.length; index++) {
    if (spans[index]!.start < spans[index - 1]!.end) return index;
  }
  return -1;
}

function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Refuses a range that opens and closes at the same time (24:00 opening at 00:00 is the whole day, not nothing). */
function checkRanges(ranges: StoredRange[], field: string): void {
  ranges.forEach((range, index) => {
    if (range.open === range.close) throw invalidHours(`${field}[${index}]`);
  });
}

/** The weekly ranges on one week's timeline (Monday 00:00 is 0), wrapping Sunday night into Monday morning. */
function checkWeek(weekly: StoredOpeningHours["weekly"]): void {
  const seen = new Set<string>();
  const spans: Array<{ start: number; end: number; field: string }> = [];
  weekly.forEach((day, dayIndex) => {
    const field = `openingHours.weekly[${dayIndex}]`;
    if (seen.has(day.day)) throw invalidHours(`${field}.day`);
    seen.add(day.day);
    checkRanges(day.ranges, `${field}.ranges`);
    const offset = (enumNumberOf(WeekdaySchema, day.day)! - 1) * minutesPerDay;
    day.ranges.forEach((range, index) => {
      const [start, end] = spanOf(range);
      spans.push({ start: offset + start, end: offset + end, field: `${field}.ranges[${index}]` });
    });
  });
  spans.sort((a, b) => a.start - b.start);
  const overlap = firstOverlap(spans);
  if (overlap >= 0) throw invalidHours(spans[overlap]!.field);
  // Sunday's late range that runs past midnight must end before Monday's first opens.
  const last = spans[spans.length - 1];
  const first = spans[0];
  if (last && first && last !== first && last.end - minutesPerWeek > first.start) throw invalidHours(last.field);
}

function checkExceptions(exceptions: StoredOpeningHours["exceptions"]): void {
  const seen = new Set<string>();
  exceptions.forEach((exception, index) => {
    const field = `openingHours.exceptions[${index}]`;
    if (!isCalendarDate(exception.date) || seen.has(exception.date)) throw invalidHours(`${field}.date`);
    seen.add(exception.date);
    checkRanges(exception.ranges, `${field}.ranges`);
    const spans = exception.ranges
      .map((range, rangeIndex) => {
        const [start, end] = spanOf(range);
        return { start, end, field: `${field}.ranges[${rangeIndex}]` };
      })
      .sort((a, b) => a.start - b.start);
    const overlap = firstOverlap(spans);
    if (overlap >= 0) throw invalidHours(spans[overlap]!.field);
  });
}

/**
 * The stored form of hours a request sends, after the field rules (HH:MM, a weekday named, a date's shape): each
 * weekday and each date once, a range never empty, the ranges of a week (or of a date) apart from each other.
 * Refused with partner.opening_hours_invalid naming the first offending field.
 */
export function checkedOpeningHours(hours: OpeningHours): StoredOpeningHours {
  const ranges = (list: { open: string; close: string }[]) => list.map(({ open, close }) => ({ open, close }));
  const stored: StoredOpeningHours = {
    weekly: hours.weekly.map((day) => ({
      day: wireEnumName(WeekdaySchema, day.day) ?? "",
      ranges: ranges(day.ranges),
    })),
    exceptions: hours.exceptions.map((exception) => ({
      date: exception.date,
      ranges: ranges(exception.ranges),
      ...(exception.note === undefined ? {} : { note: exception.note }),
    })),
  };
  checkWeek(stored.weekly);
  checkExceptions(stored.exceptions);
  // Kept in a reader's order: Monday first, dates ascending.
  stored.weekly.sort((a, b) => enumNumberOf(WeekdaySchema, a.day)! - enumNumberOf(WeekdaySchema, b.day)!);
  stored.exceptions.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return stored;
}

/** The wire message of stored hours. */
export function openingHoursOf(stored: StoredOpeningHours): MessageInitShape<typeof OpeningHoursSchema> {
  return {
    weekly: stored.weekly.map((day) => ({ day: enumNumberOf(WeekdaySchema, day.day) ?? 0, ranges: day.ranges })),
    exceptions: stored.exceptions.map((exception) => ({ ...exception })),
  };
}
