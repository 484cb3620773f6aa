// Receiving webhooks: `webhooks.verify(rawBody, headers, secret)` checks a request with the Standard Webhooks
// specification's own library (`standardwebhooks`: the signature over `id.timestamp.body` with any of the
// endpoint's secrets, and a timestamp within five minutes) and answers the typed event. Deduplicate by the
// `webhook-id` header; no ordering is promised (compare `updatedAt`).
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { Category, Item, OnlineOrder, Store } from "./types.js";

export { WebhookVerificationError };

interface Envelope<T extends string, D> {
  type: T;
  /** When the change happened (RFC 3339). */
  timestamp: string;
  data: D;
}

/** Every event type the service sends, in the API guide's order. */
export const webhookEventTypes = [
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
export type WebhookEventType = (typeof webhookEventTypes)[number];
/** Why a grant event happened. */
export const grantEventReasons = ["merchant_connected", "merchant_disconnected", "app_revoked"] as const;
/** The states an access request event reports. */
export const accessRequestEventStates = ["APPROVED", "DECLINED", "WITHDRAWN", "EXPIRED"] as const;

export interface GrantEventData {
  companyId: number;
  grant: {
    id: number;
    appId: string;
    environment: "sandbox" | "production";
    createdAt: string;
    revokedAt: string | null;
    reason: (typeof grantEventReasons)[number];
  };
}

export interface AccessRequestEventData {
  companyId: number;
  accessRequest: {
    id: number;
    appId: string;
    state: (typeof accessRequestEventStates)[number];
    storeIds: number[];
    approvedStoreIds: number[] | null;
    createdAt: string;
    expiresAt: string;
    decidedAt: string | null;
    withdrawnAt: string | null;
  };
}

export interface OnlineOrderEventData {
  companyId: number;
  /** The order as GET /v1/online-orders/{id} answers it, with its new status. */
  order: OnlineOrder;
}

export interface ItemEventData {
  companyId: number;
  /** An availability change's store: `item.available` is the item's there. */
  storeId?: number;
  /** The item as GET /v1/items/{id} answers it (item.deleted: its tombstone, `deleted: true`). */
  item: Item;
}

export interface CategoryEventData {
  companyId: number;
  category: Category;
}

export interface StoreEventData {
  companyId: number;
  store: Store;
}

export type WebhookEvent =
  | Envelope<"grant.created" | "grant.revoked", GrantEventData>
  | Envelope<
      "access_request.approved" | "access_request.declined" | "access_request.withdrawn" | "access_request.expired",
      AccessRequestEventData
    >
  | Envelope<"online_order.created" | "online_order.updated", OnlineOrderEventData>
  | Envelope<"item.created" | "item.updated" | "item.deleted", ItemEventData>
  | Envelope<"category.created" | "category.updated", CategoryEventData>
  | Envelope<"store.updated", StoreEventData>
  | Envelope<"webhook.test", { endpointId: string; appId: string }>;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string") out[name.toLowerCase()] = value;
    else if (Array.isArray(value) && value.length === 1) out[name.toLowerCase()] = value[0]!;
  }
  return out;
}

export const webhooks = {
  /**
   * The event, when `rawBody` (the exact bytes received, before any JSON parsing) is signed with `secret` (whsec_…)
   * in `headers`; throws WebhookVerificationError otherwise (forged, altered, or older than five minutes).
   */
  verify(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
    const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
    return new Webhook(secret).verify(body, plainHeaders(headers)) as WebhookEvent;
  },
};
