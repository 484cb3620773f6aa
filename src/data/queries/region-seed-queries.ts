// Bulk writes of a merchant's business data into a region's schema (region_<r>), for sandbox and demo data.
// The region's tables belong to the DataService; this module only inserts starting data for a new merchant.
// Every function runs on the `sql` given (pool or transaction).
import type postgres from "postgres";
import type { SqlClient } from "../../storage/sql-client.js";
import type { Region } from "../../config/regions.js";
import { regionSchema } from "../../storage/schemas.js";

export interface SeedItem {
  categoryId: number | null;
  name: string;
  code: string;
  barcode: string;
  priceMinor: number;
  currency: string;
}

/** A seeded store: its name, where it is, its zone and its hours (stored as the DataService stores them). */
export interface SeedStore {
  name: string;
  address: Record<string, string>;
  timeZone: string;
  openingHours: unknown;
}

/** A seeded modifier group of one item, at its place among the item's groups, with its modifiers in order. */
export interface SeedModifierGroup {
  itemId: number;
  name: string;
  minSelections: number;
  maxSelections: number;
  position: number;
  modifiers: ReadonlyArray<{ name: string; priceMinor: number }>;
}

export interface SeedOrder {
  storeId: number;
  status: string;
  totalMinor: number;
  currency: string;
  placedAt: Date;
  /** While PENDING: when the platform times it out (the API guide's table); null otherwise. */
  decideBy: Date | null;
  lines: unknown[];
}

export interface SeedSale {
  storeId: number;
  soldAt: Date;
  totalMinor: number;
  itemCount: number;
}

/** Rows per multi-row insert: well under the 65535 bind parameters of one statement. */
const chunk = 500;

/** The seed queries of one region over `sql` (that region's database client, or a transaction's `sql`). */
/** created_at and updated_at at `at`, or nothing (the columns' default, now()). */
function stamped(at: Date | undefined): { created_at?: Date; updated_at?: Date } {
  return at ? { created_at: at, updated_at: at } : {};
}

export function createRegionSeedQueries(sql: SqlClient, region: Region) {
  const table = (name: string) => sql(`${regionSchema(region)}.${name}`);
  async function insertMany<T extends Record<string, unknown>>(
    name: string,
    rows: T[],
    returning = false,
  ): Promise<number[]> {
    const idsOut: number[] = [];
    for (let start = 0; start < rows.length; start += chunk) {
      const part = rows.slice(start, start + chunk);
      if (returning) {
        const inserted = await sql<{ id: number }[]>`insert into ${table(name)} ${sql(part as never)} returning id`;
        idsOut.push(...inserted.map((row) => row.id));
      } else {
        await sql`insert into ${table(name)} ${sql(part as never)}`;
      }
    }
    return idsOut;
  }
  return {
    /** The ids of the company's stores, oldest first: non-empty means the merchant was seeded already. */
    async storeIds(companyId: number): Promise<number[]> {
      const rows = await sql<
        { id: number }[]
      >`select id from ${table("stores")} where company_id = ${companyId} order by id`;
      return rows.map((row) => row.id);
    },
    /**
     * Stores by name alone (no address, UTC, no hours: what a test needs) or with their details. `at` (the seed's
     * clock) is their created_at and updated_at, else the database's now(): the catalogue's change stamps start
     * after the newest updated_at (../catalogue-changes.ts), so a seed in the clock's past keeps the clock's times.
     */
    insertStores: (companyId: number, stores: Array<string | SeedStore>, at?: Date) =>
      insertMany(
        "stores",
        stores.map((store) => ({
          ...(typeof store === "string"
            ? { company_id: companyId, name: store, address: null, time_zone: "UTC", opening_hours: null }
            : {
                company_id: companyId,
                name: store.name,
                address: sql.json(store.address),
                time_zone: store.timeZone,
                opening_hours: sql.json(store.openingHours as postgres.JSONValue),
              }),
          ...stamped(at),
        })),
        true,
      ),
    insertEmployees: (companyId: number, people: { name: string; email: string | null }[], at?: Date) =>
      insertMany(
        "employees",
        people.map((person) => ({
          company_id: companyId,
          name: person.name,
          email: person.email,
          ...(at ? { created_at: at } : {}),
        })),
        true,
      ),
    insertCategories: (companyId: number, categories: { name: string; code: string }[], at?: Date) =>
      insertMany(
        "categories",
        categories.map((category) => ({ company_id: companyId, ...category, ...stamped(at) })),
        true,
      ),
    insertItems: (companyId: number, items: SeedItem[], employeeId: number | null, at?: Date) =>
      insertMany(
        "items",
        items.map((item) => ({
          company_id: companyId,
          category_id: item.categoryId,
          name: item.name,
          code: item.code,
          barcode: item.barcode,
          price_minor: item.priceMinor,
          currency: item.currency,
          created_by_employee_id: employeeId,
          ...stamped(at),
        })),
        true,
      ),
    /** Items sold out until further notice in one store each. */
    insertSoldOut: (companyId: number, soldOut: Array<{ storeId: number; itemId: number }>, now: Date) =>
      insertMany(
        "item_store_availability",
        soldOut.map(({ storeId, itemId }) => ({
          company_id: companyId,
          store_id: storeId,
          item_id: itemId,
          available: false,
          updated_at: now,
        })),
      ),
    /** An item's description (what the menu shows about it). */
    describeItem: (companyId: number, itemId: number, description: string) =>
      sql`update ${table("items")} set description = ${description} where company_id = ${companyId} and id = ${itemId}`,
    /** Modifier groups with their modifiers (migration 0015); answers each group's modifier ids, in order. */
    async insertModifierGroups(companyId: number, groups: readonly SeedModifierGroup[]): Promise<number[][]> {
      const ids: number[][] = [];
      for (const group of groups) {
        const [row] = await sql<{ id: number }[]>`
          insert into ${table("modifier_groups")} (company_id, item_id, name, min_selections, max_selections, position)
          values (${companyId}, ${group.itemId}, ${group.name}, ${group.minSelections}, ${group.maxSelections},
            ${group.position})
          returning id`;
        ids.push(
          await insertMany(
            "modifiers",
            group.modifiers.map((modifier, position) => ({
              company_id: companyId,
              group_id: row!.id,
              name: modifier.name,
              price_minor: modifier.priceMinor,
              position,
            })),
            true,
          ),
        );
      }
      return ids;
    },
    /** Modifiers sold out until further notice in one store each. */
    insertModifiersSoldOut: (companyId: number, soldOut: Array<{ storeId: number; modifierId: number }>, now: Date) =>
      insertMany(
        "modifier_store_availability",
        soldOut.map(({ storeId, modifierId }) => ({
          company_id: companyId,
          store_id: storeId,
          modifier_id: modifierId,
          available: false,
          updated_at: now,
        })),
      ),
    /** Gives a store its first turn of the sandbox menu autopilot (migration 0017). */
    startMenuAutopilot: (companyId: number, storeId: number, at: Date) =>
      sql`update ${table("stores")} set menu_autopilot_at = ${at} where company_id = ${companyId} and id = ${storeId}`,
    insertOnlineOrders: (companyId: number, orders: SeedOrder[]) =>
      insertMany(
        "online_orders",
        orders.map((order) => ({
          company_id: companyId,
          store_id: order.storeId,
          status: order.status,
          total_minor: order.totalMinor,
          currency: order.currency,
          placed_at: order.placedAt,
          decide_by: order.decideBy,
          // A seeded order last changed when it was placed.
          updated_at: order.placedAt,
          lines: sql.json(order.lines as postgres.JSONValue),
        })),
      ),
    insertSales: (companyId: number, sales: SeedSale[]) =>
      insertMany(
        "sales",
        sales.map((sale) => ({
          company_id: companyId,
          store_id: sale.storeId,
          sold_at: sale.soldAt,
          total_minor: sale.totalMinor,
          item_count: sale.itemCount,
        })),
      ),
  };
}
