// Queries of a region's online orders (region_<r>.online_orders).
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";
import type { TimeKey } from "../cursor.js";

/** A line as stored in online_orders.lines (jsonb), copied from the item when the order was placed. */
export interface StoredOrderLine {
  itemCode?: string;
  name?: string;
  quantity?: number;
  priceMinor?: number;
}

export interface OnlineOrderRow {
  id: number;
  store_id: number;
  status: string;
  total_minor: number;
  currency: string;
  placed_at: Date;
  lines: StoredOrderLine[];
}

/** A listed order, with its exact place in the list order (placed_at to the microsecond, UTC) for the cursor. */
export interface ListedOrderRow extends OnlineOrderRow {
  placed_key: string;
}

/** What GET /v1/online-orders narrows the list to; absent members do not narrow it. */
export interface OrderFilter {
  status?: string;
  /** RFC 3339 texts, already checked (../date-time.ts): placed at or after `placedFrom`, before `placedTo`. */
  placedFrom?: string;
  placedTo?: string;
  /** Only orders of these stores (an ADSR key's store scope); undefined: every store. */
  storeIds?: readonly number[];
}

/** The online-order queries of one region schema, over `sql`. */
export function createOrderQueries(sql: SqlClient, schema: string) {
  const orders = regionTable(sql, schema, "online_orders");
  return {
    /** One order of the company; undefined when the company has no order with this id (another company's included). */
    async find(companyId: number, id: number): Promise<OnlineOrderRow | undefined> {
      const [row] = await sql<OnlineOrderRow[]>`
        select id, store_id, status, total_minor, currency, placed_at, lines from ${orders}
        where company_id = ${companyId} and id = ${id}`;
      return row;
    },
    /**
     * Up to `count` orders of the company after `after` in (placed_at, id) order, filtered; the keyset is served by
     * online_orders__company_id_placed_at_id__idx (region migration 0002), so a page costs the same at any depth.
     */
    list(companyId: number, after: TimeKey | null, filter: OrderFilter, count: number): Promise<ListedOrderRow[]> {
      // Absent filters leave no condition behind (not "$1 is null or ..."), so the keyset stays an index range. Times
      // go as text (::text::timestamptz): postgres.js would send a timestamptz parameter through Date, losing microseconds.
      return sql<ListedOrderRow[]>`
        select id, store_id, status, total_minor, currency, placed_at, lines,
          to_char(placed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as placed_key
        from ${orders}
        where company_id = ${companyId}
          ${after ? sql`and (placed_at, id) > (${after.time}::text::timestamptz, ${after.id})` : sql``}
          ${filter.status !== undefined ? sql`and status = ${filter.status}` : sql``}
          ${filter.placedFrom !== undefined ? sql`and placed_at >= ${filter.placedFrom}::text::timestamptz` : sql``}
          ${filter.placedTo !== undefined ? sql`and placed_at < ${filter.placedTo}::text::timestamptz` : sql``}
          ${filter.storeIds ? sql`and store_id = any(${[...filter.storeIds]}::bigint[])` : sql``}
        order by placed_at, id limit ${count}`;
    },
  };
}
