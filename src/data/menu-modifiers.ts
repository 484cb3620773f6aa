// An item's modifier groups (issue 39) as the menu shows them, and the checks of a write that gives them.
//
// `modifierGroupsOf(shared, companyId, itemIds, storeId)` (shared: the DataContext) answers, for each item id that has
// groups, its groups in menu order, each `{ id, itemId, name, minSelections, maxSelections, modifiers }` with
// `modifiers: [{ id, groupId, name, priceMinor, available }]` (priceMinor in the item's currency; `available` in
// that store at the DataContext's now, or undefined without a store). Look a line's modifierId up among its own
// item's groups: a modifier of another item (or none) is not that item's. Items without groups are absent.
// Pricing an order reads the same with its items in one statement (ItemQueries.findManyIn): `modifierGroupsIn`.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModifierGroupInput, ModifierGroupSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { isAvailableAt } from "./availability.js";
import { fail } from "./data-context.js";
import type { createModifierQueries, GroupWrite, ModifierRow } from "./queries/modifier-queries.js";
import type { AvailabilityRow, ModifierInStore } from "./queries/item-queries.js";

/** What reads the menu: the region's modifier queries (the DataContext's, or a change's on its transaction), the clock. */
export interface ModifierReader {
  modifiers: ReturnType<typeof createModifierQueries>;
  now: () => Date;
}

export interface MenuModifier {
  id: number;
  groupId: number;
  name: string;
  priceMinor: number;
  /** In the store read, at now; undefined when no store was named. */
  available: boolean | undefined;
  /** When a sold-out modifier sells again by itself; only with available false. */
  unavailableUntil: Date | undefined;
}

export interface MenuModifierGroup {
  id: number;
  itemId: number;
  name: string;
  minSelections: number;
  maxSelections: number;
  modifiers: MenuModifier[];
}

/** The modifier groups of the company's `itemIds`, by item id, with availability in `storeId` when given. */
export async function modifierGroupsOf(
  shared: ModifierReader,
  companyId: number,
  itemIds: readonly number[],
  storeId: number | undefined,
): Promise<Map<number, MenuModifierGroup[]>> {
  if (itemIds.length === 0) return new Map();
  return groupedModifiers(shared, companyId, await shared.modifiers.ofItems(companyId, itemIds), storeId);
}

/**
 * `modifierGroupsOf` for modifier rows already read (`ofItems`' rows, or those a page of items brought with it:
 * `items.listWithModifiers`), in item, group and modifier order; reads only their availability in `storeId`.
 */
export async function groupedModifiers(
  shared: ModifierReader,
  companyId: number,
  rows: readonly ModifierRow[],
  storeId: number | undefined,
): Promise<Map<number, MenuModifierGroup[]>> {
  const byItem = new Map<number, MenuModifierGroup[]>();
  const stored =
    storeId === undefined || rows.length === 0
      ? undefined
      : new Map(
          (
            await shared.modifiers.availabilityIn(
              companyId,
              storeId,
              rows.map((row) => Number(row.modifier_id)),
            )
          ).map((row) => [Number(row.item_id), row]),
        );
  return groupRows(byItem, rows, stored && ((id) => stored.get(id)), shared.now());
}

/**
 * The groups of items read with their modifiers' availability in one store (ItemQueries.findManyIn: the rows of
 * each item in group and modifier order), as modifierGroupsOf answers them for that store.
 */
export function modifierGroupsIn(
  items: ReadonlyArray<{ modifiers: readonly ModifierInStore[] }>,
  now: Date,
): Map<number, MenuModifierGroup[]> {
  const byItem = new Map<number, MenuModifierGroup[]>();
  for (const { modifiers } of items) {
    const held = new Map<number, AvailabilityRow>();
    for (const row of modifiers)
      if (row.available !== null)
        held.set(Number(row.modifier_id), {
          item_id: Number(row.modifier_id),
          available: row.available,
          unavailable_until: row.unavailable_until === null ? null : new Date(row.unavailable_until),
        });
    groupRows(byItem, modifiers, (id) => held.get(id), now);
  }
  return byItem;
}

/** Adds `rows` (in item, group and modifier order) to `byItem`; `availabilityOf` undefined: no store was named. */
function groupRows(
  byItem: Map<number, MenuModifierGroup[]>,
  rows: readonly ModifierRow[],
  availabilityOf: ((modifierId: number) => AvailabilityRow | undefined) | undefined,
  now: Date,
): Map<number, MenuModifierGroup[]> {
  for (const row of rows) {
    const itemId = Number(row.item_id);
    const groups = byItem.get(itemId) ?? [];
    byItem.set(itemId, groups);
    let group = groups.at(-1);
    if (group?.id !== Number(row.group_id)) {
      group = {
        id: Number(row.group_id),
        itemId,
        name: row.group_name,
        minSelections: row.min_selections,
        maxSelections: row.max_selections,
        modifiers: [],
      };
      groups.push(group);
    }
    const availability = availabilityOf?.(Number(row.modifier_id));
    const available = availabilityOf === undefined ? undefined : isAvailableAt(availability, now);
    group.modifiers.push({
      id: Number(row.modifier_id),
      groupId: group.id,
      name: row.modifier_name,
      priceMinor: Number(row.price_minor),
      available,
      unavailableUntil: available === false ? (availability?.unavailable_until ?? undefined) : undefined,
    });
  }
  return byItem;
}

/** The groups as the Item message carries them. */
export function modifierGroupMessages(
  groups: readonly MenuModifierGroup[],
): MessageInitShape<typeof ModifierGroupSchema>[] {
  return groups.map((group) => ({
    id: BigInt(group.id),
    name: group.name,
    minSelections: group.minSelections,
    maxSelections: group.maxSelections,
    modifiers: group.modifiers.map((modifier) => ({
      id: BigInt(modifier.id),
      name: modifier.name,
      priceMinor: BigInt(modifier.priceMinor),
      available: modifier.available,
      unavailableUntil: modifier.unavailableUntil?.toISOString(),
    })),
  }));
}

const invalidGroups = (field: string) => fail("partner.modifier_group_invalid", undefined, { field });

/**
 * The groups of a write, checked (partner.modifier_group_invalid naming the first offending field): min at most max,
 * max at most the group's modifiers, names unique among the item's groups and within a group, no id twice. `owned`
 * (a replacement) holds the item's stored ids, which alone may be named (partner.modifier_not_found otherwise);
 * without it (a creation) no id may be given.
 */
export function checkedGroups(
  input: readonly ModifierGroupInput[],
  field: string,
  owned?: { groupIds: Set<number>; modifierIds: Set<number> },
): GroupWrite[] {
  const groupNames = new Set<string>();
  const seenIds = new Set<string>();
  const idOfInput = (id: bigint | undefined, kind: "group" | "modifier", at: string): number | undefined => {
    if (id === undefined) return undefined;
    const known = kind === "group" ? owned?.groupIds : owned?.modifierIds;
    if (!known?.has(Number(id))) throw fail("partner.modifier_not_found", undefined, { field: `${at}.id` });
    if (seenIds.has(`${kind}:${id}`)) throw invalidGroups(`${at}.id`);
    seenIds.add(`${kind}:${id}`);
    return Number(id);
  };
  return input.map((group, index) => {
    const at = `${field}[${index}]`;
    if (groupNames.has(group.name)) throw invalidGroups(`${at}.name`);
    groupNames.add(group.name);
    if (group.minSelections > group.maxSelections) throw invalidGroups(`${at}.minSelections`);
    if (group.maxSelections > group.modifiers.length) throw invalidGroups(`${at}.maxSelections`);
    const modifierNames = new Set<string>();
    const id = idOfInput(group.id, "group", at);
    const modifiers = group.modifiers.map((modifier, position) => {
      const modifierAt = `${at}.modifiers[${position}]`;
      if (modifierNames.has(modifier.name)) throw invalidGroups(`${modifierAt}.name`);
      modifierNames.add(modifier.name);
      return {
        id: idOfInput(modifier.id, "modifier", modifierAt),
        name: modifier.name,
        priceMinor: Number(modifier.priceMinor),
      };
    });
    return { id, name: group.name, minSelections: group.minSelections, maxSelections: group.maxSelections, modifiers };
  });
}
