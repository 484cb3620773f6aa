// The items section of the DataService (data_service.proto): the list (and its change feed), creation and update.
// A write that moves an item into or out of a category stamps that category too (its itemIds changed), in the same
// catalogue change, so the categories' change feed and category.updated follow it.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { itemsIn, namedStore } from "./item-message.js";
import { checkedGroups } from "./menu-modifiers.js";
import { itemEvent } from "./catalogue-events.js";
import { regionCurrency } from "./sandbox-data.js";
import { catalogueListing, feedCursor } from "./catalogue-feed.js";
import { writeError } from "./catalogue-write-errors.js";
import { touchCategories } from "./category-message.js";
import { pageOf } from "./cursor.js";
import { listedModifiers } from "./queries/modifier-queries.js";
import { companyOf, defaultPageSize, fail, idOf, type DataContext } from "./data-context.js";

type CatalogueRpcs = "listItems" | "createItem" | "updateItem";

export function createCatalogueHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, CatalogueRpcs> {
  const { region, items, employees, catalogue, now } = shared;

  /** The employee a write is attributed to, or partner.acting_user_unavailable. */
  const actingEmployee = async (companyId: number) => {
    const employeeId = await employees.actingEmployeeId(companyId);
    if (employeeId === undefined) throw fail("partner.acting_user_unavailable");
    return employeeId;
  };

  return {
    async listItems(request, context) {
      const companyId = companyOf(request);
      const storeId =
        request.storeId === undefined
          ? undefined
          : await namedStore(shared, companyId, request.storeId, "storeId", context);
      const limit = request.limit ?? defaultPageSize;
      const listing = catalogueListing("items", request);
      if (!listing.feed) {
        // The page and its modifiers in one statement (the (limit + 1)th row's are read and left: a few rows at most).
        const page = pageOf(await items.listWithModifiers(companyId, listing.afterId, limit + 1), limit);
        return {
          items: await itemsIn(shared, companyId, page.rows, storeId, listedModifiers(page.rows)),
          nextCursor: page.nextCursor,
        };
      }
      // The feed: deleted items too, as tombstones (`deleted: true`, the deletion's updatedAt).
      const rows = await items.changes(companyId, listing.after, limit);
      return {
        items: await itemsIn(shared, companyId, rows, storeId),
        nextCursor: feedCursor("items", rows, listing.after),
      };
    },

    async createItem(request) {
      const companyId = companyOf(request);
      const createdByEmployeeId = await actingEmployee(companyId);
      const groups = checkedGroups(request.modifierGroups, "modifierGroups");
      try {
        return await catalogue.change(companyId, now(), async (writer, stamp) => {
          const row = await writer.items.insert(
            companyId,
            {
              name: request.name,
              code: request.code,
              barcode: request.barcode ?? null,
              categoryId: request.categoryId === undefined ? null : idOf(request.categoryId),
              priceMinor: Number(request.priceMinor),
              currency: request.currency ?? regionCurrency[region],
              description: request.description ?? null,
              createdByEmployeeId,
            },
            stamp,
          );
          if (groups.length > 0) await writer.modifiers.replace(companyId, row.id, groups);
          const [item] = await itemsIn({ ...writer, now }, companyId, [row], undefined);
          const moved = await touchCategories(writer, companyId, [row.category_id], stamp);
          return { result: { item }, events: [itemEvent("item.created", item!), ...moved] };
        });
      } catch (error) {
        throw writeError(error);
      }
    },

    async updateItem(request) {
      const companyId = companyOf(request);
      // Every write is attributable: the schema records the creator only, but an update needs one to exist too.
      await actingEmployee(companyId);
      try {
        return await catalogue.change(companyId, now(), async (writer, stamp) => {
          const before = await writer.items.find(companyId, idOf(request.id));
          const row = await writer.items.update(
            companyId,
            idOf(request.id),
            {
              name: request.name,
              code: request.code,
              barcode: request.barcode,
              categoryId: request.categoryId === undefined ? undefined : idOf(request.categoryId),
              priceMinor: request.priceMinor === undefined ? undefined : Number(request.priceMinor),
              currency: request.currency,
              description: request.description,
            },
            stamp,
          );
          if (!row || !before) throw fail("db.not_found");
          const [item] = await itemsIn({ ...writer, now }, companyId, [row], undefined);
          const moved =
            Number(before.category_id) === Number(row.category_id)
              ? []
              : await touchCategories(writer, companyId, [before.category_id, row.category_id], stamp);
          return { result: { item }, events: [itemEvent("item.updated", item!), ...moved] };
        });
      } catch (error) {
        throw writeError(error);
      }
    },
  };
}
