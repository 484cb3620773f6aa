// The modifiers of one order line (issue 39), checked against its item's groups as the catalogue has them at placing
// and copied onto the line like the item's name and price. Each refusal is a code of its own naming the field
// (docs/error-codes.md; docs/decisions.md, "The menu: orders"): a modifier given twice (validation failure), one that
// is not the item's (partner.modifier_not_found), one sold out in the store (partner.modifier_sold_out), then each
// group's selections outside its minimum and maximum (partner.modifier_selections_out_of_range).
import { DataService, type OnlineOrderLineModifierInput } from "../../gen/partnerapi/v1/data_service_pb.js";
import { serviceError } from "../errors/index.js";
import { fail, idOf, invalidField } from "./data-context.js";
import type { MenuModifier, MenuModifierGroup } from "./menu-modifiers.js";
import type { StoredLineModifier } from "./queries/order-queries.js";

export interface PricedModifiers {
  /** As stored on the line, in the order the partner gave them. */
  modifiers: StoredLineModifier[];
  /** What they add to one of the line's items, in minor units. */
  eachMinor: number;
}

/**
 * Checks line `index`'s modifiers against `groups` (its item's, with availability in the order's store) and prices
 * them. An item without groups takes no modifiers; an item with a required group needs its selections.
 */
export function priceLineModifiers(
  input: readonly OnlineOrderLineModifierInput[],
  groups: readonly MenuModifierGroup[],
  index: number,
): PricedModifiers {
  const field = `lines.${index}.modifiers`;
  const byId = new Map<number, MenuModifier>();
  for (const group of groups) for (const modifier of group.modifiers) byId.set(modifier.id, modifier);
  const selections = new Map<number, number>();
  const modifiers: StoredLineModifier[] = [];
  let eachMinor = 0;
  for (const [position, chosen] of input.entries()) {
    const at = `${field}.${position}.modifierId`;
    const id = idOf(chosen.modifierId);
    if (modifiers.some((modifier) => modifier.modifierId === id))
      throw invalidField(at, "names a modifier the line has already; give its quantity instead");
    const modifier = byId.get(id);
    if (!modifier) throw fail("partner.modifier_not_found", undefined, { field: at });
    if (modifier.available === false) throw fail("partner.modifier_sold_out", undefined, { field: at });
    const quantity = chosen.quantity ?? 1;
    selections.set(modifier.groupId, (selections.get(modifier.groupId) ?? 0) + quantity);
    eachMinor += modifier.priceMinor * quantity;
    modifiers.push({ modifierId: modifier.id, name: modifier.name, priceMinor: modifier.priceMinor, quantity });
  }
  for (const group of groups) {
    const chosen = selections.get(group.id) ?? 0;
    if (chosen < group.minSelections || chosen > group.maxSelections)
      throw serviceError(DataService.typeName, "partner.modifier_selections_out_of_range", {
        field,
        groupId: group.id,
        minSelections: group.minSelections,
        maxSelections: group.maxSelections,
      });
  }
  return { modifiers, eachMinor };
}
