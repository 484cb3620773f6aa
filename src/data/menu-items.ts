// The item RPCs of the menu (issue 39): one item, its deletion (it leaves the menu; orders keep their copied lines)
// and its availability in one store. The list, creation and update are ./catalogue.ts's.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { itemsIn, namedStore } from "./item-message.js";
import { companyOf, dateTimeField, fail, idOf, invalidField, type DataContext } from "./data-context.js";

type MenuItemRpcs = "getItem" | "deleteItem" | "setItemAvailability";

export function createMenuItemHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, MenuItemRpcs> {
  const { items, employees, now } = shared;

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
      if (!(await items.softDelete(companyId, idOf(request.id), now())))
        throw fail("partner.item_not_found", undefined, { field: "id" });
      return {};
    },

    async setItemAvailability(request, context) {
      const companyId = companyOf(request);
      let unavailableUntil: Date | null = null;
      if (request.unavailableUntil !== undefined) {
        if (request.available) throw invalidField("unavailableUntil", "is only for available: false");
        unavailableUntil = new Date(dateTimeField("unavailableUntil", request.unavailableUntil));
        if (unavailableUntil <= now()) throw invalidField("unavailableUntil", "must be after now");
      }
      await requireActingEmployee(companyId);
      const storeId = await namedStore(shared, companyId, request.storeId, "storeId", context);
      const row = await items.setAvailability(
        companyId,
        storeId,
        idOf(request.itemId),
        { available: request.available ?? true, unavailableUntil },
        now(),
      );
      if (!row) throw fail("partner.item_not_found", undefined, { field: "itemId" });
      const [item] = await itemsIn(shared, companyId, [row], storeId);
      return { item };
    },
  };
}
