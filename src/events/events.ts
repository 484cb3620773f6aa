// The events a partner can receive (Standard Webhooks payloads: `type`, `timestamp`, `data`), and how one is
// written as the body that is signed and sent. `data` names the company and the resource as the partner API would
// answer it (docs/api-guide.md, "Webhooks").

/** Every event type, in the order the API guide lists them. */
export const eventTypes = [
  "online_order.created",
  "online_order.updated",
  "item.created",
  "item.updated",
  "item.deleted",
  "category.created",
  "category.updated",
  "store.updated",
  "grant.created",
  "grant.revoked",
  "access_request.approved",
  "access_request.declined",
  "access_request.withdrawn",
  "access_request.expired",
  "webhook.test",
] as const;

export type EventType = (typeof eventTypes)[number];

export function isEventType(value: string): value is EventType {
  return (eventTypes as readonly string[]).includes(value);
}

/** Who may receive an event: decided by the relay when it fans the event out (src/webhook/relay.ts). */
export type EventAudience =
  /** One app's endpoints in one environment: grants, access requests. */
  | { kind: "app"; appId: string; environment: "SANDBOX" | "PRODUCTION" }
  /** One endpoint: webhook.test. */
  | { kind: "endpoint"; endpointId: string }
  /**
   * Every app that may see the store's resource: live grants whose product reads it (orders.read for orders,
   * stores.read for a store: src/webhook/relay.ts), and ADSR keys only for their approved stores.
   */
  | { kind: "store"; storeId: number }
  /** Every app with a live grant for the merchant whose product reads the resource (items.read: the catalogue). */
  | { kind: "company" };

/** An event as a caller records it, inside the transaction of the change that made it. */
export interface NewEvent {
  type: EventType;
  /** The merchant the event is about; absent for webhook.test. */
  companyId?: number;
  audience: EventAudience;
  data: Record<string, unknown>;
  /** When the change happened (the caller's injected clock). */
  occurredAt: Date;
}

/** The body sent: the Standard Webhooks payload, serialised once and signed as these exact bytes. */
export function eventBody(type: string, occurredAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });
}
