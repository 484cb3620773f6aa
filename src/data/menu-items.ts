// The item RPCs of the menu (issue 39): one item, its deletion (it leaves the menu; orders keep their copied lines)
// and its availability (and its modifiers') in one store. The list, creation and update are ./catalogue.ts's.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { itemsIn, namedStore } from "./item-message.js";
import { itemEvent } from "./catalogue-events.js";
import { touchCategories } from "./category-message.js";
import { companyOf, dateTimeField, fail, idOf, invalidField, type DataContext } from "./data-context.js";

type MenuItemRpcs = "getItem" | "deleteItem" | "setItemAvailability" | "setModifierAvailability";

export function createMenuItemHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, MenuItemRpcs> {
  const { items, employees, catalogue, now } = shared;

  /** The employee a write is attributed to must exist, as for every catalogue write (./catalogue.ts). */
  const requireActingEmployee = async (companyId: number) => {
    if ((await employees.actingEmployeeId(companyId)) === undefined) throw fail("partner.acting_user_unavailable");
  };

  return {
    async getItem(request, context) {
      const companyId = companyOf(request);
      const storeId =
        request.storeId === undefined
          ? undefined
          : await namedStore(shared, companyId, request.storeId, "storeId", context);
      const row = await items.find(companyId, idOf(request.id));
      if (!row) throw fail("partner.item_not_found", undefined, { field: "id" });
      const [item] = await itemsIn(shared, companyId, [row], storeId);
      return { item };
    },

    async deleteItem(request) {
      const companyId = companyOf(request);
      await requireActingEmployee(companyId);
      return catalogue.change(companyId, now(), async (writer, stamp) => {
        const row = await writer.items.softDelete(companyId, idOf(request.id), stamp);
        if (!row) throw fail("partner.item_not_found", undefined, { field: "id" });
        const [item] = await itemsIn({ ...writer, now }, companyId, [row], undefined);
        // Its category's itemIds lose it: the category changes with it.
        const moved = await touchCategories(writer, companyId, [row.category_id], stamp);
        return { result: {}, events: [itemEvent("item.deleted", item!), ...moved] };
      });
    },

    async setItemAvailability(request, context) {
      const companyId = companyOf(request);
      const setting = availabilitySetting(request, now());
      await requireActingEmployee(companyId);
      const storeId = await namedStore(shared, companyId, request.storeId, "storeId", context);
      return catalogue.change(companyId, now(), async (writer, stamp) => {
        const row = await writer.items.setAvailability(companyId, storeId, idOf(request.itemId), setting, stamp);
        if (!row) throw fail("partner.item_not_found", undefined, { field: "itemId" });
        const [item] = await itemsIn({ ...writer, now }, companyId, [row], storeId);
        return { result: { item }, events: [itemEvent("item.updated", item!, storeId)] };
      });
    },

    async setModifierAvailability(request, context) {
      const companyId = companyOf(request);
      const setting = availabilitySetting(request, now());
      await requireActingEmployee(companyId);
      const storeId = await namedStore(shared, companyId, request.storeId, "storeId", context);
      const modifierId = idOf(request.modifierId);
      return catalogue.change(companyId, now(), async (writer, stamp) => {
        // Read under the change's lock: a replacement of the item's groups (which may remove the modifier) is a
        // change of the same merchant, so it cannot run between this read and the write.
        const itemId = await writer.modifiers.itemOf(companyId, modifierId);
        if (itemId === undefined) throw fail("partner.modifier_not_found", undefined, { field: "modifierId" });
        await writer.modifiers.setAvailability(companyId, storeId, modifierId, setting, stamp);
        const row = (await writer.items.touch(companyId, itemId, stamp))!;
        const [item] = await itemsIn({ ...writer, now }, companyId, [row], storeId);
        return { result: { item }, events: [itemEvent("item.updated", item!, storeId)] };
      });
    },
  };
}

/** The availability a PUT .../availability asks for: `unavailableUntil` only with available false, after now. */
function availabilitySetting(
  request: { available?: boolean; unavailableUntil?: string },
  now: Date,
): { available: boolean; unavailableUntil: Date | null } {
  let unavailableUntil: Date | null = null;
  if (request.unavailableUntil !== undefined) {
    if (request.available) throw invalidField("unavailableUntil", "is only for available: false");
    unavailableUntil = new Date(dateTimeField("unavailableUntil", request.unavailableUntil));
    if (unavailableUntil <= now) throw invalidField("unavailableUntil", "must be after now");
  }
  return { available: request.available ?? true, unavailableUntil };
}
