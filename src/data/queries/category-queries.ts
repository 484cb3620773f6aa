// Queries of a region's categories (region_<r>.categories).
import type { SqlClient } from "../../storage/sql-client.js";
import type { TimeKey } from "../cursor.js";
import { regionTable } from "./region-tables.js";

export interface CategoryRow {
  id: number;
  name: string;
  code: string | null;
  sort_order: number;
  /** updated_at to the microsecond (UTC): the change feed's key and the answer's updatedAt. */
  updated_key: string;
}

/** The fields of a category a PATCH may change; absent ones keep their value. */
export interface CategoryChanges {
  name?: string;
  code?: string;
  sortOrder?: number;
}

const columns = `id, name, code, sort_order,
  to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_key`;

/** The category queries of one region schema, over `sql`. */
export function createCategoryQueries(sql: SqlClient, schema: string) {
  const categories = regionTable(sql, schema, "categories");
  return {
    /** Up to `count` categories of the company with an id above `afterId`, in id order. */
    list(companyId: number, afterId: number, count: number): Promise<CategoryRow[]> {
      return sql<CategoryRow[]>`
        select ${sql.unsafe(columns)} from ${categories}
        where company_id = ${companyId} and id > ${afterId}
        order by id limit ${count}`;
    },
    /**
     * The categories' change feed: up to `count` categories of the company after `after` in (updated_at, id) order.
     * Served by categories__company_id_updated_at_id__idx (region migration 0015).
     */
    changes(companyId: number, after: TimeKey, count: number): Promise<CategoryRow[]> {
      return sql<CategoryRow[]>`
        select ${sql.unsafe(columns)} from ${categories}
        where company_id = ${companyId} and (updated_at, id) > (${after.time}::text::timestamptz, ${after.id})
        order by updated_at, id limit ${count}`;
    },
    /** One category of the company; undefined when it has no such category. */
    async find(companyId: number, id: number): Promise<CategoryRow | undefined> {
      const [row] = await sql<CategoryRow[]>`
        select ${sql.unsafe(columns)} from ${categories} where company_id = ${companyId} and id = ${id}`;
      return row;
    },
    /** Inserts a category; a repeated name or code raises the unique violation of categories__company_id_{name,code}__key. */
    async insert(
      companyId: number,
      category: { name: string; code: string | null; sortOrder: number },
      stamp: string,
    ): Promise<CategoryRow> {
      const [row] = await sql<CategoryRow[]>`
        insert into ${categories} (company_id, name, code, sort_order, created_at, updated_at)
        values (${companyId}, ${category.name}, ${category.code}, ${category.sortOrder}, ${stamp}::text::timestamptz,
          ${stamp}::text::timestamptz)
        returning ${sql.unsafe(columns)}`;
      return row!;
    },
    /** Changes the given fields of one category and stamps it; undefined when the company has no such category. */
    async update(
      companyId: number,
      id: number,
      changes: CategoryChanges,
      stamp: string,
    ): Promise<CategoryRow | undefined> {
      const [row] = await sql<CategoryRow[]>`
        update ${categories} set
          name = coalesce(${changes.name ?? null}::text, name),
          code = coalesce(${changes.code ?? null}::text, code),
          sort_order = coalesce(${changes.sortOrder ?? null}::integer, sort_order),
          updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = ${id}
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    /**
     * Stamps the categories among `ids` whose items changed (an item joined, left or was deleted): their `itemIds`
     * answer changed, so the change feed must give them again. Answers the stamped rows.
     */
    touch(companyId: number, ids: readonly number[], stamp: string): Promise<CategoryRow[]> {
      return sql<CategoryRow[]>`
        update ${categories} set updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = any(${[...ids]}::bigint[])
        returning ${sql.unsafe(columns)}`;
    },
  };
}
