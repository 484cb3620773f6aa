// The date window of a report: `from` and `to` as YYYY-MM-DD calendar dates, both required, `to` not before
// `from`, at most 31 days counting both ends (so a whole month of 31 days fits, 1 to 31 January).

/** Longest window a report accepts, in days counting both ends (spec: "span at most 31 days"). */
export const maxWindowDays = 31;

export type WindowCheck =
  | { ok: true; from: string; to: string; days: number }
  | { ok: false; code: "partner.invalid_window" | "partner.window_too_large" };

const dayMs = 86_400_000;

/** Milliseconds of a real calendar date written YYYY-MM-DD (2026-02-30 is not one); undefined otherwise. */
function dateMs(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return ms;
}

/** Checks a report window; the failure names the catalogue code to answer. */
export function checkReportWindow(from: string, to: string): WindowCheck {
  const start = dateMs(from);
  const end = dateMs(to);
  if (start === undefined || end === undefined || end < start) return { ok: false, code: "partner.invalid_window" };
  const days = (end - start) / dayMs + 1;
  if (days > maxWindowDays) return { ok: false, code: "partner.window_too_large" };
  return { ok: true, from, to, days };
}
