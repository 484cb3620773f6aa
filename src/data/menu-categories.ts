// The category RPCs of the menu (issue 39): the list and its change feed, creation, and the update of a category's
// fields, its place on the menu (`sortOrder`) and its items' order (`itemIds`). Each write is one catalogue change
// (./catalogue-changes.ts) with its category event in the same transaction.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService, UpdateCategoryRequest } from "../../gen/partnerapi/v1/data_service_pb.js";
import { categoryEvent } from "./catalogue-events.js";
import { catalogueListing, feedCursor } from "./catalogue-feed.js";
import { writeError } from "./catalogue-write-errors.js";
import { categoriesIn } from "./category-message.js";
import { pageOf } from "./cursor.js";
import { companyOf, defaultPageSize, fail, idOf, type DataContext } from "./data-context.js";

type CategoryRpcs = "listCategories" | "createCategory" | "updateCategory";

/** Whether `asked` is exactly `current` in another order: each item once, none missing, none added. */
function sameItems(current: readonly number[], asked: readonly number[]): boolean {
  const held = new Set(current);
  return asked.length === current.length && new Set(asked).size === asked.length && asked.every((id) => held.has(id));
}

/** The fields of an UpdateCategoryRequest that change the category's own row. */
function rowChanges(request: UpdateCategoryRequest) {
  return {
    ...(request.name === undefined ? {} : { name: request.name }),
    ...(request.code === undefined ? {} : { code: request.code }),
    ...(request.sortOrder === undefined ? {} : { sortOrder: request.sortOrder }),
  };
}

export function createCategoryHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, CategoryRpcs> {
  const { categories, employees, catalogue, now } = shared;

  /** The employee a write is attributed to must exist, as for every catalogue write (./catalogue.ts). */
  const requireActingEmployee = async (companyId: number) => {
    if ((await employees.actingEmployeeId(companyId)) === undefined) throw fail("partner.acting_user_unavailable");
  };

  return {
    async listCategories(request) {
      const companyId = companyOf(request);
      const limit = request.limit ?? defaultPageSize;
      const listing = catalogueListing("categories", request);
      if (!listing.feed) {
        const page = pageOf(await categories.list(companyId, listing.afterId, limit + 1), limit);
        return { categories: await categoriesIn(shared, companyId, page.rows), nextCursor: page.nextCursor };
      }
      const rows = await categories.changes(companyId, listing.after, limit);
      return {
        categories: await categoriesIn(shared, companyId, rows),
        nextCursor: feedCursor("categories", rows, listing.after),
      };
    },

    async createCategory(request) {
      const companyId = companyOf(request);
      await requireActingEmployee(companyId);
      try {
        return await catalogue.change(companyId, now(), async (writer, stamp) => {
          const row = await writer.categories.insert(
            companyId,
            { name: request.name, code: request.code ?? null, sortOrder: request.sortOrder ?? 0 },
            stamp,
          );
          const [category] = await categoriesIn(writer, companyId, [row]);
          return { result: { category }, events: [categoryEvent("category.created", category!)] };
        });
      } catch (error) {
        throw writeError(error);
      }
    },

    async updateCategory(request) {
      const companyId = companyOf(request);
      await requireActingEmployee(companyId);
      const id = idOf(request.id);
      const changes = rowChanges(request);
      const itemIds = request.itemIds.map(idOf);
      if (Object.keys(changes).length === 0 && itemIds.length === 0) {
        // Nothing to change: the category as it is, and no change (no stamp, no event).
        const row = await categories.find(companyId, id);
        if (!row) throw fail("partner.category_not_found", undefined, { field: "id" });
        const [category] = await categoriesIn(shared, companyId, [row]);
        return { category };
      }
      try {
        return await catalogue.change(companyId, now(), async (writer, stamp) => {
          // Read under the change's lock: an item write that moves items in or out is a change of the same merchant.
          if (!(await writer.categories.find(companyId, id)))
            throw fail("partner.category_not_found", undefined, { field: "id" });
          if (itemIds.length > 0) {
            const current = (await writer.items.inCategories(companyId, [id])).get(id) ?? [];
            if (!sameItems(current, itemIds))
              throw fail("partner.category_items_mismatch", undefined, { field: "itemIds" });
            await writer.items.reorder(companyId, id, itemIds);
          }
          const row = (await writer.categories.update(companyId, id, changes, stamp))!;
          const [category] = await categoriesIn(writer, companyId, [row]);
          return { result: { category }, events: [categoryEvent("category.updated", category!)] };
        });
      } catch (error) {
        throw writeError(error);
      }
    },
  };
}
