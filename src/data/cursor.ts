// The paging cursor of every list route: an opaque base64url token holding the last id of the previous page.
// Lists are ordered by id within one merchant, so "rows after this id" is a keyset that an index serves directly
// and that stays correct while rows are inserted (no offsets that shift).

const prefix = "v1:";

/** The cursor that continues after the row with `lastId`. */
export function encodeCursor(lastId: number): string {
  return Buffer.from(`${prefix}${lastId}`).toString("base64url");
}

/**
 * The id a cursor continues after; 0 when there is no cursor (first page); undefined when the text is not a
 * cursor we issued (the caller answers a validation failure naming `cursor`).
 */
export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === "") return 0;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^v1:([1-9][0-9]{0,14})$/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The first `limit` rows and the cursor of the next page, from a query that fetched `limit + 1` rows. */
export function pageOf<T extends { id: number }>(
  rows: T[],
  limit: number,
): { rows: T[]; nextCursor: string | undefined } {
  if (rows.length <= limit) return { rows, nextCursor: undefined };
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: encodeCursor(page[page.length - 1]!.id) };
}

/** Where a list ordered by (time, id) continues: after the row placed at `time` (exact, microseconds) with `id`. */
export interface TimeKey {
  /** UTC, as Postgres wrote it: YYYY-MM-DDTHH:MM:SS.ffffffZ (microseconds, the precision of timestamptz). */
  time: string;
  id: number;
}

const timePrefix = "v1t:";
const timeKeyPattern = /^v1t:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z):([1-9][0-9]{0,14})$/;

/** The cursor that continues after `key` in a list ordered by (time, id) (GET /v1/online-orders). */
export function encodeTimeCursor(key: TimeKey): string {
  return Buffer.from(`${timePrefix}${key.time}:${key.id}`).toString("base64url");
}

/**
 * The key a time cursor continues after; null when there is no cursor (first page); undefined when the text is
 * not a time cursor we issued (an id cursor of another list included), which the caller refuses naming `cursor`.
 */
export function decodeTimeCursor(cursor: string | undefined): TimeKey | null | undefined {
  if (cursor === undefined || cursor === "") return null;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = timeKeyPattern.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match || Number.isNaN(Date.parse(match[1]!))) return undefined;
  return { time: match[1]!, id: Number(match[2]) };
}

/** The first `limit` rows and the time cursor of the next page, from a query that fetched `limit + 1` rows. */
export function timePageOf<T extends { id: number; placed_key: string }>(
  rows: T[],
  limit: number,
): { rows: T[]; nextCursor: string | undefined } {
  if (rows.length <= limit) return { rows, nextCursor: undefined };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return { rows: page, nextCursor: encodeTimeCursor({ time: last.placed_key, id: last.id }) };
}

const feedPrefix = "v1f:";
const feedKeyPattern = /^v1f:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z):(0|[1-9][0-9]{0,14})$/;

/**
 * The change feed's cursor (GET /v1/online-orders?updatedFrom=...): the (updated_at, id) of the last order a page
 * gave, or (updatedFrom, 0) for an empty first page. A prefix of its own, so a feed cursor sent alone continues the feed.
 */
export function encodeFeedCursor(key: TimeKey): string {
  return Buffer.from(`${feedPrefix}${key.time}:${key.id}`).toString("base64url");
}

/** The key a feed cursor continues after; undefined when the text is absent or not a feed cursor we issued. */
export function decodeFeedCursor(cursor: string | undefined): TimeKey | undefined {
  if (cursor === undefined || cursor === "" || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const match = feedKeyPattern.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match || Number.isNaN(Date.parse(match[1]!))) return undefined;
  return { time: match[1]!, id: Number(match[2]) };
}

/** The catalogue's change feeds (GET /v1/items, /v1/stores, /v1/categories with updatedFrom): one cursor kind each. */
export type CatalogueFeed = "items" | "stores" | "categories";

const catalogueFeedPattern =
  /^v1m:(items|stores|categories):(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z):(0|[1-9][0-9]{0,14})$/;

/**
 * A catalogue feed's cursor: the feed it belongs to and the (updated_at, id) of the last row a page gave, or
 * (updatedFrom, 0) for an empty first page. The feed is named inside so that a cursor kept for one list is refused
 * by another rather than read as a place in it.
 */
export function encodeCatalogueCursor(feed: CatalogueFeed, key: TimeKey): string {
  return Buffer.from(`v1m:${feed}:${key.time}:${key.id}`).toString("base64url");
}

/**
 * What a cursor is to a catalogue feed: its key when it is one of `feed`'s; "other" when it is a change feed's
 * cursor of another list (the orders' included); undefined otherwise (absent, a list's id cursor, or not ours).
 */
export function decodeCatalogueCursor(feed: CatalogueFeed, cursor: string | undefined): TimeKey | "other" | undefined {
  if (cursor === undefined || cursor === "" || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = catalogueFeedPattern.exec(text);
  if (match && !Number.isNaN(Date.parse(match[2]!))) {
    return match[1] === feed ? { time: match[2]!, id: Number(match[3]) } : "other";
  }
  return text.startsWith("v1m:") || decodeFeedCursor(cursor) !== undefined ? "other" : undefined;
}
