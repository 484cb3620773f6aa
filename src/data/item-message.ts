// An item as the DataService answers it, with its availability in one store when the request names one (issue 39):
// no stored row is available; a sold-out row whose unavailable_until has passed reads available again.
import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { ItemSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { messageToJson } from "../runtime/wire/index.js";
import type { AvailabilityRow, createItemQueries, ItemRow } from "./queries/item-queries.js";
import { fail, idOf, storeScopeOf, type DataContext } from "./data-context.js";
import { isAvailableAt } from "./availability.js";
import type { ModifierRow } from "./queries/modifier-queries.js";
import {
  groupedModifiers,
  modifierGroupMessages,
  modifierGroupsOf,
  type MenuModifierGroup,
  type ModifierReader,
} from "./menu-modifiers.js";

/** What reads items: the DataContext, or a catalogue change's queries on its transaction with the clock. */
export interface ItemReader extends ModifierReader {
  items: Pick<ReturnType<typeof createItemQueries>, "availabilityIn">;
}

/**
 * The Item message of a row: its modifier groups when given (./menu-modifiers.ts; none: an item without), its
 * availability in a store when given, `deleted: true` for an item that left the menu (a change feed's tombstone).
 */
export function itemOf(
  row: ItemRow,
  availability?: { row: AvailabilityRow | undefined; now: Date },
  groups: readonly MenuModifierGroup[] = [],
) {
  const item: MessageInitShape<typeof ItemSchema> = {
    id: BigInt(row.id),
    name: row.name,
    code: row.code ?? "",
    barcode: row.barcode ?? undefined,
    categoryId: row.category_id === null ? undefined : BigInt(row.category_id),
    priceMinor: BigInt(row.price_minor),
    currency: row.currency,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_key,
    description: row.description ?? undefined,
    modifierGroups: modifierGroupMessages(groups),
    deleted: row.deleted_at === null ? undefined : true,
  };
  if (availability) {
    const available = isAvailableAt(availability.row, availability.now);
    item.available = available;
    if (!available) item.unavailableUntil = availability.row?.unavailable_until?.toISOString();
  }
  return item;
}

/**
 * The store a read or a write names in `field`: one of the company's, within the stores the call may reach
 * (partner.store_not_found, partner.store_not_in_scope naming the field otherwise).
 */
export async function namedStore(
  shared: DataContext,
  companyId: number,
  storeId: bigint,
  field: string,
  context: HandlerContext,
): Promise<number> {
  const id = idOf(storeId);
  const scope = storeScopeOf(context);
  if (scope && !scope.includes(id)) throw fail("partner.store_not_in_scope", undefined, { field });
  if ((await shared.stores.countAmong(companyId, [id])) !== 1)
    throw fail("partner.store_not_found", undefined, { field });
  return id;
}

/**
 * The items of `rows` as answered, with their modifier groups, and their availability in `storeId` when there is one.
 * `modifierRows`: the rows' modifiers when they were read with them (`items.listWithModifiers`); else they are read.
 */
export async function itemsIn(
  shared: ItemReader,
  companyId: number,
  rows: ItemRow[],
  storeId: number | undefined,
  modifierRows?: readonly ModifierRow[],
) {
  const groups = modifierRows
    ? await groupedModifiers(shared, companyId, modifierRows, storeId)
    : await modifierGroupsOf(
        shared,
        companyId,
        rows.map((row) => Number(row.id)),
        storeId,
      );
  const groupsOf = (row: ItemRow) => groups.get(Number(row.id));
  if (storeId === undefined) return rows.map((row) => itemOf(row, undefined, groupsOf(row)));
  const stored = new Map(
    (
      await shared.items.availabilityIn(
        companyId,
        storeId,
        rows.map((row) => row.id),
      )
    ).map((row) => [Number(row.item_id), row]),
  );
  const now = shared.now();
  return rows.map((row) => itemOf(row, { row: stored.get(Number(row.id)), now }, groupsOf(row)));
}

/** An item message as JSON, as GET /v1/items/{id} answers it: an event's `item`. */
export function itemJson(item: MessageInitShape<typeof ItemSchema>): JsonObject {
  return messageToJson(ItemSchema, create(ItemSchema, item));
}
