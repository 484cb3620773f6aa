// The catalogue's change feeds (issue 39): GET /v1/items, /v1/stores and /v1/categories with `updatedFrom` (or a feed
// cursor) page the merchant's changes in (updated_at, id) order, the orders' feed's way (./online-orders.ts). What a
// list request asks is read here: a page of the list by id, or a page of the feed from a key. Correct while writers
// run because every catalogue change stamps updated_at under the merchant's catalogue_feed_heads lock
// (./catalogue-changes.ts): a reader's snapshot holds a prefix of the stamps, so a kept cursor is never overtaken.
import { afterIdOf, fail } from "./data-context.js";
import { decodeCatalogueCursor, encodeCatalogueCursor, type CatalogueFeed, type TimeKey } from "./cursor.js";
import { microsecondsUtc } from "./date-time.js";

/** A list request of the catalogue: the list by id after `afterId`, or the feed after `after`. */
export type CatalogueListing = { feed: false; afterId: number } | { feed: true; after: TimeKey };

/**
 * What `request` asks of `feed`'s list. With `updatedFrom` it is the feed, from the cursor when one is given (it must
 * be this feed's: partner.feed_cursor_invalid), else from updatedFrom inclusive ((from, 0) is before every id at that
 * instant); a bad updatedFrom is partner.feed_updated_from_invalid. A cursor alone continues whatever issued it; a
 * feed cursor of another list is partner.feed_cursor_invalid, anything else not ours the list's validation failure.
 */
export function catalogueListing(
  feed: CatalogueFeed,
  request: { cursor?: string; updatedFrom?: string },
): CatalogueListing {
  const key = decodeCatalogueCursor(feed, request.cursor);
  if (request.updatedFrom !== undefined) {
    const from = microsecondsUtc(request.updatedFrom);
    if (from === undefined) throw fail("partner.feed_updated_from_invalid", undefined, { field: "updatedFrom" });
    if (request.cursor === undefined || request.cursor === "") return { feed: true, after: { time: from, id: 0 } };
    if (key === undefined || key === "other") throw fail("partner.feed_cursor_invalid", undefined, { field: "cursor" });
    return { feed: true, after: key };
  }
  if (key === "other") throw fail("partner.feed_cursor_invalid", undefined, { field: "cursor" });
  if (key !== undefined) return { feed: true, after: key };
  return { feed: false, afterId: afterIdOf(request.cursor) };
}

/** A feed page's cursor: after its last row, or where it started when it is empty (the poller keeps its place). */
export function feedCursor(
  feed: CatalogueFeed,
  rows: ReadonlyArray<{ id: number; updated_key: string }>,
  start: TimeKey,
): string {
  const last = rows[rows.length - 1];
  return encodeCatalogueCursor(feed, last ? { time: last.updated_key, id: Number(last.id) } : start);
}
