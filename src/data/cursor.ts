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
export function pageOf<T extends { id: number }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | undefined } {
  if (rows.length <= limit) return { rows, nextCursor: undefined };
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: encodeCursor(page[page.length - 1]!.id) };
}
