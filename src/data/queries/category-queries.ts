// Queries of a region's categories (region_<r>.categories).
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";

export interface CategoryRow {
  id: number;
  name: string;
  code: string | null;
}

/** The category queries of one region schema, over `sql`. */
export function createCategoryQueries(sql: SqlClient, schema: string) {
  const categories = regionTable(sql, schema, "categories");
  return {
    /** Up to `count` categories of the company with an id above `afterId`, in id order. */
    list(companyId: number, afterId: number, count: number): Promise<CategoryRow[]> {
      return sql<CategoryRow[]>`
        select id, name, code from ${categories}
        where company_id = ${companyId} and id > ${afterId}
        order by id limit ${count}`;
    },
    /** Inserts a category; a repeated name or code raises the unique violation of categories__company_id_{name,code}__key. */
    async insert(
      companyId: number,
      category: { name: string; code: string | null },
      stamp: string,
    ): Promise<CategoryRow> {
      const [row] = await sql<CategoryRow[]>`
        insert into ${categories} (company_id, name, code, created_at, updated_at)
        values (${companyId}, ${category.name}, ${category.code}, ${stamp}::text::timestamptz, ${stamp}::text::timestamptz)
        returning id, name, code`;
      return row!;
    },
  };
}
