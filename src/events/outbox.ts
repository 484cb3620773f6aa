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

/**
 * Records `event` in `schema`'s outbox (the control schema by default; `regionSchema(region)` for a region's
 * change) on `tx`, the transaction of the change, with the sampled span of the request that made it (its deliveries'
 * attempt spans link back to it: src/webhook/delivery-attempts.ts). Returns the event's id, its `webhook-id` header on every attempt.
 */
export async function recordEvent(tx: SqlClient, event: NewEvent, schema: string = controlSchema): Promise<string> {
  const id = newEventId();
  const audience = event.audience;
  await tx`
    insert into ${tx(schema)}.webhook_outbox (event_id, type, company_id, app_id, environment, endpoint_id, store_id, data, occurred_at, traceparent)
    values (
      ${id}, ${event.type}, ${event.companyId ?? null},
      ${audience.kind === "app" ? audience.appId : null}, ${audience.kind === "app" ? audience.environment : null},
      ${audience.kind === "endpoint" ? audience.endpointId : null}, ${audience.kind === "store" ? audience.storeId : null},
      ${tx.json(event.data as never)}, ${event.occurredAt}, ${sampledTraceparent() ?? null})`;
  return id;
}
