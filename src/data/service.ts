// DataService: the business routes of one region (stores, items, categories, online orders, reports), served from
// that region's database only. The public front authenticates, limits and routes a partner call, then calls the
// DataService of the merchant's region with `company_id` set from the token; internal callers set it themselves.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  DataService,
  FulfilmentType,
  OnlineOrderReason,
  OnlineOrderReasonSchema,
  type ItemSchema,
  type OnlineOrderEventSchema,
  type PlaceOnlineOrderRequest,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { parseStoreScope, storeScopeHeader } from "./store-scope.js";
import { regionCurrency } from "./sandbox-data.js";
import { createCategoryQueries } from "./queries/category-queries.js";
import { decodeCursor, decodeFeedCursor, decodeTimeCursor, encodeFeedCursor, pageOf, timePageOf } from "./cursor.js";
import { microsecondsUtc, parseDateTime } from "./date-time.js";
import { createOrderChanges } from "./order-changes.js";
import { orderOf, reasonOf } from "./order-message.js";
import { checkDeliveryNeeds, checkRequestedFor } from "./order-placement-rules.js";
import { merchantReasons, posMoveTo, type OrderMoveName } from "./order-lifecycle.js";
import { isSandboxCall, partnerAppOf } from "./partner-call.js";
import { createEmployeeQueries } from "./queries/employee-queries.js";
import { createItemQueries, type ItemRow } from "./queries/item-queries.js";
import {
  createOrderQueries,
  type MoveColumns,
  type OnlineOrderRow,
  type OrderEventRow,
  type StoredOrderLine,
} from "./queries/order-queries.js";
import { violatedConstraint } from "./queries/region-tables.js";
import { createReportQueries } from "./queries/report-queries.js";
import { checkReportWindow } from "./report-window.js";
import { createStoreQueries } from "./queries/store-queries.js";
import { serviceError, serviceErrorWithDetails } from "../errors/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Region } from "../config/regions.js";
import { regionSchema } from "../storage/schemas.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { wireEnumName } from "../runtime/wire/index.js";

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

/** Whether a move ends the order's story (the autopilot has nothing left to do). */
function isFinalMove(move: OrderMoveName): boolean {
  return (
    move === "reject" ||
    move === "complete" ||
    move === "cancelByMerchant" ||
    move === "cancelByPartner" ||
    move === "timeOut"
  );
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

/** The enum as the reason column stores it; undefined for UNSPECIFIED. */
function reasonText(reason: OnlineOrderReason): string | undefined {
  return wireEnumName(OnlineOrderReasonSchema, reason);
}

function eventOf(row: OrderEventRow): MessageInitShape<typeof OnlineOrderEventSchema> {
  return {
    id: BigInt(row.id),
    type: row.type,
    fromStatus: row.from_status ?? "",
    toStatus: row.status,
    actor: row.actor,
    reason: reasonOf(row.reason),
    occurredAt: row.occurred_at.toISOString(),
  };
}

/** A validation failure of the partner envelope (400, no code) naming `field`, with the rule it broke. */
function invalidField(field: string, rule: string) {
  return serviceErrorWithDetails(DataService.typeName, "request.invalid_fields", { fields: field }, [{ field, rule }]);
}

/** An RFC 3339 date-time field as an ISO instant, or a validation failure naming it. */
function dateTimeField(field: string, text: string): string {
  const millis = parseDateTime(text);
  if (millis === undefined) throw invalidField(field, "must be an RFC 3339 date-time with an offset");
  return microsecondsUtc(text) ?? new Date(millis).toISOString();
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
  const changes = createOrderChanges(sql, schema);
  const { decisionSeconds, autopilotSeconds } = context.config.onlineOrders;
  const now = () => new Date(context.clock.now());
  const later = (seconds: number) => new Date(context.clock.now() + seconds * 1000).toISOString();

  /** One move of the lifecycle with the columns every such move sets, by `actor`. */
  const makeMove = async (
    companyId: number,
    id: number,
    name: OrderMoveName,
    set: MoveColumns,
    actor: string,
    check?: (order: OnlineOrderRow) => void,
  ) => {
    const leavesPending = name === "accept" || name === "reject" || name === "cancelByPartner" || name === "timeOut";
    const columns: MoveColumns = { ...set, ...(leavesPending ? { decideBy: null } : {}) };
    return { order: orderOf(await changes.move(companyId, id, name, columns, actor, now(), check)) };
  };

  /** The merchant's reason of a reject or a cancel: one a point of sale may give (not the platform's own). */
  const merchantReason = (reason: OnlineOrderReason): string => {
    const text = reasonText(reason);
    if (text === undefined || !(merchantReasons as readonly string[]).includes(text)) {
      throw invalidField("reason", `must be one of ${merchantReasons.join(", ")}`);
    }
    return text;
  };

  /** Prices a partner's order from the catalogue now, after checking its store and items (nothing is written). */
  const priceOrder = async (companyId: number, request: PlaceOnlineOrderRequest, scope: number[] | undefined) => {
    const storeId = idOf(request.storeId);
    if (scope && !scope.includes(storeId)) throw fail("partner.store_not_in_scope", undefined, { field: "storeId" });
    if ((await stores.countAmong(companyId, [storeId])) !== 1)
      throw fail("partner.store_not_found", undefined, { field: "storeId" });
    const found = new Map(
      (
        await items.findMany(
          companyId,
          request.lines.map((line) => idOf(line.itemId)),
        )
      ).map((row) => [row.id, row]),
    );
    const currency = regionCurrency[region];
    const lines: StoredOrderLine[] = [];
    let totalMinor = 0;
    for (const [index, line] of request.lines.entries()) {
      const item = found.get(idOf(line.itemId));
      if (!item) throw fail("partner.item_not_found", undefined, { field: `lines.${index}.itemId` });
      if (item.currency !== currency)
        throw fail("partner.item_currency_mismatch", undefined, { field: `lines.${index}.itemId` });
      const priceMinor = Number(item.price_minor);
      totalMinor += priceMinor * line.quantity;
      lines.push({
        itemId: item.id,
        itemCode: item.code ?? "",
        name: item.name,
        quantity: line.quantity,
        priceMinor,
        ...(line.note !== undefined ? { note: line.note } : {}),
      });
    }
    return { storeId, currency, lines, totalMinor };
  };

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
      // A feed cursor continues the change feed; any other cursor the placed-at list. Checked here, not by a field
      // rule: the rule would need the RFC 3339 grammar as a pattern, and a bad value is the same validation failure
      // either way (request.invalid_fields naming the fields, by their JSON names).
      const feedAfter = decodeFeedCursor(request.cursor);
      const feed = request.updatedFrom !== undefined || feedAfter !== undefined;
      const after = feed ? null : decodeTimeCursor(request.cursor);
      const invalid: string[] = [];
      if (!feed && after === undefined) invalid.push("cursor");
      if (feed && request.cursor !== undefined && request.cursor !== "" && feedAfter === undefined)
        invalid.push("cursor");
      const from = request.placedFrom === undefined ? undefined : parseDateTime(request.placedFrom);
      const to = request.placedTo === undefined ? undefined : parseDateTime(request.placedTo);
      const updatedFrom = request.updatedFrom === undefined ? undefined : microsecondsUtc(request.updatedFrom);
      if (request.placedFrom !== undefined && from === undefined) invalid.push("placedFrom");
      if (request.placedTo !== undefined && to === undefined) invalid.push("placedTo");
      if (request.updatedFrom !== undefined && updatedFrom === undefined) invalid.push("updatedFrom");
      if (invalid.length === 0 && from !== undefined && to !== undefined && to < from)
        invalid.push("placedFrom", "placedTo");
      if (invalid.length > 0)
        throw serviceError(DataService.typeName, "request.invalid_fields", { fields: invalid.join(", ") });
      const filter = {
        status: request.status,
        placedFrom: request.placedFrom,
        placedTo: request.placedTo,
        storeIds: storeScopeOf(context),
        externalReference: request.externalReference,
        appId: partnerAppOf(context.requestHeader),
      };
      if (!feed) {
        const page = timePageOf(await orders.list(companyId, after ?? null, filter, limit + 1), limit);
        return { orders: page.rows.map(orderOf), nextCursor: page.nextCursor };
      }
      // The change feed: (updated_at, id) order from the cursor, else from updatedFrom inclusive ((from, 0) is before
      // every id at that instant). Every page answers a cursor, the last one included: where the next poll resumes.
      const start = feedAfter ?? { time: updatedFrom!, id: 0 };
      const rows = await orders.changes(companyId, start, filter, limit);
      const last = rows[rows.length - 1];
      return {
        orders: rows.map(orderOf),
        nextCursor: encodeFeedCursor(last ? { time: last.updated_key, id: last.id } : start),
      };
    },

    async getOnlineOrder(request) {
      const companyId = companyOf(request);
      const row = await orders.find(companyId, idOf(request.id));
      if (!row) throw fail("partner.order_not_found");
      return { order: orderOf(row) };
    },

    async placeOnlineOrder(request, context) {
      const companyId = companyOf(request);
      const appId = partnerAppOf(context.requestHeader);
      // Only a partner's call (through the gateway, which names its app) places an order: the app is who may cancel it.
      if (appId === undefined) throw fail("internal.permission_denied");
      const { fulfilment, customer } = request;
      if (fulfilment!.type === FulfilmentType.DELIVERY && !fulfilment!.deliveryAddress)
        throw invalidField("fulfilment.deliveryAddress", "is required for DELIVERY");
      if (fulfilment!.type === FulfilmentType.PICKUP && fulfilment!.deliveryAddress)
        throw invalidField("fulfilment.deliveryAddress", "must be absent for PICKUP");
      const requestedFor =
        request.requestedFor === undefined ? null : dateTimeField("requestedFor", request.requestedFor);
      checkRequestedFor(requestedFor, now().getTime());
      checkDeliveryNeeds(request);
      const priced = await priceOrder(companyId, request, storeScopeOf(context));
      const address = fulfilment!.deliveryAddress;
      const sandboxAutopilot = isSandboxCall(context.requestHeader) && autopilotSeconds > 0;
      const row = await changes.place(
        {
          companyId,
          ...priced,
          appId,
          externalReference: request.externalReference,
          fulfilmentType: fulfilment!.type === FulfilmentType.DELIVERY ? "DELIVERY" : "PICKUP",
          deliveryAddress: address
            ? {
                line1: address.line1,
                ...(address.line2 !== undefined ? { line2: address.line2 } : {}),
                city: address.city,
                postcode: address.postcode,
                ...(address.instructions !== undefined ? { instructions: address.instructions } : {}),
              }
            : null,
          customerName: customer!.name,
          customerPhone: customer!.phone ?? null,
          note: request.note ?? null,
          requestedFor,
          decideBy: later(decisionSeconds),
          autopilotAt: sandboxAutopilot ? later(autopilotSeconds) : null,
        },
        `app:${appId}`,
        now(),
      );
      return { order: orderOf(row) };
    },

    async cancelOnlineOrder(request, context) {
      const companyId = companyOf(request);
      const appId = partnerAppOf(context.requestHeader);
      return makeMove(
        companyId,
        idOf(request.id),
        "cancelByPartner",
        { reason: "PARTNER_CANCELLED", autopilotAt: null },
        `app:${appId ?? "unknown"}`,
        (order) => {
          if (appId === undefined || order.app_id !== appId) throw fail("partner.order_not_owned");
        },
      );
    },

    async moveSandboxOnlineOrder(request, context) {
      const companyId = companyOf(request);
      if (!isSandboxCall(context.requestHeader)) throw fail("partner.env_mismatch");
      const move = posMoveTo(request.status);
      if (move === undefined)
        throw invalidField("status", "must be one of ACCEPTED, REJECTED, READY, COMPLETED, CANCELLED");
      const takesReason = move === "reject" || move === "cancelByMerchant";
      if (!takesReason && request.reason !== OnlineOrderReason.UNSPECIFIED)
        throw invalidField("reason", "is only for REJECTED and CANCELLED");
      if (move !== "accept" && request.promisedFor !== undefined)
        throw invalidField("promisedFor", "is only for ACCEPTED");
      const set: MoveColumns = {};
      if (takesReason)
        set.reason = request.reason === OnlineOrderReason.UNSPECIFIED ? "OTHER" : merchantReason(request.reason);
      if (move === "accept" && request.promisedFor !== undefined)
        set.promisedFor = dateTimeField("promisedFor", request.promisedFor);
      if (isFinalMove(move)) set.autopilotAt = null;
      if (move === "accept" && set.promisedFor === undefined) {
        // The default promise: the customer's requested time (which never changes), else twenty minutes from now.
        const order = await orders.find(companyId, idOf(request.id));
        if (!order) throw fail("partner.order_not_found");
        set.promisedFor = order.requested_for?.toISOString() ?? later(20 * 60);
      }
      return makeMove(companyId, idOf(request.id), move, set, "sandbox");
    },

    async acceptOnlineOrder(request) {
      const companyId = companyOf(request);
      return makeMove(
        companyId,
        idOf(request.id),
        "accept",
        { promisedFor: dateTimeField("promisedFor", request.promisedFor) },
        "pos",
      );
    },

    async rejectOnlineOrder(request) {
      const companyId = companyOf(request);
      return makeMove(
        companyId,
        idOf(request.id),
        "reject",
        { reason: merchantReason(request.reason), autopilotAt: null },
        "pos",
      );
    },

    async markOnlineOrderReady(request) {
      return makeMove(companyOf(request), idOf(request.id), "markReady", {}, "pos");
    },

    async completeOnlineOrder(request) {
      return makeMove(companyOf(request), idOf(request.id), "complete", { autopilotAt: null }, "pos");
    },

    async cancelOnlineOrderAsMerchant(request) {
      const companyId = companyOf(request);
      return makeMove(
        companyId,
        idOf(request.id),
        "cancelByMerchant",
        { reason: merchantReason(request.reason), autopilotAt: null },
        "pos",
      );
    },

    async listOnlineOrderEvents(request) {
      const companyId = companyOf(request);
      const id = idOf(request.id);
      if (!(await orders.find(companyId, id))) throw fail("partner.order_not_found");
      return { events: (await orders.history(companyId, id)).map(eventOf) };
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
