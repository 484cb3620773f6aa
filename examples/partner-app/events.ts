// The example's webhook receiver. At start it registers one endpoint per app it uses (POST /v1/webhook-endpoints
// with the app's client credentials; an endpoint left by an earlier run at the same URL gets a new secret instead),
// keeps each secret in memory, and accepts a POST at the endpoint's path only when `webhooks.verify` (the Standard
// Webhooks library) says the body was signed with it. Events are deduplicated per endpoint by `webhook-id`
// (delivery is at least once) and the last 100 are kept for the /events page; each new one is also handed to the
// app's listener (the menu board, ./menu.ts).
import type http from "node:http";
import { type PartnerClient, type WebhookEvent, webhooks, WebhookVerificationError } from "./partner-client.js";

export interface ReceivedEvent {
  /** The `webhook-id` header: the event's id, the same on every retry. */
  id: string;
  receivedAt: Date;
  /** Which of the example's apps the endpoint belongs to. */
  app: string;
  event: WebhookEvent;
}

export interface Subscription {
  app: string;
  url: string;
  endpointId: string;
}

export interface EventInbox {
  /** Registers (or re-keys) the endpoint at `url` for `client`'s app; its path then accepts that app's events. */
  subscribe(app: string, client: PartnerClient, url: string): Promise<Subscription>;
  subscriptions(): Subscription[];
  /** Whether `path` is one of the endpoints' paths. */
  accepts(path: string): boolean;
  /** A delivery: 204 when verified (a duplicate too), 400 when the signature, timestamp or body is wrong. */
  receive(path: string, rawBody: string, headers: http.IncomingHttpHeaders): { status: number; reason?: string };
  /** Newest first. */
  events(): ReceivedEvent[];
  /** Sends a webhook.test event to every endpoint; answers the event ids. */
  sendTests(): Promise<string[]>;
}

const kept = 100;

/** `onEvent` hears each verified event once per endpoint (a duplicate delivery is not heard again). */
export function createEventInbox(
  now: () => Date = () => new Date(),
  onEvent?: (event: WebhookEvent) => void,
): EventInbox {
  const endpoints = new Map<string, { subscription: Subscription; secret: string; client: PartnerClient }>();
  const received: ReceivedEvent[] = [];

  return {
    async subscribe(app, client, url) {
      const existing = (await client.webhookEndpoints.list()).find((endpoint) => endpoint.url === url);
      const { endpoint, secret } = existing
        ? await client.webhookEndpoints.rotateSecret(existing.id)
        : await client.webhookEndpoints.create({ url, description: `example partner app (${app})` });
      const subscription = { app, url, endpointId: endpoint.id };
      endpoints.set(new URL(url).pathname, { subscription, secret, client });
      return subscription;
    },
    subscriptions: () => [...endpoints.values()].map((entry) => entry.subscription),
    accepts: (path) => endpoints.has(path),
    receive(path, rawBody, headers) {
      const endpoint = endpoints.get(path);
      if (!endpoint) return { status: 404 };
      let event: WebhookEvent;
      try {
        event = webhooks.verify(rawBody, headers, endpoint.secret);
      } catch (error) {
        if (error instanceof WebhookVerificationError) return { status: 400, reason: error.message };
        throw error;
      }
      const id = String(headers["webhook-id"]);
      // The same event reaches each endpoint of the apps that may see it: deduplicated per endpoint.
      if (!received.some((entry) => entry.id === id && entry.app === endpoint.subscription.app)) {
        received.unshift({ id, receivedAt: now(), app: endpoint.subscription.app, event });
        received.length = Math.min(received.length, kept);
        onEvent?.(event);
      }
      return { status: 204 };
    },
    events: () => [...received],
    async sendTests() {
      const sent = [];
      for (const { subscription, client } of endpoints.values())
        sent.push((await client.webhookEndpoints.sendTest(subscription.endpointId)).eventId);
      return sent;
    },
  };
}

/** One line on what an event says, for the events page. */
export function summaryOf(event: WebhookEvent): string {
  switch (event.type) {
    case "online_order.created":
    case "online_order.updated":
      return `order ${event.data.order.id}: ${event.data.order.status}`;
    case "item.created":
    case "item.updated":
    case "item.deleted": {
      const { item, storeId } = event.data;
      const where = storeId === undefined ? "" : ` in store ${storeId}${item.available === false ? ": sold out" : ""}`;
      return `item ${item.id} ${event.type.slice("item.".length)}${where}`;
    }
    case "category.created":
    case "category.updated":
      return `category ${event.data.category.id}: ${event.data.category.name}`;
    case "store.updated":
      return `store ${event.data.store.id}: ${event.data.store.onlineOrdering.status}`;
    case "grant.created":
    case "grant.revoked":
      return `${event.data.grant.appId}, ${event.data.grant.environment}: ${event.data.grant.reason.replaceAll("_", " ")}`;
    case "access_request.approved":
    case "access_request.declined":
    case "access_request.withdrawn":
    case "access_request.expired":
      return `access request ${event.data.accessRequest.id}: ${event.data.accessRequest.state}`;
    case "webhook.test":
      return `test of endpoint ${event.data.endpointId}`;
  }
}

/** The merchant an event is about, when it names one. */
export function merchantOf(event: WebhookEvent): number | undefined {
  return "companyId" in event.data ? event.data.companyId : undefined;
}
