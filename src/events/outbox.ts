// The transactional outbox: `recordEvent(tx, event)` writes an event in the caller's transaction, in the database
// that holds the change (control.webhook_outbox for grants and access requests, region_<r>.webhook_outbox for
// orders), so a rolled-back change sends nothing and a committed one is sent even if the process dies right after
// the commit: the relay (relay.ts) picks the row up from whichever process runs delivery.
import { randomBytes } from "node:crypto";
import type { SqlClient } from "../storage/sql-client.js";
import { controlSchema } from "../storage/schemas.js";
import type { NewEvent } from "./events.js";
import { sampledTraceparent } from "../runtime/spans.js";

/** A Standard Webhooks message id: `msg_` and 22 random base64url characters (128 bits). */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/** The columns of an outbox row as `recordEvent` writes them (a new event id, the audience's columns, the span). */
export interface OutboxValues {
  eventId: string;
  type: string;
  companyId: number | null;
  appId: string | null;
  environment: string | null;
  endpointId: string | null;
  storeId: number | null;
  data: Record<string, unknown>;
  occurredAt: Date;
  traceparent: string | null;
}

/**
 * The outbox row of `event`, for a caller that writes it in a statement of its own (an online order's placement
 * writes the order, its history and this row in one statement: src/data/queries/order-queries.ts).
 */
export function outboxValues(event: NewEvent): OutboxValues {
  const audience = event.audience;
  return {
    eventId: newEventId(),
    type: event.type,
    companyId: event.companyId ?? null,
    appId: audience.kind === "app" ? audience.appId : null,
    environment: audience.kind === "app" ? audience.environment : null,
    endpointId: audience.kind === "endpoint" ? audience.endpointId : null,
    storeId: audience.kind === "store" ? audience.storeId : null,
    data: event.data,
    occurredAt: event.occurredAt,
    traceparent: sampledTraceparent() ?? null,
  };
}

/**
 * Records `event` in `schema`'s outbox (the control schema by default; `regionSchema(region)` for a region's
 * change) on `tx`, the transaction of the change, with the sampled span of the request that made it (its deliveries'
 * attempt spans link back to it: src/webhook/delivery-attempts.ts). Returns the event's id, its `webhook-id` header on every attempt.
 */
export async function recordEvent(tx: SqlClient, event: NewEvent, schema: string = controlSchema): Promise<string> {
  const row = outboxValues(event);
  await tx`
    insert into ${tx(schema)}.webhook_outbox (event_id, type, company_id, app_id, environment, endpoint_id, store_id, data, occurred_at, traceparent)
    values (
      ${row.eventId}, ${row.type}, ${row.companyId}, ${row.appId}, ${row.environment}, ${row.endpointId}, ${row.storeId},
      ${tx.json(row.data as never)}, ${row.occurredAt}, ${row.traceparent})`;
  return row.eventId;
}
