// An app's webhook endpoints, for one actor (the app and a credential environment): create, list, read, change,
// delete, a new signing secret, a test event, the deliveries and a resend. Plain values in and out, errors from the
// catalogue; who the actor is was settled by the caller (the WebhookService's adapter authenticates a client's
// credentials, ./endpoint-handlers.ts; the console checks the developer's organization role). Each change is one
// transaction. Secrets are shown once and stored sealed (endpoint-secrets.ts).
import { randomBytes } from "node:crypto";
import { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { isEventType, recordEvent } from "../events/index.js";
import { serviceError } from "../errors/index.js";
import type { ServiceContext } from "../runtime/service-context.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { VerifiedClient } from "../token/index.js";
import { privateNetworksOf, type AddressPolicy } from "./address-policy.js";
import type { DeliveryQueue } from "./delivery-queue.js";
import { checkEndpointUrl, type ResolveHost } from "./endpoint-url.js";
import { openEndpointKey, sealEndpointKey } from "./endpoint-secrets.js";
import { createDeliveryQueries, type AttemptRow, type DeliveryRow } from "./queries/delivery-queries.js";
import { createEndpointQueries, type EndpointRow } from "./queries/endpoint-queries.js";
import { newSecretKey, secretText } from "./signing.js";
import type postgres from "postgres";

export const domain = WebhookService.typeName;

export interface WebhookEndpointsDeps {
  sql: postgres.Sql;
  kek: Buffer;
  resolve: ResolveHost;
  forbiddenPorts: ReadonlySet<number>;
  /** Wakes the relay after a commit that wrote an event (the test event), so it leaves at once. */
  nudge?: () => void;
  /** Enqueues a resend's attempt; absent where this process runs no queue (answers unimplemented then). */
  queue?: DeliveryQueue;
}

/** Whose endpoints a call manages: the app and the credential environment (a client's, or the console's choice). */
export interface WebhookActor {
  appId: string;
  environment: VerifiedClient["environment"];
}

/** An endpoint as written or read at `at` (its previous secret's overlap is judged then). */
export interface Endpoint {
  row: EndpointRow;
  at: Date;
}

/** A delivery and its attempts so far. */
export interface Delivery {
  row: DeliveryRow;
  attempts: AttemptRow[];
}

export interface WebhookEndpoints {
  createEndpoint(
    actor: WebhookActor,
    input: { url: string; events: readonly string[]; description: string },
  ): Promise<{ endpoint: Endpoint; secret: string }>;
  listEndpoints(actor: WebhookActor): Promise<Endpoint[]>;
  getEndpoint(actor: WebhookActor, endpointId: string): Promise<Endpoint>;
  /** Empty `events` leaves them; `enabled` may only be true (an endpoint is disabled by failing, or deleted). */
  updateEndpoint(
    actor: WebhookActor,
    endpointId: string,
    change: { url?: string; events: readonly string[]; description?: string; enabled?: boolean },
  ): Promise<Endpoint>;
  deleteEndpoint(actor: WebhookActor, endpointId: string): Promise<void>;
  rotateSecret(actor: WebhookActor, endpointId: string): Promise<{ endpoint: Endpoint; secret: string }>;
  /** Records a webhook.test event for the endpoint; its id. */
  sendTestWebhook(actor: WebhookActor, endpointId: string): Promise<string>;
  /** Newest first, `limit` (20 by default) a page; `cursor` is the previous page's `nextCursor`. */
  listDeliveries(
    actor: WebhookActor,
    endpointId: string,
    page: { limit?: number; cursor?: string },
  ): Promise<{ deliveries: Delivery[]; nextCursor?: string }>;
  resendDelivery(actor: WebhookActor, endpointId: string, deliveryId: string): Promise<Delivery>;
}

function newEndpointId(): string {
  return `we_${randomBytes(12).toString("base64url")}`;
}

/** "*" or nothing: every type; otherwise known types only, deduplicated. */
function eventFilter(events: readonly string[]): string[] {
  if (events.includes("*")) return [];
  const unknown = events.find((event) => !isEventType(event));
  if (unknown !== undefined) throw serviceError(domain, "developer.webhook_event_unknown", { event: unknown });
  return [...new Set(events)];
}

/** The opaque cursor of the deliveries list: the last row's (created_at, id). */
/** Two endpoint URLs are one when they parse alike (host case, default port, an empty path are spelled away). */
function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

function encodeCursor(row: DeliveryRow): string {
  return Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id])).toString("base64url");
}
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const createdAt = new Date(at);
    if (typeof id !== "string" || Number.isNaN(createdAt.getTime())) throw new Error("bad cursor");
    return { createdAt, id };
  } catch {
    throw serviceError(domain, "developer.invalid_request", { fields: "cursor" });
  }
}

export function createWebhookEndpoints(context: ServiceContext, deps: WebhookEndpointsDeps): WebhookEndpoints {
  const { config, clock, logger } = context;
  const now = () => new Date(clock.now());
  const privateNetworks = privateNetworksOf(config.webhooks.allowPrivateNetworks);
  const policyFor = (actor: WebhookActor): AddressPolicy => ({
    allowLoopback: actor.environment === "SANDBOX" && config.webhooks.allowLoopback,
    privateNetworks: actor.environment === "SANDBOX" ? privateNetworks : undefined,
    forbiddenPorts: deps.forbiddenPorts,
  });

  async function endpointOf(actor: WebhookActor, endpointId: string): Promise<EndpointRow> {
    const row = await createEndpointQueries(deps.sql).find(endpointId, actor.appId, actor.environment);
    if (!row) throw serviceError(domain, "developer.webhook_endpoint_not_found");
    return row;
  }

  async function checkUrl(url: string, actor: WebhookActor): Promise<void> {
    const refusal = await checkEndpointUrl(url, policyFor(actor), deps.resolve);
    if (refusal) throw serviceError(domain, "developer.webhook_url_invalid", { rule: refusal });
  }

  return {
    async createEndpoint(actor, input) {
      const events = eventFilter(input.events);
      await checkUrl(input.url, actor);
      const key = newSecretKey();
      const id = newEndpointId();
      const at = now();
      const row = await deps.sql.begin(async (tx: SqlClient) => {
        // The app's row lock serialises creations, so the limit holds under parallel requests.
        await tx`select id from control.apps where id = ${actor.appId} for update`;
        const endpoints = createEndpointQueries(tx);
        const existing = await endpoints.list(actor.appId, actor.environment);
        // One endpoint a URL: a second one would get every event twice, and the console could not tell them apart.
        if (existing.some((endpoint) => sameUrl(endpoint.url, input.url)))
          throw serviceError(domain, "developer.webhook_url_taken");
        if (existing.length >= config.webhooks.endpointLimit) {
          throw serviceError(domain, "developer.webhook_endpoint_limit", { limit: config.webhooks.endpointLimit });
        }
        return endpoints.insert({
          id,
          appId: actor.appId,
          environment: actor.environment,
          url: input.url,
          description: input.description,
          eventTypes: events,
          secretSealed: sealEndpointKey(deps.kek, id, key),
          now: at,
        });
      });
      logger.info("webhook endpoint created", { endpointId: id, appId: actor.appId, environment: actor.environment });
      return { endpoint: { row, at }, secret: secretText(key) };
    },

    async listEndpoints(actor) {
      const at = now();
      return (await createEndpointQueries(deps.sql).list(actor.appId, actor.environment)).map((row) => ({ row, at }));
    },

    async getEndpoint(actor, endpointId) {
      const row = await endpointOf(actor, endpointId);
      return { row, at: now() };
    },

    async updateEndpoint(actor, endpointId, change) {
      await endpointOf(actor, endpointId);
      if (change.enabled === false)
        throw serviceError(domain, "developer.invalid_request", {
          fields: "enabled (only true: an endpoint is disabled by failing, or deleted)",
        });
      const events = change.events.length > 0 ? eventFilter(change.events) : undefined;
      if (change.url !== undefined) await checkUrl(change.url, actor);
      const at = now();
      const row = await deps.sql.begin(async (tx: SqlClient) => {
        const endpoints = createEndpointQueries(tx);
        if (change.url !== undefined) {
          // The app's row lock, as creation takes it: a move onto a URL races no creation of it.
          await tx`select id from control.apps where id = ${actor.appId} for update`;
          const others = (await endpoints.list(actor.appId, actor.environment)).filter((one) => one.id !== endpointId);
          if (others.some((endpoint) => sameUrl(endpoint.url, change.url!)))
            throw serviceError(domain, "developer.webhook_url_taken");
        }
        return endpoints.update(
          endpointId,
          { url: change.url, description: change.description, eventTypes: events, enable: change.enabled === true },
          at,
        );
      });
      if (!row) throw serviceError(domain, "developer.webhook_endpoint_not_found");
      return { row, at };
    },

    async deleteEndpoint(actor, endpointId) {
      await endpointOf(actor, endpointId);
      const deleted = await createEndpointQueries(deps.sql).softDelete(endpointId, now());
      if (!deleted) throw serviceError(domain, "developer.webhook_endpoint_not_found");
      logger.info("webhook endpoint deleted", { endpointId, appId: actor.appId });
    },

    async rotateSecret(actor, endpointId) {
      const current = await endpointOf(actor, endpointId);
      const key = newSecretKey();
      const at = now();
      // The current key is re-sealed as the previous one (it opens with the same context: the endpoint's id).
      openEndpointKey(deps.kek, current.id, current.secret_sealed);
      const overlapUntil = new Date(at.getTime() + config.lifetimes.secretRotationOverlap * 1000);
      const row = await createEndpointQueries(deps.sql).rotateSecret(
        current.id,
        sealEndpointKey(deps.kek, current.id, key),
        current.secret_sealed,
        overlapUntil,
        at,
      );
      if (!row) throw serviceError(domain, "developer.webhook_endpoint_not_found");
      logger.info("webhook secret rotated", { endpointId: current.id, appId: actor.appId });
      return { endpoint: { row, at }, secret: secretText(key) };
    },

    async sendTestWebhook(actor, endpointId) {
      const endpoint = await endpointOf(actor, endpointId);
      const at = now();
      const eventId = await deps.sql.begin((tx: SqlClient) =>
        recordEvent(tx, {
          type: "webhook.test",
          audience: { kind: "endpoint", endpointId: endpoint.id },
          data: { endpointId: endpoint.id, appId: actor.appId },
          occurredAt: at,
        }),
      );
      deps.nudge?.();
      return eventId;
    },

    async listDeliveries(actor, endpointId, page) {
      const endpoint = await endpointOf(actor, endpointId);
      const limit = page.limit ?? 20;
      const deliveries = createDeliveryQueries(deps.sql);
      const rows = await deliveries.page(endpoint.id, limit + 1, page.cursor ? decodeCursor(page.cursor) : undefined);
      const shown = rows.slice(0, limit);
      const attempts = await deliveries.attemptsOf(shown.map((row) => row.id));
      return {
        deliveries: shown.map((row) => ({
          row,
          attempts: attempts.filter((attempt) => attempt.delivery_id === row.id),
        })),
        nextCursor: rows.length > limit ? encodeCursor(shown[shown.length - 1]!) : undefined,
      };
    },

    async resendDelivery(actor, endpointId, deliveryId) {
      const endpoint = await endpointOf(actor, endpointId);
      const queue = deps.queue;
      if (!queue) throw serviceError(domain, "server.unimplemented");
      const at = now();
      const row = await deps.sql.begin(async (tx: SqlClient) => {
        const reopened = await createDeliveryQueries(tx).reopen(deliveryId, endpoint.id, at);
        if (!reopened) throw serviceError(domain, "developer.webhook_delivery_not_found");
        await queue.enqueue(tx, [
          { job: { deliveryId: reopened.id, attempt: reopened.attempts_started + 1 }, endpointId: endpoint.id },
        ]);
        return reopened;
      });
      queue.wake(1);
      const attempts = await createDeliveryQueries(deps.sql).attemptsOf([row.id]);
      return { row, attempts };
    },
  };
}
