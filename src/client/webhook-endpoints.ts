// Managing the app's webhook endpoints (`/v1/webhook-endpoints`) with its client credentials over HTTP Basic, as at
// POST /v1/token: the credentials' environment decides whose events an endpoint gets (sandbox: the organization's
// sandbox merchants; production: the merchants connected to the app). Receiving is `webhooks.verify`.

import { clientError } from "./errors.js";
import type { Authenticator, HttpCall, Transport } from "./transport.js";
import type { WebhookEventType } from "./webhooks.js";

/** The environments an endpoint serves (its credentials'). */
export const webhookEnvironments = ["sandbox", "production"] as const;
export type WebhookEnvironment = (typeof webhookEnvironments)[number];
/** enabled, or disabled (by hand, or after five days of failures). */
export const webhookEndpointStatuses = ["enabled", "disabled"] as const;
export type WebhookEndpointStatus = (typeof webhookEndpointStatuses)[number];
/** How one attempt to deliver ended. */
export const webhookAttemptOutcomes = [
  "SUCCEEDED",
  "HTTP_ERROR",
  "TIMEOUT",
  "CONNECTION_ERROR",
  "ADDRESS_REFUSED",
  "ENDPOINT_DISABLED",
] as const;
export type WebhookAttemptOutcome = (typeof webhookAttemptOutcomes)[number];
/** A delivery: still retried, delivered, or given up. */
export const webhookDeliveryStates = ["PENDING", "SUCCEEDED", "FAILED"] as const;
export type WebhookDeliveryState = (typeof webhookDeliveryStates)[number];

/** An endpoint as the API answers it; its secret is never in it (only `create` and `rotateSecret` answer one). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Empty: every event type. */
  events: WebhookEventType[];
  description?: string;
  environment: WebhookEnvironment;
  status: WebhookEndpointStatus;
  /** When a failure streak began; five days of failures disable the endpoint. */
  failingSince?: string;
  disabledAt?: string;
  createdAt: string;
  /** After a rotation: until when the previous secret still signs beside the new one. */
  previousSecretExpiresAt?: string;
}

export interface WebhookAttempt {
  attempt: number;
  attemptedAt: string;
  outcome: WebhookAttemptOutcome;
  statusCode?: number;
  durationMs: number;
  /** The first 256 characters of the receiver's answer. */
  responseExcerpt: string;
}

export interface WebhookDelivery {
  id: string;
  /** The `webhook-id` header, the same on every attempt. */
  eventId: string;
  eventType: WebhookEventType;
  state: WebhookDeliveryState;
  createdAt: string;
  nextAttemptAt?: string;
  attempts: WebhookAttempt[];
}

export interface WebhookEndpoints {
  /** A new endpoint and its signing secret (`whsec_…`), which is shown only here: keep it. At most 10 per environment. */
  create(input: { url: string; events?: WebhookEventType[]; description?: string }): Promise<{
    endpoint: WebhookEndpoint;
    secret: string;
  }>;
  list(): Promise<WebhookEndpoint[]>;
  get(endpointId: string): Promise<WebhookEndpoint>;
  /** Changes the URL, the events or the description, or enables a disabled endpoint again (`enabled: true`). */
  update(
    endpointId: string,
    changes: { url?: string; events?: WebhookEventType[]; description?: string; enabled?: boolean },
  ): Promise<WebhookEndpoint>;
  remove(endpointId: string): Promise<void>;
  /** A new secret; the previous one keeps signing beside it for 24 hours, so receivers can be moved over. */
  rotateSecret(endpointId: string): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  /** Sends a `webhook.test` event; answers its id (the `webhook-id` header it arrives with). */
  sendTest(endpointId: string): Promise<{ eventId: string }>;
  /** The events sent to the endpoint, newest first, each with its attempts. */
  deliveries(
    endpointId: string,
    page?: { limit?: number; cursor?: string },
  ): Promise<{ deliveries: WebhookDelivery[]; nextCursor?: string }>;
  /** Sends a delivery's event again now, with the same `webhook-id`. */
  resend(endpointId: string, deliveryId: string): Promise<WebhookDelivery>;
}

export interface WebhookEndpointsOptions {
  transport: Transport;
  /** {base_url}: the routes are at /v1/webhook-endpoints of it. */
  baseUrl: string;
  clientId: string | undefined;
  clientSecret: string | undefined;
  acceptLanguage?: string | undefined;
}

/** The field of an answer, checked to be present: the API's answer is what the types above say. */
function field<T>(body: Record<string, unknown>, name: string, path: string): T {
  const value = body[name];
  if (value === undefined || value === null) {
    throw clientError("client.bad_response", `${path} answered without \`${name}\``);
  }
  return value as T;
}

export function createWebhookEndpoints(options: WebhookEndpointsOptions): WebhookEndpoints {
  const auth: Authenticator = {
    async credentials() {
      if (!options.clientId || !options.clientSecret) {
        throw clientError("client.misconfigured", "clientId and clientSecret are needed to manage webhook endpoints");
      }
      // RFC 6749 2.3.1: each part form-urlencoded before Base64, as the token endpoint reads them.
      const pair = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
      return {
        headers: { authorization: `Basic ${btoa(pair)}` },
        apiBaseUrl: new URL("/v1/", options.baseUrl).toString(),
      };
    },
  };
  const send = (method: HttpCall["method"], path: string, extra: Partial<HttpCall> = {}) =>
    options.transport.send({
      method,
      path,
      // Creating and resending are not idempotent: sent again only when nothing can have been written.
      write: method === "POST" || method === "PATCH",
      partner: false,
      auth,
      acceptLanguage: options.acceptLanguage,
      ...extra,
    });
  const at = (endpointId: string, rest = "") => `webhook-endpoints/${encodeURIComponent(endpointId)}${rest}`;

  return {
    async create(input) {
      const body = await send("POST", "webhook-endpoints", { body: { ...input } });
      return {
        endpoint: field<WebhookEndpoint>(body, "endpoint", "POST /v1/webhook-endpoints"),
        secret: field<string>(body, "secret", "POST /v1/webhook-endpoints"),
      };
    },
    async list() {
      return field<WebhookEndpoint[]>(await send("GET", "webhook-endpoints"), "endpoints", "GET /v1/webhook-endpoints");
    },
    async get(endpointId) {
      return field<WebhookEndpoint>(await send("GET", at(endpointId)), "endpoint", "GET /v1/webhook-endpoints/{id}");
    },
    async update(endpointId, changes) {
      const body = await send("PATCH", at(endpointId), { body: { ...changes } });
      return field<WebhookEndpoint>(body, "endpoint", "PATCH /v1/webhook-endpoints/{id}");
    },
    async remove(endpointId) {
      await send("DELETE", at(endpointId), { write: false });
    },
    async rotateSecret(endpointId) {
      const body = await send("POST", at(endpointId, "/rotate-secret"), { body: {} });
      const path = "POST /v1/webhook-endpoints/{id}/rotate-secret";
      return { endpoint: field<WebhookEndpoint>(body, "endpoint", path), secret: field<string>(body, "secret", path) };
    },
    async sendTest(endpointId) {
      const body = await send("POST", at(endpointId, "/test"), { body: {} });
      return { eventId: field<string>(body, "eventId", "POST /v1/webhook-endpoints/{id}/test") };
    },
    async deliveries(endpointId, page = {}) {
      const body = await send("GET", at(endpointId, "/deliveries"), { query: { ...page } });
      const deliveries = field<WebhookDelivery[]>(body, "deliveries", "GET /v1/webhook-endpoints/{id}/deliveries");
      const nextCursor = body["nextCursor"];
      return typeof nextCursor === "string" ? { deliveries, nextCursor } : { deliveries };
    },
    async resend(endpointId, deliveryId) {
      const body = await send("POST", at(endpointId, `/deliveries/${encodeURIComponent(deliveryId)}/resend`), {
        body: {},
      });
      return field<WebhookDelivery>(body, "delivery", "POST /v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend");
    },
  };
}
