// Every change of an online order, in ONE place: placing it and each move of ./order-lifecycle.ts. A change is one
// transaction that (1) takes the merchant's feed stamp (locking its feed head row until commit, so the merchant's
// changes commit in updated_at order: the change feed's guarantee), (2) writes the order (an insert, or the
// conditional update of a move: one of two racing moves wins, the other finds the new status and is refused), and
// (3) records the event in online_order_events and the webhook event in the region's outbox, in the same
// transaction, so an event is delivered if and only if its change committed. A placement, which reads nothing
// first, is all of this in one statement (OrderQueries.place); a move is a transaction of a few.
import { serviceError } from "../errors/index.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { SqlClient } from "../storage/sql-client.js";
import { outboxValues, recordEvent } from "../events/index.js";
import { orderJson } from "./order-message.js";
import { orderMoves, type OrderMoveName } from "./order-lifecycle.js";
import {
  createOrderQueries,
  type MoveColumns,
  type NewOrderRow,
  type OnlineOrderRow,
} from "./queries/order-queries.js";

/** The webhook event types of the lifecycle (issue 26): a creation, and every later change. */
export const orderEventTypes = { created: "online_order.created", updated: "online_order.updated" } as const;

/** Who made a change, as the history records it: `app:<app id>`, `pos`, `platform`, `sandbox`. */
export type Actor = string;

export interface OrderChanges {
  /** Places an order (PENDING) and records its creation. */
  place(order: NewOrderRow, actor: Actor, now: Date): Promise<OnlineOrderRow>;
  /**
   * Makes `move` on the company's order `id`, with the columns it sets: partner.order_not_found when there is no such
   * order, partner.order_status_conflict (naming the current status) when the move does not start from it. `check`
   * runs first, on the order as it is inside the transaction (who may make the move).
   */
  move(
    companyId: number,
    id: number,
    move: OrderMoveName,
    set: MoveColumns,
    actor: Actor,
    now: Date,
    check?: (order: OnlineOrderRow) => void,
  ): Promise<OnlineOrderRow>;
}

/**
 * The order as it will be placed, but for what only its statement knows (its id and stamp, the times as stored),
 * which the statement sets in the event's JSON (OrderQueries.place): the rest of orderJson's answer comes from here.
 */
function placedTemplate(order: NewOrderRow): OnlineOrderRow {
  const stored = new Date(0);
  return {
    id: 0,
    store_id: order.storeId,
    status: "PENDING",
    total_minor: order.totalMinor,
    currency: order.currency,
    placed_at: stored,
    lines: order.lines,
    updated_key: "",
    app_id: order.appId,
    external_reference: order.externalReference,
    fulfilment_type: order.fulfilmentType,
    delivery_address: order.deliveryAddress,
    customer_name: order.customerName,
    customer_phone: order.customerPhone,
    note: order.note,
    requested_for: order.requestedFor === null ? null : stored,
    promised_for: null,
    reason: null,
    decide_by: stored,
    autopilot_at: order.autopilotAt === null ? null : stored,
  };
}

const fail = (code: Parameters<typeof serviceError>[1], params: Record<string, string> = {}) =>
  serviceError(DataService.typeName, code, params as never);

export function createOrderChanges(sql: SqlClient, schema: string): OrderChanges {
  /** One change: the stamp, the write, the event, committed together or not at all. */
  const change = (
    companyId: number,
    now: Date,
    write: (
      orders: ReturnType<typeof createOrderQueries>,
      stamp: string,
    ) => Promise<{ order: OnlineOrderRow; fromStatus: string | null; actor: Actor }>,
  ) =>
    (sql as { begin: <T>(run: (tx: SqlClient) => Promise<T>) => Promise<T> }).begin(async (tx) => {
      const orders = createOrderQueries(tx, schema);
      const stamp = await orders.stampChange(companyId, now.toISOString());
      const { order, fromStatus, actor } = await write(orders, stamp);
      await orders.insertEvent({
        companyId,
        storeId: order.store_id,
        orderId: order.id,
        type: fromStatus === null ? orderEventTypes.created : orderEventTypes.updated,
        fromStatus,
        status: order.status,
        actor,
        reason: order.reason,
        occurredAt: stamp,
      });
      // The webhook event, in the same transaction (the region's outbox): delivered if and only if the change
      // committed. It reaches the apps that may see this store's orders (the relay decides: src/webhook/relay.ts).
      await recordEvent(
        tx,
        {
          type: fromStatus === null ? orderEventTypes.created : orderEventTypes.updated,
          companyId,
          audience: { kind: "store", storeId: order.store_id },
          data: { companyId, order: orderJson(order) },
          occurredAt: now,
        },
        schema,
      );
      return order;
    });

  return {
    // A placement is the same change in one statement (no order to read first): one round trip, not six.
    place: (order, actor, now) => {
      const event = outboxValues({
        type: orderEventTypes.created,
        companyId: order.companyId,
        audience: { kind: "store", storeId: order.storeId },
        data: { companyId: order.companyId, order: orderJson(placedTemplate(order)) },
        occurredAt: now,
      });
      return createOrderQueries(sql, schema).place(order, now.toISOString(), actor, event);
    },

    move: (companyId, id, name, set, actor, now, check) =>
      change(companyId, now, async (orders, stamp) => {
        const move = orderMoves[name];
        // Under the feed head lock no other change of this merchant runs, so the status read here is the one the
        // conditional write below meets; the write keeps its condition all the same (one atomic conditional write).
        const current = await orders.find(companyId, id);
        if (!current) throw fail("partner.order_not_found");
        check?.(current);
        if (!(move.from as readonly string[]).includes(current.status))
          throw fail("partner.order_status_conflict", { status: current.status, target: move.to });
        const moved = await orders.move(companyId, id, move.from, move.to, set, stamp);
        if (!moved)
          throw fail("partner.order_status_conflict", {
            status: (await orders.statusOf(companyId, id)) ?? current.status,
            target: move.to,
          });
        return { order: moved, fromStatus: current.status, actor };
      }),
  };
}
