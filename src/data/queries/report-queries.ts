// Server-side reports of a region (region_<r>.sales): aggregated in SQL, so only one row per day or store leaves
// the database, however many sales the window holds. Days are UTC calendar days.
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";

export interface DailySalesRow {
  date: string;
  sale_count: number;
  item_count: number;
  total_minor: number;
}

export interface StoreSalesRow {
  store_id: number;
  store_name: string;
  sale_count: number;
  item_count: number;
  total_minor: number;
}

/** The report queries of one region schema, over `sql`. `from` and `to` are inclusive YYYY-MM-DD dates. */
export function createReportQueries(sql: SqlClient, schema: string) {
  const sales = regionTable(sql, schema, "sales");
  const stores = regionTable(sql, schema, "stores");
  return {
    /**
     * One row per day of the window, zero for days without sales (index sales__company_id_sold_at__idx); only the
     * sales of `storeIds` when given (an ADSR key's approved stores).
     */
    dailySales(companyId: number, from: string, to: string, storeIds?: readonly number[]): Promise<DailySalesRow[]> {
      const scope = storeIds ? [...storeIds] : null;
      return sql<DailySalesRow[]>`
        with days as (
          select generate_series(${from}::date, ${to}::date, interval '1 day')::date as day
        ), totals as (
          select (sold_at at time zone 'UTC')::date as day, count(*) as sale_count,
                 sum(item_count) as item_count, sum(total_minor) as total_minor
          from ${sales}
          where company_id = ${companyId}
            and sold_at >= (${from}::date)::timestamp at time zone 'UTC'
            and sold_at < ((${to}::date) + 1)::timestamp at time zone 'UTC'
            and (${scope}::bigint[] is null or store_id = any(${scope}::bigint[]))
          group by 1
        )
        select to_char(days.day, 'YYYY-MM-DD') as date,
               coalesce(totals.sale_count, 0)::bigint as sale_count,
               coalesce(totals.item_count, 0)::bigint as item_count,
               coalesce(totals.total_minor, 0)::bigint as total_minor
        from days left join totals on totals.day = days.day
        order by days.day`;
    },
    /** One row per store of the company (of `storeIds` when given), in store id order, zero for stores without sales. */
    salesByStore(companyId: number, from: string, to: string, storeIds?: readonly number[]): Promise<StoreSalesRow[]> {
      const scope = storeIds ? [...storeIds] : null;
      return sql<StoreSalesRow[]>`
        select s.id as store_id, s.name as store_name,
               count(x.id)::bigint as sale_count,
               coalesce(sum(x.item_count), 0)::bigint as item_count,
               coalesce(sum(x.total_minor), 0)::bigint as total_minor
        from ${stores} s
        left join ${sales} x on x.company_id = s.company_id and x.store_id = s.id
          and x.sold_at >= (${from}::date)::timestamp at time zone 'UTC'
          and x.sold_at < ((${to}::date) + 1)::timestamp at time zone 'UTC'
        where s.company_id = ${companyId} and (${scope}::bigint[] is null or s.id = any(${scope}::bigint[]))
        group by s.id, s.name
        order by s.id`;
    },
  };
}
