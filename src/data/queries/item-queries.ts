// Queries of a region's items (region_<r>.items).
import type postgres from "postgres";
import type { SqlClient } from "../../storage/sql-client.js";
import type { TimeKey } from "../cursor.js";
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
  description: string | null;
  /** updated_at to the microsecond (UTC, as the change feed's cursor holds it). */
  updated_key: string;
  /** Set once the item left the menu: only the change feed answers such a row (a tombstone). */
  deleted_at: Date | null;
  menu_position: number | null;
}

/** A row of `listWithModifiers`: the item, and its modifiers as one JSON array of arrays (null: none). */
export interface ListedItemRow extends ItemRow {
  modifiers: Array<[number, string, number, number, number, string, number]> | null;
}

/** An item with its availability in one store as stored: `available` null when there is no row (available). */
export interface ItemInStoreRow extends ItemRow {
  available: boolean | null;
  unavailable_until: Date | null;
  /** The item's modifiers with their availability in the store (JSON: times as text, null `available`: no row). */
  modifiers: Array<ModifierInStore>;
}

/** One modifier with its group, as stored (a group without modifiers never exists: a write gives 1 to 50). */
export interface ModifierRow {
  item_id: number;
  group_id: number;
  group_name: string;
  min_selections: number;
  max_selections: number;
  modifier_id: number;
  modifier_name: string;
  price_minor: number;
}

/** A modifier of an item with its group and its availability in one store, as findManyIn reads it. */
export interface ModifierInStore extends ModifierRow {
  available: boolean | null;
  unavailable_until: string | null;
}

/** An item's availability in one store as stored; no row means available. */
export interface AvailabilityRow {
  item_id: number;
  available: boolean;
  unavailable_until: Date | null;
}

export interface NewItem {
  name: string;
  code: string;
  barcode: string | null;
  categoryId: number | null;
  priceMinor: number;
  currency: string;
  description: string | null;
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
  description?: string;
}

const columns = `id, name, code, barcode, category_id, price_minor, currency, created_at, updated_at, description,
  to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as updated_key, deleted_at, menu_position`;

/** The item queries of one region schema, over `sql`. */
export function createItemQueries(sql: SqlClient, schema: string) {
  const items = regionTable(sql, schema, "items");
  const availability = regionTable(sql, schema, "item_store_availability");
  const modifierGroups = regionTable(sql, schema, "modifier_groups");
  const modifiers = regionTable(sql, schema, "modifiers");
  const modifierAvailability = regionTable(sql, schema, "modifier_store_availability");
  return {
    /**
     * Up to `count` items of the company with an id above `afterId`, in id order: one range of
     * items__company_id_id__key (the unique index that replaced items__company_id_id__idx in migration 0012), the
     * same cost at any depth and however many items the region holds.
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
          and deleted_at is null
        order by company_id, id limit (select ${count}::bigint)`;
    },
    /**
     * `list` with each item's modifiers (issue 39): for each item, one JSON array of [group id, group name, min, max,
     * modifier id, modifier name, price] in group and modifier order (null: an item without groups), kept on the
     * item's row by region migration 0020's triggers; `listedModifiers` (./modifier-queries.ts) turns them into
     * `ofItems`' rows. One round trip and one index range for a page of the menu: the list read with a subquery per
     * item cost PostgreSQL more than the items themselves (docs/benchmarks.md). The scan is `list`'s
     * (test/data/item-keyset-plan.test.ts).
     */
    listWithModifiers(companyId: number, afterId: number, count: number): postgres.PendingQuery<ListedItemRow[]> {
      return sql<ListedItemRow[]>`
        select ${sql.unsafe(columns)}, modifier_list as modifiers from ${items}
        where company_id = any(array[(select ${companyId}::bigint)]) and id > (select ${afterId}::bigint)
          and deleted_at is null
        order by company_id, id limit (select ${count}::bigint)`;
    },
    /**
     * The items' change feed: up to `count` items of the company after `after` in (updated_at, id) order, deleted ones
     * included (the feed's tombstones). Served by items__company_id_updated_at_id__idx (region migration 0015).
     */
    changes(companyId: number, after: TimeKey, count: number): Promise<ItemRow[]> {
      return sql<ItemRow[]>`
        select ${sql.unsafe(columns)} from ${items}
        where company_id = ${companyId} and (updated_at, id) > (${after.time}::text::timestamptz, ${after.id})
        order by updated_at, id limit ${count}`;
    },
    /**
     * The ids of the items on the menu in each of `categoryIds`, in menu order: menu_position (unset last), then id.
     * One range of items__company_id_category_id_menu_position__idx per category (region migration 0016).
     */
    async inCategories(companyId: number, categoryIds: readonly number[]): Promise<Map<number, number[]>> {
      const byCategory = new Map<number, number[]>(categoryIds.map((id) => [Number(id), []]));
      if (categoryIds.length === 0) return byCategory;
      const rows = await sql<{ category_id: number; id: number }[]>`
        select category_id, id from ${items}
        where company_id = ${companyId} and category_id = any(${[...categoryIds]}::bigint[]) and deleted_at is null
        order by category_id, menu_position nulls last, id`;
      for (const row of rows) byCategory.get(Number(row.category_id))?.push(Number(row.id));
      return byCategory;
    },
    /** Puts the category's items in the order of `itemIds` (positions 0, 1, ...); the caller checked they are its items. */
    async reorder(companyId: number, categoryId: number, itemIds: readonly number[]): Promise<void> {
      await sql`
        update ${items} as item set menu_position = placed.position - 1
        from unnest(${[...itemIds]}::bigint[]) with ordinality as placed(id, position)
        where item.company_id = ${companyId} and item.category_id = ${categoryId} and item.id = placed.id
          and item.deleted_at is null`;
    },
    /** The company's items among `ids` on the menu (another company's item, a deleted one, or none, is absent). */
    findMany(companyId: number, ids: readonly number[]): Promise<ItemRow[]> {
      return sql<ItemRow[]>`
        select ${sql.unsafe(columns)} from ${items}
        where company_id = ${companyId} and id = any(${[...ids]}::bigint[]) and deleted_at is null`;
    },
    /**
     * The company's items among `ids` on the menu as findMany, each with its availability in the company's store
     * `storeId` as stored (null `available`: no row, so available) and its modifiers with theirs (`modifiers`, in
     * group and modifier order, as ModifierRow with `available` and `unavailable_until`): one statement for what an
     * order's pricing reads of its items.
     */
    findManyIn(companyId: number, storeId: number, ids: readonly number[]): Promise<ItemInStoreRow[]> {
      return sql<ItemInStoreRow[]>`
        select item.*, stored.available, stored.unavailable_until, (
          select coalesce(jsonb_agg(jsonb_build_object('item_id', g.item_id, 'group_id', g.id, 'group_name', g.name,
            'min_selections', g.min_selections, 'max_selections', g.max_selections, 'modifier_id', m.id,
            'modifier_name', m.name, 'price_minor', m.price_minor, 'available', held.available,
            'unavailable_until', held.unavailable_until) order by g.position, m.position), '[]'::jsonb)
          from ${modifierGroups} g join ${modifiers} m on m.group_id = g.id
          left join ${modifierAvailability} held
            on held.company_id = ${companyId} and held.store_id = ${storeId} and held.modifier_id = m.id
          where g.company_id = ${companyId} and g.item_id = item.id) as modifiers
        from (select ${sql.unsafe(columns)} from ${items}
          where company_id = ${companyId} and id = any(${[...ids]}::bigint[]) and deleted_at is null) item
        left join ${availability} stored
          on stored.company_id = ${companyId} and stored.store_id = ${storeId} and stored.item_id = item.id`;
    },
    /** One item of the company's menu; undefined when it has none (or deleted it). */
    async find(companyId: number, id: number): Promise<ItemRow | undefined> {
      const [row] = await sql<ItemRow[]>`
        select ${sql.unsafe(columns)} from ${items} where company_id = ${companyId} and id = ${id} and deleted_at is null`;
      return row;
    },
    /** Takes an item off the menu (the row stays for the orders' history); false when there was no such item on it. */
    async softDelete(companyId: number, id: number, stamp: string): Promise<ItemRow | undefined> {
      const [row] = await sql<ItemRow[]>`
        update ${items} set deleted_at = ${stamp}::text::timestamptz, updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = ${id} and deleted_at is null
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    /** Stamps a change of the item that is not in its own row (its modifiers); undefined when it is not on the menu. */
    async touch(companyId: number, id: number, stamp: string): Promise<ItemRow | undefined> {
      const [row] = await sql<ItemRow[]>`
        update ${items} set updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = ${id} and deleted_at is null
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    /** The stored availability rows of `ids` in one store (an item without a row is available there). */
    availabilityIn(companyId: number, storeId: number, ids: readonly number[]): Promise<AvailabilityRow[]> {
      return sql<AvailabilityRow[]>`
        select item_id, available, unavailable_until from ${availability}
        where company_id = ${companyId} and store_id = ${storeId} and item_id = any(${[...ids]}::bigint[])`;
    },
    /**
     * Sets an item's availability in a store and stamps the item's updated_at, in one statement (both or neither);
     * undefined when the item is not on the company's menu. The store must be the company's (its foreign key).
     */
    async setAvailability(
      companyId: number,
      storeId: number,
      itemId: number,
      setting: { available: boolean; unavailableUntil: Date | null },
      stamp: string,
    ): Promise<ItemRow | undefined> {
      const [row] = await sql<ItemRow[]>`
        with touched as (
          update ${items} set updated_at = ${stamp}::text::timestamptz
          where company_id = ${companyId} and id = ${itemId} and deleted_at is null
          returning ${sql.unsafe(columns)}
        ), stored as (
          insert into ${availability} (company_id, store_id, item_id, available, unavailable_until, updated_at)
          select ${companyId}, ${storeId}, id, ${setting.available}, ${setting.unavailableUntil},
            ${stamp}::text::timestamptz from touched
          on conflict (store_id, item_id) do update set
            available = excluded.available, unavailable_until = excluded.unavailable_until, updated_at = excluded.updated_at
        )
        select * from touched`;
      return row;
    },
    /**
     * Inserts an item. A repeated code or barcode raises the unique violation of items__company_id_{code,barcode}__key;
     * a category of another company (or none) the foreign-key violation of items__company_id_category_id__fkey.
     */
    async insert(companyId: number, item: NewItem, stamp: string): Promise<ItemRow> {
      const [row] = await sql<ItemRow[]>`
        insert into ${items}
          (company_id, name, code, barcode, category_id, price_minor, currency, description, created_by_employee_id,
           created_at, updated_at)
        values (${companyId}, ${item.name}, ${item.code}, ${item.barcode}, ${item.categoryId}, ${item.priceMinor},
          ${item.currency}, ${item.description}, ${item.createdByEmployeeId}, ${stamp}::text::timestamptz,
          ${stamp}::text::timestamptz)
        returning ${sql.unsafe(columns)}`;
      return row!;
    },
    /** Changes the given fields of one item of the company; undefined when it has no such item. Same violations as insert. */
    async update(companyId: number, id: number, changes: ItemChanges, stamp: string): Promise<ItemRow | undefined> {
      const [row] = await sql<ItemRow[]>`
        update ${items} set
          name = coalesce(${changes.name ?? null}::text, name),
          code = coalesce(${changes.code ?? null}::text, code),
          barcode = coalesce(${changes.barcode ?? null}::text, barcode),
          category_id = coalesce(${changes.categoryId ?? null}::bigint, category_id),
          -- A place in one category means nothing in another: a moved item goes after the placed ones.
          menu_position = case when category_id is distinct from coalesce(${changes.categoryId ?? null}::bigint, category_id)
            then null else menu_position end,
          price_minor = coalesce(${changes.priceMinor ?? null}::bigint, price_minor),
          currency = coalesce(${changes.currency ?? null}::text, currency),
          description = coalesce(${changes.description ?? null}::text, description),
          updated_at = ${stamp}::text::timestamptz
        where company_id = ${companyId} and id = ${id} and deleted_at is null
        returning ${sql.unsafe(columns)}`;
      return row;
    },
  };
}
