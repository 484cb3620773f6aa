// Queries of a region's items (region_<r>.items).
import type postgres from "postgres";
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";

export interface ItemRow {
  id: number;
  name: string;
  code: string | null;
  barcode: string | null;
  category_id: number | null;
  price_minor: number;
  currency: string;
  created_at: Date;
  updated_at: Date;
}

export interface NewItem {
  name: string;
  code: string;
  barcode: string | null;
  categoryId: number | null;
  priceMinor: number;
  currency: string;
  createdByEmployeeId: number;
}

/** The fields of an item a PATCH may change; absent ones keep their value. */
export interface ItemChanges {
  name?: string;
  code?: string;
  barcode?: string;
  categoryId?: number;
  priceMinor?: number;
  currency?: string;
}

const columns = "id, name, code, barcode, category_id, price_minor, currency, created_at, updated_at";

/** The item queries of one region schema, over `sql`. */
export function createItemQueries(sql: SqlClient, schema: string) {
  const items = regionTable(sql, schema, "items");
  return {
    /**
     * Up to `count` items of the company with an id above `afterId`, in id order: one range of
     * items__company_id_id__idx, the same cost at any depth and however many items the region holds.
     * Written `company_id = any(array[...])` and `order by company_id, id` on purpose: with `company_id = $1` the
     * planner takes company_id for a constant, so the primary key serves `order by id` too, and for a company with
     * many items (a frequent value in its statistics) and a cursor near its end it walks the primary key from the
     * cursor filtering on company_id, betting the LIMIT stops it early; when the company's items end there, it reads
     * the rest of the region's table (790,000 rows, 2 s, for the last page of a merchant among 1,000,000 items).
     * ANY is no equality class, so only an index leading (company_id, id) gives that order (docs/decisions.md,
     * "Flat costs at scale"). The values go in as `(select $n)`, which the planner cannot look into: its plan is
     * then the same for every merchant, so the prepared statement keeps one generic plan. With the values visible,
     * a large region's statistics made every call's custom plan look cheaper and the query was planned again on
     * each call (PostgreSQL 15, 1,000,000 items: pg_prepared_statements showed only custom plans), a cost the
     * same query at 1,000 items does not pay. Typed as the pending query it is: `describe()` gives the statement
     * that test/data/item-keyset-plan.test.ts has PostgreSQL explain.
     */
    list(companyId: number, afterId: number, count: number): postgres.PendingQuery<ItemRow[]> {
      return sql<ItemRow[]>`
        select ${sql.unsafe(columns)} from ${items}
        where company_id = any(array[(select ${companyId}::bigint)]) and id > (select ${afterId}::bigint)
        order by company_id, id limit (select ${count}::bigint)`;
    },
    /** The company's items among `ids` (an id of another company's item, or none, is simply absent). */
    findMany(companyId: number, ids: readonly number[]): Promise<ItemRow[]> {
      return sql<ItemRow[]>`
        select ${sql.unsafe(columns)} from ${items} where company_id = ${companyId} and id = any(${[...ids]}::bigint[])`;
    },
    /**
     * Inserts an item. A repeated code or barcode raises the unique violation of items__company_id_{code,barcode}__key;
     * a category of another company (or none) the foreign-key violation of items__company_id_category_id__fkey.
     */
    async insert(companyId: number, item: NewItem, now: Date): Promise<ItemRow> {
      const [row] = await sql<ItemRow[]>`
        insert into ${items}
          (company_id, name, code, barcode, category_id, price_minor, currency, created_by_employee_id, created_at, updated_at)
        values (${companyId}, ${item.name}, ${item.code}, ${item.barcode}, ${item.categoryId}, ${item.priceMinor},
          ${item.currency}, ${item.createdByEmployeeId}, ${now}, ${now})
        returning ${sql.unsafe(columns)}`;
      return row!;
    },
    /** Changes the given fields of one item of the company; undefined when it has no such item. Same violations as insert. */
    async update(companyId: number, id: number, changes: ItemChanges, now: Date): Promise<ItemRow | undefined> {
      const [row] = await sql<ItemRow[]>`
        update ${items} set
          name = coalesce(${changes.name ?? null}::text, name),
          code = coalesce(${changes.code ?? null}::text, code),
          barcode = coalesce(${changes.barcode ?? null}::text, barcode),
          category_id = coalesce(${changes.categoryId ?? null}::bigint, category_id),
          price_minor = coalesce(${changes.priceMinor ?? null}::bigint, price_minor),
          currency = coalesce(${changes.currency ?? null}::text, currency),
          updated_at = ${now}
        where company_id = ${companyId} and id = ${id}
        returning ${sql.unsafe(columns)}`;
      return row;
    },
  };
}
