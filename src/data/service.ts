// DataService: the business routes of one region (stores, items, categories, online orders, reports), served from
// that region's database only. The public front authenticates, limits and routes a partner call, then calls the
// DataService of the merchant's region with `company_id` set from the token; internal callers set it themselves.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { DataService, type ItemSchema, type OnlineOrderSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { parseStoreScope, storeScopeHeader } from "./store-scope.js";
import { regionCurrency } from "./sandbox-data.js";
import { createCategoryQueries } from "./queries/category-queries.js";
import { decodeCursor, decodeTimeCursor, pageOf, timePageOf } from "./cursor.js";
import { parseDateTime } from "./date-time.js";
import { createEmployeeQueries } from "./queries/employee-queries.js";
import { createItemQueries, type ItemRow } from "./queries/item-queries.js";
import { createOrderQueries, type OnlineOrderRow } from "./queries/order-queries.js";
import { violatedConstraint } from "./queries/region-tables.js";
import { createReportQueries } from "./queries/report-queries.js";
import { checkReportWindow } from "./report-window.js";
import { createStoreQueries } from "./queries/store-queries.js";
import { serviceError } from "../errors/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Region } from "../config/regions.js";
import { regionSchema } from "../storage/schemas.js";
import type { ServiceContext } from "../runtime/service-context.js";

export interface DataServiceOptions {
  /** The region whose database this instance serves; it never touches another region's data. */
  region: Region;
  /** That region's database (its own, or the control database's client: the schema is region_<r> either way). */
  sql: SqlClient;
}

/** Page size of a list when `limit` is absent (spec: GET /v1/items, default 10). */
export const defaultPageSize = 10;

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

const fail = (code: Parameters<typeof serviceError>[1], cause?: unknown, params: Record<string, string> = {}) =>
  serviceError(DataService.typeName, code, params, cause);

/** The stores the caller may read (./store-scope.ts): undefined for every store. */
function storeScopeOf(context: HandlerContext): number[] | undefined {
  return parseStoreScope(context.requestHeader.get(storeScopeHeader));
}

/** The merchant of a request: set by the front from the token, required from internal callers. */
function companyOf(request: { companyId?: bigint }): number {
  if (request.companyId === undefined) throw fail("partner.company_param_required");
  return Number(request.companyId);
}

/** The id of a request path, or 0 (never a row) when it is beyond what our ids can be. */
function idOf(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? 0 : Number(value);
}

/** The row id a list continues after; a cursor we did not issue is a validation failure naming `cursor`. */
function afterIdOf(cursor: string | undefined): number {
  const afterId = decodeCursor(cursor);
  if (afterId === undefined) throw serviceError(DataService.typeName, "request.invalid_fields", { fields: "cursor" });
  return afterId;
}

/** Turns a broken named constraint into its catalogue code; anything else goes on as it was. */
function writeError(error: unknown): unknown {
  const unique = violatedConstraint(error, "23505");
  const field = unique === undefined ? undefined : duplicateConstraints.get(unique);
  if (field) return fail("db.duplicate", error, { field });
  const reference = violatedConstraint(error, "23503");
  if (reference && missingReferenceConstraints.has(reference)) return fail("db.not_found", error);
  return error;
}

function itemOf(row: ItemRow): MessageInitShape<typeof ItemSchema> {
  return {
    id: BigInt(row.id),
    name: row.name,
    code: row.code ?? "",
    barcode: row.barcode ?? undefined,
    categoryId: row.category_id === null ? undefined : BigInt(row.category_id),
    priceMinor: BigInt(row.price_minor),
    currency: row.currency,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function orderOf(row: OnlineOrderRow): MessageInitShape<typeof OnlineOrderSchema> {
  return {
    id: BigInt(row.id),
    storeId: BigInt(row.store_id),
    status: row.status,
    totalMinor: BigInt(row.total_minor),
    currency: row.currency,
    placedAt: row.placed_at.toISOString(),
    lines: (Array.isArray(row.lines) ? row.lines : []).map((line) => {
      const quantity = Number.isSafeInteger(line.quantity) ? line.quantity! : 0;
      const unit = Number.isSafeInteger(line.priceMinor) ? line.priceMinor! : 0;
      return {
        itemCode: line.itemCode ?? "",
        name: line.name ?? "",
        quantity,
        unitPriceMinor: BigInt(unit),
        totalMinor: BigInt(unit * quantity),
      };
    }),
  };
}

/** A DataService implementation: one per region, on that region's database. */
export type DataServiceImpl = ServiceImpl<typeof DataService>;

export function createDataService(context: ServiceContext, options: DataServiceOptions): DataServiceImpl {
  const { region, sql } = options;
  const schema = regionSchema(region);
  const stores = createStoreQueries(sql, schema);
  const items = createItemQueries(sql, schema);
  const categories = createCategoryQueries(sql, schema);
  const employees = createEmployeeQueries(sql, schema);
  const orders = createOrderQueries(sql, schema);
  const reports = createReportQueries(sql, schema);
  const now = () => new Date(context.clock.now());

  /** The employee a write is attributed to, or partner.acting_user_unavailable. */
  const actingEmployee = async (companyId: number) => {
    const employeeId = await employees.actingEmployeeId(companyId);
    if (employeeId === undefined) throw fail("partner.acting_user_unavailable");
    return employeeId;
  };

  const window = (request: { from: string; to: string }) => {
    const checked = checkReportWindow(request.from, request.to);
    if (!checked.ok) throw fail(checked.code);
    return checked;
  };

  return {
    async listStores(request, context) {
      const companyId = companyOf(request);
      const limit = request.limit ?? defaultPageSize;
      const page = pageOf(
        await stores.list(companyId, afterIdOf(request.cursor), limit + 1, storeScopeOf(context)),
        limit,
      );
      return { stores: page.rows.map((row) => ({ id: BigInt(row.id), name: row.name })), nextCursor: page.nextCursor };
    },

    async listItems(request) {
      const companyId = companyOf(request);
      const limit = request.limit ?? defaultPageSize;
      const page = pageOf(await items.list(companyId, afterIdOf(request.cursor), limit + 1), limit);
      return { items: page.rows.map(itemOf), nextCursor: page.nextCursor };
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

    async listOnlineOrders(request, context) {
      const companyId = companyOf(request);
      const limit = request.limit ?? defaultPageSize;
      const after = decodeTimeCursor(request.cursor);
      // Checked here, not by a field rule: the rule would need the RFC 3339 grammar as a pattern, and a bad value is
      // the same validation failure either way (request.invalid_fields naming the fields, by their JSON names).
      const invalid: string[] = [];
      if (after === undefined) invalid.push("cursor");
      const from = request.placedFrom === undefined ? undefined : parseDateTime(request.placedFrom);
      const to = request.placedTo === undefined ? undefined : parseDateTime(request.placedTo);
      if (request.placedFrom !== undefined && from === undefined) invalid.push("placedFrom");
      if (request.placedTo !== undefined && to === undefined) invalid.push("placedTo");
      if (invalid.length === 0 && from !== undefined && to !== undefined && to < from)
        invalid.push("placedFrom", "placedTo");
      if (invalid.length > 0)
        throw serviceError(DataService.typeName, "request.invalid_fields", { fields: invalid.join(", ") });
      const filter = {
        status: request.status,
        placedFrom: request.placedFrom,
        placedTo: request.placedTo,
        storeIds: storeScopeOf(context),
      };
      const page = timePageOf(await orders.list(companyId, after ?? null, filter, limit + 1), limit);
      return { orders: page.rows.map(orderOf), nextCursor: page.nextCursor };
    },

    async getOnlineOrder(request) {
      const companyId = companyOf(request);
      const row = await orders.find(companyId, idOf(request.id));
      if (!row) throw fail("partner.order_not_found");
      return { order: orderOf(row) };
    },

    async getDailySalesReport(request, context) {
      const companyId = companyOf(request);
      const { from, to } = window(request);
      const rows = await reports.dailySales(companyId, from, to, storeScopeOf(context));
      return {
        from,
        to,
        currency: regionCurrency[region],
        days: rows.map((row) => ({
          date: row.date,
          saleCount: BigInt(row.sale_count),
          itemCount: BigInt(row.item_count),
          totalMinor: BigInt(row.total_minor),
        })),
      };
    },

    async getSalesByStoreReport(request, context) {
      const companyId = companyOf(request);
      const { from, to } = window(request);
      const rows = await reports.salesByStore(companyId, from, to, storeScopeOf(context));
      return {
        from,
        to,
        currency: regionCurrency[region],
        stores: rows.map((row) => ({
          storeId: BigInt(row.store_id),
          storeName: row.store_name,
          saleCount: BigInt(row.sale_count),
          itemCount: BigInt(row.item_count),
          totalMinor: BigInt(row.total_minor),
        })),
      };
    },
  };
}
