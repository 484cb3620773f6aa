// The catalogue section of the DataService (data_service.proto): stores, items and categories of the merchant.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { itemOf, itemsIn, namedStore } from "./item-message.js";
import { regionCurrency } from "./sandbox-data.js";
import { pageOf } from "./cursor.js";
import type { ItemRow } from "./queries/item-queries.js";
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
  const { region, items, categories, employees, now } = shared;

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
      try {
        const row = await items.insert(
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
          now(),
        );
        return { item: itemOf(row) };
      } catch (error) {
        throw writeError(error);
      }
    },

    async updateItem(request) {
      const companyId = companyOf(request);
      // Every write is attributable: the schema records the creator only, but an update needs one to exist too.
      await actingEmployee(companyId);
      let row: ItemRow | undefined;
      try {
        row = await items.update(
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
          now(),
        );
      } catch (error) {
        throw writeError(error);
      }
      if (!row) throw fail("db.not_found");
      return { item: itemOf(row) };
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
        const row = await categories.insert(companyId, { name: request.name, code: request.code ?? null }, now());
        return { category: { id: BigInt(row.id), name: row.name, code: row.code ?? undefined } };
      } catch (error) {
        throw writeError(error);
      }
    },
  };
}
