// Queries of a region's online orders (region_<r>.online_orders), their history (online_order_events) and the change
// feed's per-merchant stamp (online_order_feed_heads). Only ../order-changes.ts writes through them, one
// transaction per change.
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";
import type { TimeKey } from "../cursor.js";
import type { OutboxValues } from "../../events/index.js";

/** A line as stored in online_orders.lines (jsonb), copied from the item when the order was placed. */
export interface StoredOrderLine {
  itemId?: number;
  itemCode?: string;
  name?: string;
  quantity?: number;
  priceMinor?: number;
  note?: string;
  /** The line's modifiers, copied from the catalogue at placing (../order-line-modifiers.ts); absent: none. */
  modifiers?: StoredLineModifier[];
}

/** A modifier of a stored line: per one of the line's items, its price for one. */
export interface StoredLineModifier {
  modifierId?: number;
  name?: string;
  priceMinor?: number;
  quantity?: number;
}

/** Where a delivery goes, as stored in online_orders.delivery_address (jsonb, the API's field names). */
export interface StoredAddress {
  line1: string;
  line2?: string;
  city: string;
  postcode: string;
  instructions?: string;
}

export interface OnlineOrderRow {
  id: number;
  store_id: number;
  status: string;
  total_minor: number;
  currency: string;
  placed_at: Date;
  lines: StoredOrderLine[];
  /** updated_at to the microsecond, UTC (YYYY-MM-DDTHH:MM:SS.ffffffZ): the feed's key and the API's updatedAt. */
  updated_key: string;
  app_id: string | null;
  external_reference: string | null;
  fulfilment_type: "PICKUP" | "DELIVERY" | null;
  delivery_address: StoredAddress | null;
  customer_name: string | null;
  customer_phone: string | null;
  note: string | null;
  requested_for: Date | null;
  promised_for: Date | null;
  reason: string | null;
  decide_by: Date | null;
  autopilot_at: Date | null;
}

/** A listed order, with its exact place in the placed-at list order (placed_at to the microsecond, UTC) for the cursor. */
export interface ListedOrderRow extends OnlineOrderRow {
  placed_key: string;
}

/** What GET /v1/online-orders narrows the list to; absent members do not narrow it. */
export interface OrderFilter {
  status?: string;
  /** RFC 3339 texts, already checked (../date-time.ts): placed at or after `placedFrom`, before `placedTo`. */
  placedFrom?: string;
  placedTo?: string;
  /** Only orders of these stores (an ADSR key's store scope); undefined: every store. */
  storeIds?: readonly number[];
  /** Only the orders with this reference, placed by `appId` when given. */
  externalReference?: string;
  appId?: string;
}

/** An order as placed, priced and checked (../service.ts). */
export interface NewOrderRow {
  companyId: number;
  storeId: number;
  totalMinor: number;
  currency: string;
  lines: StoredOrderLine[];
  appId: string;
  externalReference: string;
  fulfilmentType: "PICKUP" | "DELIVERY";
  deliveryAddress: StoredAddress | null;
  customerName: string;
  customerPhone: string | null;
  note: string | null;
  requestedFor: string | null;
  decideBy: string;
  autopilotAt: string | null;
}

/** The columns a move sets beside status and updated_at; absent members stay as they are. */
export interface MoveColumns {
  reason?: string | null;
  promisedFor?: string | null;
  decideBy?: null;
  autopilotAt?: string | null;
}

export interface OrderEventRow {
  id: number;
  type: string;
  from_status: string | null;
  status: string;
  actor: string;
  reason: string | null;
  occurred_at: Date;
}

/** An order a timer must move: which merchant's, and what it is now. */
export interface DueOrderRow {
  company_id: number;
  id: number;
  status: string;
  customer_name: string | null;
  requested_for: Date | null;
}

/** updated_at to the microsecond in UTC, as the feed's cursor holds it. */
const microsecondsUtc = '\'YYYY-MM-DD"T"HH24:MI:SS.US"Z"\'';

/** The online-order queries of one region schema, over `sql` (the pool, or a transaction's client). */
export function createOrderQueries(sql: SqlClient, schema: string) {
  const orders = regionTable(sql, schema, "online_orders");
  const events = regionTable(sql, schema, "online_order_events");
  const heads = regionTable(sql, schema, "online_order_feed_heads");
  const columns = sql.unsafe(`id, store_id, status, total_minor, currency, placed_at, lines,
    to_char(updated_at at time zone 'UTC', ${microsecondsUtc}) as updated_key,
    app_id, external_reference, fulfilment_type, delivery_address, customer_name, customer_phone, note,
    requested_for, promised_for, reason, decide_by, autopilot_at`);
  /** The statement that takes a change's stamp (stampChange), returning last_changed_at. */
  const takeStamp = (companyId: number, now: string) => sql`
    insert into ${heads} as head (company_id, last_changed_at)
    values (${companyId}, greatest(${now}::text::timestamptz,
      (select max(updated_at) + interval '1 microsecond' from ${orders} where company_id = ${companyId})))
    on conflict (company_id) do update
      set last_changed_at = greatest(excluded.last_changed_at, head.last_changed_at + interval '1 microsecond')
    returning last_changed_at`;
  return {
    /** One order of the company; undefined when the company has no order with this id (another company's included). */
    async find(companyId: number, id: number): Promise<OnlineOrderRow | undefined> {
      const [row] = await sql<
        OnlineOrderRow[]
      >`select ${columns} from ${orders} where company_id = ${companyId} and id = ${id}`;
      return row;
    },
    /**
     * Up to `count` orders of the company after `after` in (placed_at, id) order, filtered; the keyset is served by
     * online_orders__company_id_placed_at_id__idx (region migration 0002), so a page costs the same at any depth.
     */
    list(companyId: number, after: TimeKey | null, filter: OrderFilter, count: number): Promise<ListedOrderRow[]> {
      // Absent filters leave no condition behind (not "$1 is null or ..."), so the keyset stays an index range. Times
      // go as text (::text::timestamptz): postgres.js would send a timestamptz parameter through Date, losing microseconds.
      return sql<ListedOrderRow[]>`
        select ${columns}, to_char(placed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as placed_key
        from ${orders}
        where company_id = ${companyId}
          ${after ? sql`and (placed_at, id) > (${after.time}::text::timestamptz, ${after.id})` : sql``}
          ${filters(filter)}
        order by placed_at, id limit ${count}`;
    },
    /**
     * The change feed: up to `count` orders of the company after `after` in (updated_at, id) order, filtered. Served
     * by online_orders__company_id_updated_at_id__idx. Correct under concurrent writers because every change stamps
     * updated_at under the merchant's feed head lock (stampChange): see docs/decisions.md.
     */
    changes(companyId: number, after: TimeKey, filter: OrderFilter, count: number): Promise<OnlineOrderRow[]> {
      return sql<OnlineOrderRow[]>`
        select ${columns} from ${orders}
        where company_id = ${companyId}
          and (updated_at, id) > (${after.time}::text::timestamptz, ${after.id})
          ${filters(filter)}
        order by updated_at, id limit ${count}`;
    },
    /**
     * The stamp of a change of the company's orders, taken under the lock of its feed head row, which this
     * transaction then holds until it ends: strictly after the previous change's (even when the clock stands still
     * or steps back), so the company's changes commit in updated_at order. A merchant's first change starts after
     * its newest order (seeded orders included).
     */
    async stampChange(companyId: number, now: string): Promise<string> {
      const [row] = await sql<{ stamp: string }[]>`
        with head as (${takeStamp(companyId, now)})
        select to_char(last_changed_at at time zone 'UTC', ${sql.unsafe(microsecondsUtc)}) as stamp from head`;
      return row!.stamp;
    },
    /**
     * Places an order in ONE statement, the change's whole transaction: takes the merchant's stamp under its feed
     * head lock (as stampChange), inserts the order PENDING, placed and updated at the stamp, its creation in its
     * history and `outbox` in the region's outbox. The outbox's `data.order` is the order as answered, built before
     * the statement; what only the statement knows (the id, the stamp, and the times as stored) is set in it there,
     * as orderJson writes them (milliseconds, UTC; updatedAt to the microsecond).
     */
    async place(order: NewOrderRow, now: string, actor: string, outbox: OutboxValues): Promise<OnlineOrderRow> {
      // A time of the placed row as JSON: orderJson's (toISOString, milliseconds), updatedAt's to the microsecond.
      const at = (column: string, format = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`) =>
        sql.unsafe(`to_char(placed.${column} at time zone 'UTC', ${format})`);
      const [row] = await sql<OnlineOrderRow[]>`
        with head as (
          ${takeStamp(order.companyId, now)}
        ), placed as (
          insert into ${orders} (company_id, store_id, status, total_minor, currency, placed_at, updated_at, lines,
            app_id, external_reference, fulfilment_type, delivery_address, customer_name, customer_phone, note,
            requested_for, decide_by, autopilot_at)
          select ${order.companyId}, ${order.storeId}, 'PENDING', ${order.totalMinor}, ${order.currency},
            head.last_changed_at, head.last_changed_at, ${sql.json(order.lines as never)}, ${order.appId},
            ${order.externalReference}, ${order.fulfilmentType},
            ${order.deliveryAddress === null ? null : sql.json(order.deliveryAddress as never)}, ${order.customerName},
            ${order.customerPhone}, ${order.note}, ${order.requestedFor}::text::timestamptz,
            ${order.decideBy}::text::timestamptz, ${order.autopilotAt}::text::timestamptz
          from head
          returning *
        ), history as (
          insert into ${events} (company_id, store_id, order_id, type, from_status, status, actor, reason, occurred_at)
          select company_id, store_id, id, ${outbox.type}, null, status, ${actor}, reason, updated_at from placed
        ), event as (
          insert into ${sql(`${schema}.webhook_outbox`)} (event_id, type, company_id, app_id, environment, endpoint_id,
            store_id, data, occurred_at, traceparent)
          select ${outbox.eventId}, ${outbox.type}, ${outbox.companyId}, ${outbox.appId}, ${outbox.environment},
            ${outbox.endpointId}, ${outbox.storeId},
            jsonb_set(given.data, '{order}', (given.data -> 'order') || jsonb_strip_nulls(jsonb_build_object(
              'id', placed.id,
              'placedAt', ${at("placed_at")},
              'updatedAt', ${at("updated_at", microsecondsUtc)},
              'requestedFor', ${at("requested_for")},
              'decideBy', ${at("decide_by")}))),
            ${outbox.occurredAt}, ${outbox.traceparent}
          from placed, (select ${sql.json(outbox.data as never)}::jsonb as data) given
        )
        select ${columns} from placed`;
      return row!;
    },
    /**
     * The conditional write of a move: the order becomes `to` only if it is in one of `from` now; undefined when it
     * is not (or does not exist), and nothing changed.
     */
    async move(
      companyId: number,
      id: number,
      from: readonly string[],
      to: string,
      set: MoveColumns,
      stamp: string,
    ): Promise<OnlineOrderRow | undefined> {
      const [row] = await sql<OnlineOrderRow[]>`
        update ${orders} set status = ${to}, updated_at = ${stamp}::text::timestamptz
          ${set.reason !== undefined ? sql`, reason = ${set.reason}` : sql``}
          ${set.promisedFor !== undefined ? sql`, promised_for = ${set.promisedFor}::text::timestamptz` : sql``}
          ${set.decideBy !== undefined ? sql`, decide_by = null` : sql``}
          ${set.autopilotAt !== undefined ? sql`, autopilot_at = ${set.autopilotAt}::text::timestamptz` : sql``}
        where company_id = ${companyId} and id = ${id} and status = any(${[...from]}::text[])
        returning ${columns}`;
      return row;
    },
    /** The status of one order of the company now; undefined when it has none with this id. */
    async statusOf(companyId: number, id: number): Promise<string | undefined> {
      const [row] = await sql<
        { status: string }[]
      >`select status from ${orders} where company_id = ${companyId} and id = ${id}`;
      return row?.status;
    },
    /** Records a creation or a move in the order's history. */
    async insertEvent(event: {
      companyId: number;
      storeId: number;
      orderId: number;
      type: string;
      fromStatus: string | null;
      status: string;
      actor: string;
      reason: string | null;
      occurredAt: string;
    }): Promise<void> {
      await sql`
        insert into ${events} (company_id, store_id, order_id, type, from_status, status, actor, reason, occurred_at)
        values (${event.companyId}, ${event.storeId}, ${event.orderId}, ${event.type}, ${event.fromStatus}, ${event.status},
          ${event.actor}, ${event.reason}, ${event.occurredAt}::text::timestamptz)`;
    },
    /** An order's history, oldest first. */
    history(companyId: number, orderId: number): Promise<OrderEventRow[]> {
      return sql<OrderEventRow[]>`
        select id, type, from_status, status, actor, reason, occurred_at from ${events}
        where company_id = ${companyId} and order_id = ${orderId} order by id`;
    },
    /** PENDING orders whose decision time has come (any merchant of the region), oldest deadline first. */
    dueForTimeout(now: string, count: number): Promise<DueOrderRow[]> {
      return sql<DueOrderRow[]>`
        select company_id, id, status, customer_name, requested_for from ${orders}
        where decide_by <= ${now}::text::timestamptz and status = 'PENDING'
        order by decide_by limit ${count}`;
    },
    /** Sandbox orders whose next automatic move has come, oldest first. */
    dueForAutopilot(now: string, count: number): Promise<DueOrderRow[]> {
      return sql<DueOrderRow[]>`
        select company_id, id, status, customer_name, requested_for from ${orders}
        where autopilot_at <= ${now}::text::timestamptz
        order by autopilot_at limit ${count}`;
    },
    /** Clears a due autopilot time that has nothing left to do (the order reached a final status another way). */
    async clearAutopilot(companyId: number, id: number): Promise<void> {
      await sql`update ${orders} set autopilot_at = null where company_id = ${companyId} and id = ${id}`;
    },
  };

  function filters(filter: OrderFilter) {
    return sql`
      ${filter.status !== undefined ? sql`and status = ${filter.status}` : sql``}
      ${filter.placedFrom !== undefined ? sql`and placed_at >= ${filter.placedFrom}::text::timestamptz` : sql``}
      ${filter.placedTo !== undefined ? sql`and placed_at < ${filter.placedTo}::text::timestamptz` : sql``}
      ${filter.storeIds ? sql`and store_id = any(${[...filter.storeIds]}::bigint[])` : sql``}
      ${filter.externalReference !== undefined ? sql`and external_reference = ${filter.externalReference}` : sql``}
      ${filter.externalReference !== undefined && filter.appId !== undefined ? sql`and app_id = ${filter.appId}` : sql``}`;
  }
}
