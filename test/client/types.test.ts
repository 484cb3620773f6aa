// The partner client's enumerations are unions of their values, not `string` (issue 42): an order's status, the
// status filter and the reason are checked by the compiler (the @ts-expect-error lines below fail the type-check if
// a wrong value is accepted), and their value lists are the server's own (the lifecycle's statuses, the proto's
// OnlineOrderReason without its UNSPECIFIED zero).
import * as assert from "uvu/assert";
import { readFile } from "node:fs/promises";
import {
  FulfilmentTypeSchema,
  OnlineOrderingStatusSchema,
  OnlineOrderReasonSchema,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import {
  accessRequestEventStates,
  fulfilmentTypes,
  grantEventReasons,
  onlineOrderingStatuses,
  onlineOrderReasons,
  onlineOrderStatuses,
  webhookAttemptOutcomes,
  webhookDeliveryStates,
  webhookEnvironments,
  webhookEventTypes,
  type Fulfilment,
  type OnlineOrder,
  type OnlineOrderEventData,
  type OnlineOrdering,
  type OnlineOrderQuery,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "../../src/client/index.js";
import { eventDataSchemas, eventTypes } from "../../src/events/index.js";
import { orderStatuses } from "../../src/data/order-lifecycle.js";
import { suite } from "../support/suite.js";

const Types = suite("client/types");

Types("an order's status and reason lists are the server's", () => {
  assert.equal([...onlineOrderStatuses], [...orderStatuses]);
  assert.equal(
    [...onlineOrderReasons],
    OnlineOrderReasonSchema.values
      .filter((value) => value.number !== 0)
      .map((value) => value.name.replace(/^ONLINE_ORDER_REASON_/, "")),
  );
});

Types("status, the status filter, the reason and an event's order are typed by their values", () => {
  const status: OnlineOrder["status"] = "PENDING";
  const query: OnlineOrderQuery = { status: "COMPLETED" };
  const reason: NonNullable<OnlineOrder["reason"]> = "TIMED_OUT";
  const eventStatus: OnlineOrderEventData["order"]["status"] = "ACCEPTED";
  // @ts-expect-error: not a status
  const wrongStatus: OnlineOrder["status"] = "DONE";
  // @ts-expect-error: not a status to filter by
  const wrongQuery: OnlineOrderQuery = { status: "pending" };
  // @ts-expect-error: not a reason
  const wrongReason: OnlineOrder["reason"] = "BUSY";
  assert.equal([status, query.status, reason, eventStatus], ["PENDING", "COMPLETED", "TIMED_OUT", "ACCEPTED"]);
  assert.equal([wrongStatus, wrongQuery.status, wrongReason], ["DONE", "pending", "BUSY"]);
});

/** A proto enum's values as the wire spells them: the prefix and the UNSPECIFIED zero dropped. */
const protoValues = (schema: { values: ReadonlyArray<{ number: number; name: string }> }, prefix: string) =>
  schema.values.filter((value) => value.number !== 0).map((value) => value.name.replace(prefix, ""));

/** The values a SQL check constraint allows (`check (column in ('A', 'B'))`), from the migration that made it. */
async function checkValues(migration: string, constraint: string): Promise<string[]> {
  const sql = await readFile(new URL(`../../src/storage/migrations/control/${migration}`, import.meta.url), "utf8");
  const found = new RegExp(`${constraint}\\s+check \\(\\w+ in \\(([^)]*)\\)\\)`).exec(sql);
  assert.ok(found, `${constraint} in ${migration}`);
  return [...found![1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
}

/** An enum of the OpenAPI document's event data schemas (what the front publishes under `webhooks`). */
function eventSchemaEnum(schema: string, object: string, property: string): unknown {
  const schemas = eventDataSchemas((name) => name) as Record<string, { properties: Record<string, JsonObject> }>;
  return (schemas[schema]!.properties[object]!["properties"] as Record<string, JsonObject>)[property]!["enum"];
}
type JsonObject = Record<string, unknown>;

Types("every other enumeration of the client is the server's list, so they cannot drift apart (issue 42)", async () => {
  assert.equal([...onlineOrderingStatuses], protoValues(OnlineOrderingStatusSchema, "ONLINE_ORDERING_STATUS_"));
  assert.equal([...fulfilmentTypes], protoValues(FulfilmentTypeSchema, "FULFILMENT_TYPE_"));
  assert.equal([...webhookEventTypes], [...eventTypes]);
  assert.equal([...grantEventReasons], eventSchemaEnum("GrantEventData", "grant", "reason"));
  assert.equal([...webhookEnvironments], eventSchemaEnum("GrantEventData", "grant", "environment"));
  assert.equal([...accessRequestEventStates], eventSchemaEnum("AccessRequestEventData", "accessRequest", "state"));
  assert.equal([...webhookAttemptOutcomes], await checkValues("0008_webhooks.sql", "webhook_attempts__outcome__check"));
  assert.equal([...webhookDeliveryStates], await checkValues("0008_webhooks.sql", "webhook_deliveries__state__check"));
  assert.equal(
    [...webhookEnvironments].map((environment) => environment.toUpperCase()),
    await checkValues("0008_webhooks.sql", "webhook_endpoints__environment__check"),
  );
});

Types("fields of those enumerations accept their values only", () => {
  const attempt: WebhookAttempt["outcome"] = "TIMEOUT";
  const state: WebhookDelivery["state"] = "FAILED";
  const events: WebhookEndpoint["events"] = ["grant.created"];
  const status: WebhookEndpoint["status"] = "disabled";
  const pickup: Fulfilment["type"] = "PICKUP";
  const paused: OnlineOrdering["status"] = "PAUSED";
  // @ts-expect-error: not an outcome
  const wrongOutcome: WebhookAttempt["outcome"] = "OK";
  // @ts-expect-error: not an event type
  const wrongEvent: WebhookEndpoint["events"] = ["order.created"];
  // @ts-expect-error: not a delivery state
  const wrongState: WebhookDelivery["state"] = "DONE";
  // @ts-expect-error: not a fulfilment
  const wrongType: Fulfilment["type"] = "DINE_IN";
  assert.equal(
    [attempt, state, events, status, pickup, paused],
    ["TIMEOUT", "FAILED", ["grant.created"], "disabled", "PICKUP", "PAUSED"],
  );
  assert.equal([wrongOutcome, wrongEvent, wrongState, wrongType], ["OK", ["order.created"], "DONE", "DINE_IN"]);
});

Types.run();
