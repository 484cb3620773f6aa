// The catalogue's change feeds for the partner client (`catalogue.changes(resource, start)`): GET /v1/items,
// /v1/stores or /v1/categories with `updatedFrom`, then with the `nextCursor` each page answers, change by change,
// each with the cursor to keep. An item that left the menu comes as its tombstone ({ id, deleted: true, updatedAt }).

import { clientError } from "./errors.js";
import type {
  CatalogueChange,
  CatalogueFeedValues,
  CatalogueResource,
  ChangesStart,
  Item,
  ItemTombstone,
} from "./types.js";

/** How a feed is read: its calls' options, the page size, following, and (items) a store's availability. */
export interface CatalogueChangesOptions {
  acceptLanguage?: string;
  signal?: AbortSignal;
  /** Rows per page, 1 to 100; 100 unless given (the server's default of 10 is for lists read by hand). */
  limit?: number;
  /** Items only: each item's `available` in this store (send the same store on every resume). */
  storeId?: number;
  /** Wait `intervalMs` (default 10 s) after an empty page and poll again, until `signal` aborts; else end there. */
  follow?: { intervalMs?: number };
}

/** One GET of a feed page: the route's answer as parsed JSON. */
export type FeedGet = (
  resource: CatalogueResource,
  query: Record<string, string | number | undefined>,
  call: { acceptLanguage?: string | undefined; signal?: AbortSignal | undefined },
) => Promise<Record<string, unknown>>;

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}

/** A feed row as the typed value: a deleted item is its tombstone, only the fields a tombstone promises. */
function feedValue<R extends CatalogueResource>(resource: R, row: unknown): CatalogueFeedValues[R] {
  if (resource === "items" && (row as Item).deleted === true) {
    const { id, updatedAt } = row as Item;
    return { id, deleted: true, updatedAt } satisfies ItemTombstone as CatalogueFeedValues[R];
  }
  return row as CatalogueFeedValues[R];
}

/** Reads one feed from `start` (a time, or a cursor kept from an earlier change), page after page. */
export async function* catalogueChanges<R extends CatalogueResource>(
  get: FeedGet,
  resource: R,
  start: ChangesStart,
  options: CatalogueChangesOptions = {},
): AsyncIterable<CatalogueChange<R>> {
  const path = `GET /v1/${resource}`;
  let asked: string | undefined = "cursor" in start ? start.cursor : undefined;
  const call = { acceptLanguage: options.acceptLanguage, signal: options.signal };
  for (;;) {
    const from =
      asked === undefined ? { updatedFrom: (start as { updatedFrom: string }).updatedFrom } : { cursor: asked };
    const store = resource === "items" ? { storeId: options.storeId } : {};
    const page = await get(resource, { ...from, ...store, limit: options.limit ?? 100 }, call);
    // Each list answers its rows under its own name (items, stores, categories).
    const rows = page[resource];
    if (!Array.isArray(rows)) throw clientError("client.bad_response", `${path} answered without ${resource}`);
    const next = page["nextCursor"];
    if (typeof next !== "string")
      throw clientError("client.bad_response", `${path} answered a feed page without nextCursor`);
    for (const [index, row] of rows.entries())
      yield { resource, value: feedValue(resource, row), cursor: index === rows.length - 1 ? next : asked };
    asked = next;
    // Aborted while the caller handled a change: the feed ends there (the caller holds its cursor).
    if (options.signal?.aborted) return;
    if (rows.length > 0) continue;
    if (!options.follow) return;
    await pause(options.follow.intervalMs ?? 10_000, options.signal);
    if (options.signal?.aborted) return;
  }
}
