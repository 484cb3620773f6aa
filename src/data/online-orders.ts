// The online orders section of the DataService (data_service.proto): the partner's list, feed, placement and
// cancellation, the sandbox's moves, and the point of sale's decisions (accept, reject, ready, complete, cancel).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  DataService,
  FulfilmentType,
  OnlineOrderReason,
  OnlineOrderReasonSchema,
  type OnlineOrderEventSchema,
  type PlaceOnlineOrderRequest,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { regionCurrency } from "./sandbox-data.js";
import { decodeFeedCursor, decodeTimeCursor, encodeFeedCursor, timePageOf } from "./cursor.js";
import { microsecondsUtc, parseDateTime } from "./date-time.js";
import { isAvailableAt } from "./availability.js";
import { modifierGroupsIn } from "./menu-modifiers.js";
import { priceLineModifiers } from "./order-line-modifiers.js";
import { orderOf, reasonOf } from "./order-message.js";
import { checkDeliveryNeeds, checkRequestedFor, checkStoreTakesOrder } from "./order-placement-rules.js";
import { merchantReasons, posMoveTo, type OrderMoveName } from "./order-lifecycle.js";
import { isSandboxCall, partnerAppOf } from "./partner-call.js";
import type { MoveColumns, OnlineOrderRow, OrderEventRow, StoredOrderLine } from "./queries/order-queries.js";
import { serviceError } from "../errors/index.js";
import { wireEnumName } from "../runtime/wire/index.js";
import {
  companyOf,
  dateTimeField,
  defaultPageSize,
  fail,
  idOf,
  invalidField,
  storeScopeOf,
  type DataContext,
} from "./data-context.js";

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

type OnlineOrderRpcs =
  | "listOnlineOrders"
  | "getOnlineOrder"
  | "placeOnlineOrder"
  | "cancelOnlineOrder"
  | "moveSandboxOnlineOrder"
  | "acceptOnlineOrder"
  | "rejectOnlineOrder"
  | "markOnlineOrderReady"
  | "completeOnlineOrder"
  | "cancelOnlineOrderAsMerchant"
  | "listOnlineOrderEvents";

export function createOnlineOrderHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, OnlineOrderRpcs> {
  const { region, stores, items, orders, changes, now, later } = shared;
  const { decisionSeconds, autopilotSeconds } = shared.onlineOrders;

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

  /**
   * Prices a partner's order from the catalogue now, after checking its store (in scope, taking orders at the time
   * the order is for), its items (on the menu, in the region's currency, not sold out there) and each line's
   * modifiers (its item's, not sold out there, each group's selections within its bounds); nothing is written.
   */
  const priceOrder = async (
    companyId: number,
    request: PlaceOnlineOrderRequest,
    scope: number[] | undefined,
    requestedFor: string | null,
  ) => {
    const storeId = idOf(request.storeId);
    if (scope && !scope.includes(storeId)) throw fail("partner.store_not_in_scope", undefined, { field: "storeId" });
    const store = await stores.find(companyId, storeId);
    if (!store) throw fail("partner.store_not_found", undefined, { field: "storeId" });
    checkStoreTakesOrder(store, requestedFor, now());
    // The items with their availability in the store and their modifiers with theirs, in one read.
    const found = new Map(
      (
        await items.findManyIn(
          companyId,
          storeId,
          request.lines.map((line) => idOf(line.itemId)),
        )
      ).map((row) => [row.id, row]),
    );
    // Every line's item's groups, with their modifiers' availability in this store now (read with the items).
    const groups = modifierGroupsIn([...found.values()], now());
    const currency = regionCurrency[region];
    const lines: StoredOrderLine[] = [];
    let totalMinor = 0;
    for (const [index, line] of request.lines.entries()) {
      const item = found.get(idOf(line.itemId));
      if (!item) throw fail("partner.item_not_found", undefined, { field: `lines.${index}.itemId` });
      if (item.currency !== currency)
        throw fail("partner.item_currency_mismatch", undefined, { field: `lines.${index}.itemId` });
      const stored = item.available === null ? undefined : { ...item, item_id: item.id, available: item.available };
      if (!isAvailableAt(stored, now()))
        throw fail("partner.item_sold_out", undefined, { field: `lines.${index}.itemId` });
      const priceMinor = Number(item.price_minor);
      const { modifiers, eachMinor } = priceLineModifiers(line.modifiers, groups.get(item.id) ?? [], index);
      totalMinor += (priceMinor + eachMinor) * line.quantity;
      lines.push({
        itemId: item.id,
        itemCode: item.code ?? "",
        name: item.name,
        quantity: line.quantity,
        priceMinor,
        ...(line.note !== undefined ? { note: line.note } : {}),
        ...(modifiers.length > 0 ? { modifiers } : {}),
      });
    }
    // Modifiers can multiply prices past what a number holds exactly (1e12 × 50 × 50 × 99): refused, never rounded.
    if (!Number.isSafeInteger(totalMinor)) throw invalidField("lines", "make a total beyond 2^53 - 1 minor units");
    return { storeId, currency, lines, totalMinor };
  };

  return {
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
      const priced = await priceOrder(companyId, request, storeScopeOf(context), requestedFor);
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
  };
}
