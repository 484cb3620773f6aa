// The JSON Schemas of the events' `data`, for the OpenAPI document's `webhooks` (src/front/openapi.ts): one per
// family of events, naming exactly the fields the writers put there (src/grant/grant-events.ts,
// src/data/order-changes.ts, src/webhook/service.ts; test/front/openapi.test.ts holds them to it). An order is
// the OnlineOrder message as the routes answer it, so its schema is the routes' own component.
import type { JsonSchema } from "../runtime/wire/index.js";
import type { EventType } from "./events.js";

/** The Standard Webhooks headers of every delivery (standardwebhooks.com), as OpenAPI header parameters. */
export const webhookHeaders: Record<string, { description: string; schema: JsonSchema }> = {
  "webhook-id": {
    description:
      "The event's id, the same on every attempt and resend of it (and at every endpoint it reaches): deduplicate by it.",
    schema: { type: "string", pattern: "^msg_[A-Za-z0-9_-]{22}$" },
  },
  "webhook-timestamp": {
    description:
      "When this attempt was signed, in Unix seconds; refuse one far from your clock (the libraries allow 5 minutes).",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  "webhook-signature": {
    description:
      "`v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` under the endpoint's whsec_ secret's key; during a rotation's overlap two signatures, space-separated, one per live secret.",
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$" },
  },
};

const dateTime = { type: "string", format: "date-time" };
const nullableDateTime = { type: ["string", "null"], format: "date-time" };
const integer = { type: "integer" };
const integers = { type: "array", items: integer };

/** Component names of the events' data schemas, by event type. */
export const eventDataSchemaNames: Record<EventType, string> = {
  "online_order.created": "OnlineOrderEventData",
  "online_order.updated": "OnlineOrderEventData",
  "item.created": "ItemEventData",
  "item.updated": "ItemEventData",
  "item.deleted": "ItemEventData",
  "category.created": "CategoryEventData",
  "category.updated": "CategoryEventData",
  "store.updated": "StoreEventData",
  "grant.created": "GrantEventData",
  "grant.revoked": "GrantEventData",
  "access_request.approved": "AccessRequestEventData",
  "access_request.declined": "AccessRequestEventData",
  "access_request.withdrawn": "AccessRequestEventData",
  "access_request.expired": "AccessRequestEventData",
  "webhook.test": "TestEventData",
};

/** What each event type says, for the document's `webhooks`. */
export const eventDescriptions: Record<EventType, string> = {
  "online_order.created": "An online order was placed (status PENDING).",
  "online_order.updated": "An online order moved in its lifecycle; `data.order.status` is its new status.",
  "item.created": "An item was added to the menu (with its modifier groups).",
  "item.updated":
    "An item changed: its fields, its modifier groups, or its availability (or a modifier's) in one store, which `data.storeId` then names (`data.item.available` is the item's there).",
  "item.deleted": "An item left the menu; `data.item` is its tombstone (`deleted: true`).",
  "category.created": "A category was added to the menu.",
  "category.updated":
    "A category changed: its name, code, place on the menu (`sortOrder`), its items' order, or which items it holds (`itemIds`: an item created in it, moved in or out, or deleted).",
  "store.updated":
    "A store changed: its address, time zone or opening hours (the point of sale), or its online ordering was paused or resumed.",
  "grant.created": "A merchant connected the app (or a sandbox mint restored a revoked sandbox grant).",
  "grant.revoked": "A merchant disconnected the app, or the app was revoked.",
  "access_request.approved": "The merchant approved the app's ADSR access request (production).",
  "access_request.declined": "The merchant declined the app's ADSR access request (production).",
  "access_request.withdrawn": "The app withdrew its ADSR access request (production).",
  "access_request.expired": "The app's ADSR access request expired undecided (production).",
  "webhook.test": "Sent on POST /v1/webhook-endpoints/{endpointId}/test, to that endpoint only, whatever its filter.",
};

/**
 * The data schemas as OpenAPI components, by the names of `eventDataSchemaNames`; `ref(typeName)` points at a
 * message's component (the order: partnerapi.v1.OnlineOrder, as the routes answer it).
 */
export function eventDataSchemas(ref: (typeName: string) => string): Record<string, JsonSchema> {
  return {
    OnlineOrderEventData: {
      type: "object",
      description: "The merchant and the order as GET /v1/online-orders/{id} answers it, with its new status.",
      properties: { companyId: integer, order: { $ref: ref("partnerapi.v1.OnlineOrder") } },
      required: ["companyId", "order"],
      additionalProperties: false,
    },
    GrantEventData: {
      type: "object",
      description: "The merchant and the grant: the app's connection to it in one environment.",
      properties: {
        companyId: integer,
        grant: {
          type: "object",
          properties: {
            id: integer,
            appId: { type: "string" },
            environment: { type: "string", enum: ["sandbox", "production"] },
            createdAt: dateTime,
            revokedAt: nullableDateTime,
            reason: { type: "string", enum: ["merchant_connected", "merchant_disconnected", "app_revoked"] },
          },
          required: ["id", "appId", "environment", "createdAt", "revokedAt", "reason"],
          additionalProperties: false,
        },
      },
      required: ["companyId", "grant"],
      additionalProperties: false,
    },
    AccessRequestEventData: {
      type: "object",
      description: "The merchant and the ADSR access request in its new state.",
      properties: {
        companyId: integer,
        accessRequest: {
          type: "object",
          properties: {
            id: integer,
            appId: { type: "string" },
            state: { type: "string", enum: ["APPROVED", "DECLINED", "WITHDRAWN", "EXPIRED"] },
            storeIds: integers,
            approvedStoreIds: { type: ["array", "null"], items: integer },
            createdAt: dateTime,
            expiresAt: dateTime,
            decidedAt: nullableDateTime,
            withdrawnAt: nullableDateTime,
          },
          required: [
            "id",
            "appId",
            "state",
            "storeIds",
            "approvedStoreIds",
            "createdAt",
            "expiresAt",
            "decidedAt",
            "withdrawnAt",
          ],
          additionalProperties: false,
        },
      },
      required: ["companyId", "accessRequest"],
      additionalProperties: false,
    },
    ItemEventData: {
      type: "object",
      description:
        "The merchant and the item as GET /v1/items/{id} answers it; for an availability change, the store (`storeId`) and the item as GET /v1/items/{id}?storeId= answers it.",
      properties: { companyId: integer, storeId: integer, item: { $ref: ref("partnerapi.v1.Item") } },
      required: ["companyId", "item"],
      additionalProperties: false,
    },
    CategoryEventData: {
      type: "object",
      description: "The merchant and the category as GET /v1/categories answers it.",
      properties: { companyId: integer, category: { $ref: ref("partnerapi.v1.Category") } },
      required: ["companyId", "category"],
      additionalProperties: false,
    },
    StoreEventData: {
      type: "object",
      description: "The merchant and the store as GET /v1/stores/{id} answers it.",
      properties: { companyId: integer, store: { $ref: ref("partnerapi.v1.Store") } },
      required: ["companyId", "store"],
      additionalProperties: false,
    },
    TestEventData: {
      type: "object",
      description: "The endpoint tested and its app.",
      properties: { endpointId: { type: "string" }, appId: { type: "string" } },
      required: ["endpointId", "appId"],
      additionalProperties: false,
    },
  };
}
