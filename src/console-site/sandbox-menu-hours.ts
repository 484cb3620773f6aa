// A store's opening hours on the console's menu page: shown as a week (Monday first, a day not listed is closed),
// edited as one line a day ("09:00-14:00, 17:00-23:30": a close at or before its open runs past midnight, 00:00-24:00
// is the whole day, empty is closed), read strictly, and a refusal of the region's check (an overlap, an empty range)
// said at the day it names. The store's dated exceptions are not edited here and are sent back as they are.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type OpeningHoursSchema, type Store, Weekday } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { MessageKey } from "../web/i18n.js";
import type { RegionError } from "./region-call.js";

export const weekdays = [
  { day: Weekday.MONDAY, slug: "monday", label: "console.weekdayMonday" },
  { day: Weekday.TUESDAY, slug: "tuesday", label: "console.weekdayTuesday" },
  { day: Weekday.WEDNESDAY, slug: "wednesday", label: "console.weekdayWednesday" },
  { day: Weekday.THURSDAY, slug: "thursday", label: "console.weekdayThursday" },
  { day: Weekday.FRIDAY, slug: "friday", label: "console.weekdayFriday" },
  { day: Weekday.SATURDAY, slug: "saturday", label: "console.weekdaySaturday" },
  { day: Weekday.SUNDAY, slug: "sunday", label: "console.weekdaySunday" },
] as const satisfies ReadonlyArray<{ day: Weekday; slug: string; label: MessageKey }>;
export type WeekdaySlug = (typeof weekdays)[number]["slug"];

/** The API's limit of ranges a day (WeekdayHours.ranges max_items). */
export const maxRangesPerDay = 6;
/** The longest line a day's field takes (six ranges and their separators, generously). */
const maxLineLength = 200;

const open = "([01][0-9]|2[0-3]):[0-5][0-9]";
const close = `(?:${open}|24:00)`;
const rangePattern = new RegExp(`^(${open})\\s*[-\u2013\u2014]\\s*(${close})$`);

interface Range {
  open: string;
  close: string;
}

/** A day's ranges as its field shows them ("09:00-14:00, 17:00-23:30"; empty: closed). */
export function dayLine(store: Store, day: Weekday): string {
  const found = store.openingHours?.weekly.find((entry) => entry.day === day);
  return (found?.ranges ?? []).map((range) => `${range.open}-${range.close}`).join(", ");
}

/** A day's field read strictly: its ranges, or undefined when a piece is not HH:MM-HH:MM (or there are too many). */
export function parseDayLine(text: string): Range[] | undefined {
  const line = text.trim();
  if (line === "") return [];
  if (line.length > maxLineLength) return undefined;
  const pieces = line.split(/\s*[,;]\s*/);
  if (pieces.length > maxRangesPerDay) return undefined;
  const ranges: Range[] = [];
  for (const piece of pieces) {
    const match = rangePattern.exec(piece);
    if (!match) return undefined;
    ranges.push({ open: match[1]!, close: match[3]! });
  }
  return ranges;
}

export type HoursForm =
  | { ok: true; hours: MessageInitShape<typeof OpeningHoursSchema>; sentDays: WeekdaySlug[] }
  | { ok: false; badDays: WeekdaySlug[] };

/**
 * The hours a form asks for: every day's line read (a day with an unreadable line is named, all of them at once),
 * the week in Monday-first order, the store's dated exceptions kept whole. `sentDays`: the weekday of each entry of
 * `weekly`, to say a refusal naming `openingHours.weekly[i]` at its day.
 */
export function hoursOfForm(form: URLSearchParams, store: Store): HoursForm {
  const badDays: WeekdaySlug[] = [];
  const weekly: Array<{ day: Weekday; ranges: Range[] }> = [];
  const sentDays: WeekdaySlug[] = [];
  for (const { day, slug } of weekdays) {
    const ranges = parseDayLine(form.get(slug) ?? "");
    if (!ranges) badDays.push(slug);
    else if (ranges.length > 0) {
      weekly.push({ day, ranges });
      sentDays.push(slug);
    }
  }
  if (badDays.length > 0) return { ok: false, badDays };
  const exceptions = (store.openingHours?.exceptions ?? []).map((exception) => ({
    date: exception.date,
    ranges: exception.ranges.map((range) => ({ open: range.open, close: range.close })),
    ...(exception.note === undefined ? {} : { note: exception.note }),
  }));
  return { ok: true, hours: { weekly, exceptions }, sentDays };
}

/** The day a refusal of the region's hours check names (`openingHours.weekly[i]...`), when it names one. */
export function refusedDay(error: RegionError, sentDays: readonly WeekdaySlug[]): WeekdaySlug | undefined {
  const match = /^openingHours\.weekly\[(\d+)\]/.exec(error.params["field"] ?? "");
  return match ? sentDays[Number(match[1])] : undefined;
}
