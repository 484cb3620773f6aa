// RFC 3339 date-times as list filters take them (GET /v1/online-orders placedFrom, placedTo): a full date, a time
// with optional fractions (at most microseconds, the precision of timestamptz) and an offset (Z or +hh:mm). Checked
// here, strictly, so that Postgres only ever parses a value it accepts (a bad one would be a 500, not a 400).

const pattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** The instant `text` names, in milliseconds since the epoch; undefined when it is not an RFC 3339 date-time. */
export function parseDateTime(text: string): number | undefined {
  const match = pattern.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Year 0000 is not a timestamptz; RFC 3339 section 5.7: month, day within the month, no leap second we could store.
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  if (match[9] !== undefined && (Number(match[9]) > 23 || Number(match[10]) > 59)) return undefined;
  const millis = Date.parse(text.toUpperCase());
  return Number.isNaN(millis) ? undefined : millis;
}

/**
 * The instant `text` names (RFC 3339, as parseDateTime reads it) in UTC to the microsecond, as the change feed's
 * cursor holds times (YYYY-MM-DDTHH:MM:SS.ffffffZ): the offset moves whole minutes, so the fraction is kept as sent.
 * Undefined when it is not an RFC 3339 date-time.
 */
export function microsecondsUtc(text: string): string | undefined {
  const millis = parseDateTime(text);
  if (millis === undefined) return undefined;
  const fraction = (pattern.exec(text)![7] ?? ".").slice(1).padEnd(6, "0");
  return `${new Date(Math.floor(millis / 1000) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}
