// Queries of a region's modifier groups, modifiers and modifier availability (migration 0015). Read through
// ../menu-modifiers.ts, which answers them as the menu shows them.
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";
import type { AvailabilityRow, ListedItemRow, ModifierRow } from "./item-queries.js";

export type { ModifierRow } from "./item-queries.js";

/** The modifiers `listWithModifiers` brought with `rows`, as `ofItems` answers them: item, group, modifier order. */
export function listedModifiers(rows: readonly ListedItemRow[]): ModifierRow[] {
  return rows.flatMap((row) =>
    (row.modifiers ?? []).map(([groupId, groupName, min, max, modifierId, modifierName, priceMinor]) => ({
      item_id: row.id,
      group_id: groupId,
      group_name: groupName,
      min_selections: min,
      max_selections: max,
      modifier_id: modifierId,
      modifier_name: modifierName,
      price_minor: priceMinor,
    })),
  );
}

/** A group to write: `id` set keeps that stored group (and `modifiers[].id` those modifiers), unset inserts one. */
export interface GroupWrite {
  id?: number;
  name: string;
  minSelections: number;
  maxSelections: number;
  modifiers: { id?: number; name: string; priceMinor: number }[];
}

/** The modifier queries of one region schema, over `sql`. */
export function createModifierQueries(sql: SqlClient, schema: string) {
  const groups = regionTable(sql, schema, "modifier_groups");
  const modifiers = regionTable(sql, schema, "modifiers");
  const availability = regionTable(sql, schema, "modifier_store_availability");
  const items = regionTable(sql, schema, "items");
  return {
    /** The modifiers of the company's items among `itemIds`, each with its group, in item, group and modifier order. */
    ofItems(companyId: number, itemIds: readonly number[]): Promise<ModifierRow[]> {
      return sql<ModifierRow[]>`
        select g.item_id, g.id as group_id, g.name as group_name, g.min_selections, g.max_selections,
          m.id as modifier_id, m.name as modifier_name, m.price_minor
        from ${groups} g join ${modifiers} m on m.group_id = g.id
        where g.company_id = ${companyId} and g.item_id = any(${[...itemIds]}::bigint[])
        order by g.item_id, g.position, m.position`;
    },
    /** The stored availability rows of `modifierIds` in one store (as AvailabilityRow, `item_id` the modifier's id). */
    availabilityIn(companyId: number, storeId: number, modifierIds: readonly number[]): Promise<AvailabilityRow[]> {
      return sql<AvailabilityRow[]>`
        select modifier_id as item_id, available, unavailable_until from ${availability}
        where company_id = ${companyId} and store_id = ${storeId} and modifier_id = any(${[...modifierIds]}::bigint[])`;
    },
    /** The item a modifier of the company belongs to, when that item is on the menu. */
    async itemOf(companyId: number, modifierId: number): Promise<number | undefined> {
      const [row] = await sql<{ item_id: number }[]>`
        select g.item_id from ${modifiers} m join ${groups} g on g.id = m.group_id
          join ${items} i on i.id = g.item_id and i.deleted_at is null
        where m.company_id = ${companyId} and m.id = ${modifierId}`;
      return row === undefined ? undefined : Number(row.item_id);
    },
    /** Sets a modifier's availability in a store (the store must be the company's: its foreign key). */
    async setAvailability(
      companyId: number,
      storeId: number,
      modifierId: number,
      setting: { available: boolean; unavailableUntil: Date | null },
      stamp: string,
    ): Promise<void> {
      await sql`
        insert into ${availability} (company_id, store_id, modifier_id, available, unavailable_until, updated_at)
        values (${companyId}, ${storeId}, ${modifierId}, ${setting.available}, ${setting.unavailableUntil},
          ${stamp}::text::timestamptz)
        on conflict (store_id, modifier_id) do update set
          available = excluded.available, unavailable_until = excluded.unavailable_until, updated_at = excluded.updated_at`;
    },
    /** The ids of an item's stored groups and of their modifiers (what a replacement may name again). */
    async idsOf(companyId: number, itemId: number): Promise<{ groupIds: Set<number>; modifierIds: Set<number> }> {
      const rows = await sql<{ group_id: number; modifier_id: number | null }[]>`
        select g.id as group_id, m.id as modifier_id from ${groups} g left join ${modifiers} m on m.group_id = g.id
        where g.company_id = ${companyId} and g.item_id = ${itemId}`;
      return {
        groupIds: new Set(rows.map((row) => Number(row.group_id))),
        modifierIds: new Set(rows.flatMap((row) => (row.modifier_id === null ? [] : [Number(row.modifier_id)]))),
      };
    },
    /**
     * Makes `written` the item's groups, in that order: a group or modifier with an id is updated in place (the
     * caller checked it is the item's own: ./idsOf; a modifier may move to another of the item's groups), one without
     * is inserted, and the item's groups and modifiers not named are deleted (their availability rows with them). Run
     * inside the caller's transaction.
     */
    async replace(companyId: number, itemId: number, written: readonly GroupWrite[]): Promise<void> {
      const keptModifiers = written.flatMap((group) =>
        group.modifiers.flatMap((modifier) => (modifier.id === undefined ? [] : [modifier.id])),
      );
      await sql`
        delete from ${modifiers} m using ${groups} g
        where g.id = m.group_id and g.company_id = ${companyId} and g.item_id = ${itemId}
          and m.id <> all(${keptModifiers}::bigint[])`;
      const writtenGroups: number[] = [];
      for (const [position, group] of written.entries()) {
        const groupId = await writeGroup(companyId, itemId, position, group);
        writtenGroups.push(groupId);
        for (const [index, modifier] of group.modifiers.entries()) {
          if (modifier.id === undefined)
            await sql`
              insert into ${modifiers} (company_id, group_id, name, price_minor, position)
              values (${companyId}, ${groupId}, ${modifier.name}, ${modifier.priceMinor}, ${index})`;
          else
            await sql`
              update ${modifiers} set group_id = ${groupId}, name = ${modifier.name},
                price_minor = ${modifier.priceMinor}, position = ${index}
              where company_id = ${companyId} and id = ${modifier.id}`;
        }
      }
      // Last: a modifier named again under another group has moved out by now, so the cascade of a group that is
      // not named again takes none of them (deleted first, it took them with it and the moves found no row).
      await sql`
        delete from ${groups}
        where company_id = ${companyId} and item_id = ${itemId} and id <> all(${writtenGroups}::bigint[])`;
    },
  };

  async function writeGroup(companyId: number, itemId: number, position: number, group: GroupWrite): Promise<number> {
    if (group.id !== undefined) {
      await sql`
        update ${groups} set name = ${group.name}, min_selections = ${group.minSelections},
          max_selections = ${group.maxSelections}, position = ${position}
        where company_id = ${companyId} and id = ${group.id}`;
      return group.id;
    }
    const [row] = await sql<{ id: number }[]>`
      insert into ${groups} (company_id, item_id, name, min_selections, max_selections, position)
      values (${companyId}, ${itemId}, ${group.name}, ${group.minSelections}, ${group.maxSelections}, ${position})
      returning id`;
    return Number(row!.id);
  }
}
