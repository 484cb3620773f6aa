// Queries of a region's online orders (region_<r>.online_orders).
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";

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
  };
}
