// Queries of a region's stores (region_<r>.stores). SQL lives here and in the other modules of src/data only.
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";

export interface StoreRow {
  id: number;
  name: string;
}

/** The store queries of one region schema, over `sql` (the region's pool or a transaction's client). */
export function createStoreQueries(sql: SqlClient, schema: string) {
  const stores = regionTable(sql, schema, "stores");
  return {
    /** Up to `count` stores of the company with an id above `afterId`, in id order; only `storeIds` when given. */
    list(companyId: number, afterId: number, count: number, storeIds?: readonly number[]): Promise<StoreRow[]> {
      return sql<StoreRow[]>`
        select id, name from ${stores}
        where company_id = ${companyId} and id > ${afterId}
          and (${storeIds ? [...storeIds] : null}::bigint[] is null or id = any(${storeIds ? [...storeIds] : null}::bigint[]))
        order by id limit ${count}`;
    },
    /** How many of `storeIds` are stores of the company. */
    async countAmong(companyId: number, storeIds: readonly number[]): Promise<number> {
      const [row] = await sql<{ count: number }[]>`
        select count(*)::int as count from ${stores} where company_id = ${companyId} and id = any(${[...storeIds]}::bigint[])`;
      return row?.count ?? 0;
    },
    /** Whether the company has any store: its regional data exists. */
    async any(companyId: number): Promise<boolean> {
      const rows = await sql`select 1 from ${stores} where company_id = ${companyId} limit 1`;
      return rows.length > 0;
    },
  };
}
