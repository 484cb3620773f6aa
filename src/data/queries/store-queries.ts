// Queries of a region's stores (region_<r>.stores). SQL lives here and in the other modules of src/data only.
import type postgres from "postgres";
import type { SqlClient } from "../../storage/sql-client.js";
import type { StoredOpeningHours } from "../opening-hours.js";
import type { TimeKey } from "../cursor.js";
import { regionTable } from "./region-tables.js";

/** A store's address as stored (stores.address) and answered. */
export interface StoredAddress {
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postcode?: string;
  country: string;
}

export interface StoreRow {
  id: number;
  name: string;
  address: StoredAddress | null;
  time_zone: string;
  opening_hours: StoredOpeningHours | null;
  online_ordering_status: "ACCEPTING" | "PAUSED";
  paused_until: Date | null;
  pause_reason: string | null;
  updated_at: Date;
  /** updated_at to the microsecond (UTC): the change feed's key and the answer's updatedAt. */
  updated_key: string;
}

/** What the point of sale changes of a store's details; an absent field keeps its value. */
export interface StoreDetailChanges {
  address?: StoredAddress;
  timeZone?: string;
  openingHours?: StoredOpeningHours;
}

/** A pause (with its end and reason, each possibly null) or a resume. */
export type OnlineOrderingSetting =
  | { status: "ACCEPTING" }
  | { status: "PAUSED"; pausedUntil: Date | null; reason: string | null };

const columns = `id, name, address, time_zone, opening_hours, online_ordering_status, paused_until, pause_reason,
  updated_at, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_key`;

/** The store queries of one region schema, over `sql` (the region's pool or a transaction's client). */
export function createStoreQueries(sql: SqlClient, schema: string) {
  const stores = regionTable(sql, schema, "stores");
  const json = (value: unknown) => sql.json(value as postgres.JSONValue);
  return {
    /** Up to `count` stores of the company with an id above `afterId`, in id order; only `storeIds` when given. */
    list(companyId: number, afterId: number, count: number, storeIds?: readonly number[]): Promise<StoreRow[]> {
      return sql<StoreRow[]>`
        select ${sql.unsafe(columns)} from ${stores}
        where company_id = ${companyId} and id > ${afterId}
          and (${storeIds ? [...storeIds] : null}::bigint[] is null or id = any(${storeIds ? [...storeIds] : null}::bigint[]))
        order by id limit ${count}`;
    },
    /**
     * The stores' change feed: up to `count` stores of the company after `after` in (updated_at, id) order; only
     * `storeIds` when given. Served by stores__company_id_updated_at_id__idx (region migration 0015).
     */
    changes(companyId: number, after: TimeKey, count: number, storeIds?: readonly number[]): Promise<StoreRow[]> {
      return sql<StoreRow[]>`
        select ${sql.unsafe(columns)} from ${stores}
        where company_id = ${companyId} and (updated_at, id) > (${after.time}::text::timestamptz, ${after.id})
          ${storeIds ? sql`and id = any(${[...storeIds]}::bigint[])` : sql``}
        order by updated_at, id limit ${count}`;
    },
    /** One store of the company; undefined when it has no such store. */
    async find(companyId: number, id: number): Promise<StoreRow | undefined> {
      const [row] = await sql<StoreRow[]>`
        select ${sql.unsafe(columns)} from ${stores} where company_id = ${companyId} and id = ${id}`;
      return row;
    },
    /** Replaces the given details of one store in one statement; undefined when the company has no such store. */
    async updateDetails(
      companyId: number,
      id: number,
      changes: StoreDetailChanges,
      stamp: string,
    ): Promise<StoreRow | undefined> {
      const [row] = await sql<StoreRow[]>`
        update ${stores} set
          address = case when ${changes.address !== undefined} then ${changes.address ? json(changes.address) : null}::jsonb else address end,
          time_zone = coalesce(${changes.timeZone ?? null}::text, time_zone),
          opening_hours = case when ${changes.openingHours !== undefined}
            then ${changes.openingHours ? json(changes.openingHours) : null}::jsonb else opening_hours end,
          updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = ${id}
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    /** Pauses or resumes one store's online ordering; undefined when the company has no such store. */
    async setOnlineOrdering(
      companyId: number,
      id: number,
      setting: OnlineOrderingSetting,
      stamp: string,
    ): Promise<StoreRow | undefined> {
      const paused = setting.status === "PAUSED" ? setting : { pausedUntil: null, reason: null };
      const [row] = await sql<StoreRow[]>`
        update ${stores} set
          online_ordering_status = ${setting.status},
          paused_until = ${paused.pausedUntil},
          pause_reason = ${paused.reason},
          updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = ${id}
        returning ${sql.unsafe(columns)}`;
      return row;
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
