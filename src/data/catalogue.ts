// The catalogue section of the DataService (data_service.proto): stores, items and categories of the merchant.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { itemsIn, namedStore } from "./item-message.js";
import { checkedGroups } from "./menu-modifiers.js";
import { categoryEvent, itemEvent } from "./catalogue-events.js";
import { regionCurrency } from "./sandbox-data.js";
import { pageOf } from "./cursor.js";
import { violatedConstraint } from "./queries/region-tables.js";
import { afterIdOf, companyOf, defaultPageSize, fail, idOf, type DataContext } from "./data-context.js";

/**
 * Unique constraints a partner write can break, each with the request field (its JSON name) that clashed: db.duplicate
 * names it in `params.field`, so a partner knows which value to change without parsing the message.
 */
const duplicateConstraints = new Map([
  ["items__company_id_code__key", "code"],
  ["items__company_id_barcode__key", "barcode"],
  ["categories__company_id_name__key", "name"],
  ["categories__company_id_code__key", "code"],
]);
const missingReferenceConstraints = new Set(["items__company_id_category_id__fkey"]);

/** Turns a broken named constraint into its catalogue code; anything else goes on as it was. */
function writeError(error: unknown): unknown {
  const unique = violatedConstraint(error, "23505");
  const field = unique === undefined ? undefined : duplicateConstraints.get(unique);
  if (field) return fail("db.duplicate", error, { field });
  const reference = violatedConstraint(error, "23503");
  if (reference && missingReferenceConstraints.has(reference)) return fail("db.not_found", error);
  return error;
}

type CatalogueRpcs = "listItems" | "createItem" | "updateItem" | "listCategories" | "createCategory";

export function createCatalogueHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, CatalogueRpcs> {
  const { region, items, categories, employees, catalogue, now } = shared;

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
      const page = pageOf(await items.list(companyId, afterIdOf(request.cursor), limit + 1), limit);
      return { items: await itemsIn(shared, companyId, page.rows, storeId), nextCursor: page.nextCursor };
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
          return { result: { item }, events: [itemEvent("item.created", item!)] };
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
          if (!row) throw fail("db.not_found");
          const [item] = await itemsIn({ ...writer, now }, companyId, [row], undefined);
          return { result: { item }, events: [itemEvent("item.updated", item!)] };
        });
      } catch (error) {
        throw writeError(error);
      }
    },

    async listCategories(request) {
      const companyId = companyOf(request);
      const limit = request.limit ?? defaultPageSize;
      const page = pageOf(await categories.list(companyId, afterIdOf(request.cursor), limit + 1), limit);
      return {
        categories: page.rows.map((row) => ({ id: BigInt(row.id), name: row.name, code: row.code ?? undefined })),
        nextCursor: page.nextCursor,
      };
    },

    async createCategory(request) {
      const companyId = companyOf(request);
      await actingEmployee(companyId);
      try {
        return await catalogue.change(companyId, now(), async (writer, stamp) => {
          const row = await writer.categories.insert(
            companyId,
            { name: request.name, code: request.code ?? null },
            stamp,
          );
          const category = { id: BigInt(row.id), name: row.name, code: row.code ?? undefined };
          return { result: { category }, events: [categoryEvent("category.created", category)] };
        });
      } catch (error) {
        throw writeError(error);
      }
    },
  };
}
