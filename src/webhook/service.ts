// WebhookService: an app's webhook endpoints, managed with its own client credentials (HTTP Basic at the front;
// the credential's environment decides which endpoints it sees and whose events they get). Every RPC is a short
// list of steps: authenticate the client (and its IP allowlist), find the endpoint of that app and environment,
// change it in one transaction. Secrets are shown once and stored sealed (endpoint-secrets.ts).
// The console (ConsoleService, src/console/webhooks.ts) calls this same implementation in process for a member of the
// app's organization: it names the app and environment in the call's context values (webhookConsoleActorKey), which
// only an in-process caller can set, in place of the client credentials; every other step is the same.
import { randomBytes } from "node:crypto";
import { createContextKey, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  WebhookService,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { isEventType, recordEvent } from "../events/index.js";
import { serviceError } from "../errors/index.js";
import { callerInfoKey } from "../runtime/caller-context.js";
import type { ServiceContext } from "../runtime/service-context.js";
import type { SqlClient } from "../storage/sql-client.js";
import { clientAddressAllowed, type VerifyClient, type VerifiedClient } from "../token/index.js";
import { privateNetworksOf, type AddressPolicy } from "./address-policy.js";
import type { DeliveryQueue } from "./delivery-queue.js";
import { checkEndpointUrl, type ResolveHost } from "./endpoint-url.js";
import { openEndpointKey, sealEndpointKey } from "./endpoint-secrets.js";
import { createDeliveryQueries, type AttemptRow, type DeliveryRow } from "./queries/delivery-queries.js";
import { createEndpointQueries, type EndpointRow } from "./queries/endpoint-queries.js";
import { newSecretKey, secretText } from "./signing.js";
import type postgres from "postgres";

const domain = WebhookService.typeName;

export interface WebhookServiceDeps {
  sql: postgres.Sql;
  verifyClient: VerifyClient;
  kek: Buffer;
  resolve: ResolveHost;
  forbiddenPorts: ReadonlySet<number>;
  /** Wakes the relay after a commit that wrote an event (the test event), so it leaves at once. */
  nudge?: () => void;
  /** Enqueues a resend's attempt; absent where this process runs no queue (answers unimplemented then). */
  queue?: DeliveryQueue;
}

/** Whose endpoints an RPC manages: the app and the credential environment (a client's, or the console's choice). */
export interface WebhookActor {
  appId: string;
  environment: VerifiedClient["environment"];
}

/**
 * Set by the ConsoleService only, after it checked the developer's organization role for the app: the RPC then acts
 * for that app and environment without client credentials (and without a client's IP allowlist, which guards the
 * credential, not the console). A context value cannot come from the network: the front builds its own.
 */
export const webhookConsoleActorKey = createContextKey<WebhookActor | undefined>(undefined, {
  description: "the app and environment the console acts for",
});

export function newEndpointId(): string {
  return `we_${randomBytes(12).toString("base64url")}`;
}

/** "*" or nothing: every type; otherwise known types only, deduplicated. */
function eventFilter(events: readonly string[]): string[] {
  if (events.includes("*")) return [];
  const unknown = events.find((event) => !isEventType(event));
  if (unknown !== undefined) throw serviceError(domain, "developer.webhook_event_unknown", { event: unknown });
  return [...new Set(events)];
}

function iso(date: Date | null | undefined): string | undefined {
  return date ? date.toISOString() : undefined;
}

export function endpointMessage(row: EndpointRow, now: Date): Omit<WebhookEndpoint, "$typeName"> {
  const overlap =
    row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > now.getTime()
      ? row.previous_secret_expires_at
      : undefined;
  return {
    id: row.id,
    url: row.url,
    events: row.event_types,
    description: row.description,
    environment: row.environment.toLowerCase(),
    status: row.disabled_at ? "disabled" : "enabled",
    failingSince: iso(row.failing_since),
    disabledAt: iso(row.disabled_at),
    createdAt: row.created_at.toISOString(),
    previousSecretExpiresAt: iso(overlap),
  };
}

export function deliveryMessage(row: DeliveryRow, attempts: readonly AttemptRow[]): Omit<WebhookDelivery, "$typeName"> {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    createdAt: row.created_at.toISOString(),
    nextAttemptAt: row.state === "PENDING" ? iso(row.next_attempt_at) : undefined,
    attempts: attempts.map((attempt) => ({
      $typeName: "partnerapi.v1.WebhookAttempt" as const,
      attempt: attempt.attempt,
      attemptedAt: attempt.attempted_at.toISOString(),
      outcome: attempt.outcome,
      statusCode: attempt.status_code ?? undefined,
      durationMs: attempt.duration_ms,
      responseExcerpt: attempt.response_excerpt,
    })),
  };
}

/** The opaque cursor of the deliveries list: the last row's (created_at, id). */
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

export function createWebhookService(
  context: ServiceContext,
  deps: WebhookServiceDeps,
): ServiceImpl<typeof WebhookService> {
  const { config, clock, logger } = context;
  const now = () => new Date(clock.now());
  const privateNetworks = privateNetworksOf(config.webhooks.allowPrivateNetworks);
  const policyFor = (client: WebhookActor): AddressPolicy => ({
    allowLoopback: client.environment === "SANDBOX" && config.webhooks.allowLoopback,
    privateNetworks: client.environment === "SANDBOX" ? privateNetworks : undefined,
    forbiddenPorts: deps.forbiddenPorts,
  });

  /** Step 1 of every RPC: the client's id and secret, from an address its allowlist admits (or the console's actor). */
  async function authenticate(
    request: { clientId: string; clientSecret: string },
    handlerContext: HandlerContext,
  ): Promise<WebhookActor> {
    const actor = handlerContext.values.get(webhookConsoleActorKey);
    if (actor) return actor;
    // No client authentication included is invalid_client (RFC 6749 section 5.2): 401 with WWW-Authenticate: Basic,
    // as the OpenAPI document's `security` says, not a 400 that reads as a malformed request.
    if (!request.clientId || !request.clientSecret) throw serviceError(domain, "developer.invalid_client");
    const client = await deps.verifyClient(request.clientId, request.clientSecret);
    const caller = handlerContext.values.get(callerInfoKey);
    if (!clientAddressAllowed(client, caller?.clientAddress ?? "internal"))
      throw serviceError(domain, "developer.ip_denied");
    return client;
  }

  async function endpointOf(client: WebhookActor, endpointId: string): Promise<EndpointRow> {
    const row = await createEndpointQueries(deps.sql).find(endpointId, client.appId, client.environment);
    if (!row) throw serviceError(domain, "developer.webhook_endpoint_not_found");
    return row;
  }

  async function checkUrl(url: string, client: WebhookActor): Promise<void> {
    const refusal = await checkEndpointUrl(url, policyFor(client), deps.resolve);
    if (refusal) throw serviceError(domain, "developer.webhook_url_invalid", { rule: refusal });
  }

  return {
    async createWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const events = eventFilter(request.events);
      await checkUrl(request.url, client);
      const key = newSecretKey();
      const id = newEndpointId();
      const at = now();
      const row = await deps.sql.begin(async (tx: SqlClient) => {
        // The app's row lock serialises creations, so the limit holds under parallel requests.
        await tx`select id from control.apps where id = ${client.appId} for update`;
        const endpoints = createEndpointQueries(tx);
        if ((await endpoints.list(client.appId, client.environment)).length >= config.webhooks.endpointLimit) {
          throw serviceError(domain, "developer.webhook_endpoint_limit", { limit: config.webhooks.endpointLimit });
        }
        return endpoints.insert({
          id,
          appId: client.appId,
          environment: client.environment,
          url: request.url,
          description: request.description,
          eventTypes: events,
          secretSealed: sealEndpointKey(deps.kek, id, key),
          now: at,
        });
      });
      logger.info("webhook endpoint created", { endpointId: id, appId: client.appId, environment: client.environment });
      return { endpoint: endpointMessage(row, at), secret: secretText(key) };
    },

    async listWebhookEndpoints(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const at = now();
      return {
        endpoints: (await createEndpointQueries(deps.sql).list(client.appId, client.environment)).map((row) =>
          endpointMessage(row, at),
        ),
      };
    },

    async getWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      return { endpoint: endpointMessage(await endpointOf(client, request.endpointId), now()) };
    },

    async updateWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      await endpointOf(client, request.endpointId);
      if (request.enabled === false)
        throw serviceError(domain, "developer.invalid_request", {
          fields: "enabled (only true: an endpoint is disabled by failing, or deleted)",
        });
      const events = request.events.length > 0 ? eventFilter(request.events) : undefined;
      if (request.url !== undefined) await checkUrl(request.url, client);
      const at = now();
      const row = await createEndpointQueries(deps.sql).update(
        request.endpointId,
        { url: request.url, description: request.description, eventTypes: events, enable: request.enabled === true },
        at,
      );
      if (!row) throw serviceError(domain, "developer.webhook_endpoint_not_found");
      return { endpoint: endpointMessage(row, at) };
    },

    async deleteWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      await endpointOf(client, request.endpointId);
      const deleted = await createEndpointQueries(deps.sql).softDelete(request.endpointId, now());
      if (!deleted) throw serviceError(domain, "developer.webhook_endpoint_not_found");
      logger.info("webhook endpoint deleted", { endpointId: request.endpointId, appId: client.appId });
      return { deleted: true };
    },

    async rotateWebhookSecret(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const current = await endpointOf(client, request.endpointId);
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
      logger.info("webhook secret rotated", { endpointId: current.id, appId: client.appId });
      return { endpoint: endpointMessage(row, at), secret: secretText(key) };
    },

    async sendTestWebhook(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const endpoint = await endpointOf(client, request.endpointId);
      const at = now();
      const eventId = await deps.sql.begin((tx: SqlClient) =>
        recordEvent(tx, {
          type: "webhook.test",
          audience: { kind: "endpoint", endpointId: endpoint.id },
          data: { endpointId: endpoint.id, appId: client.appId },
          occurredAt: at,
        }),
      );
      deps.nudge?.();
      return { eventId };
    },

    async listWebhookDeliveries(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const endpoint = await endpointOf(client, request.endpointId);
      const limit = request.limit ?? 20;
      const deliveries = createDeliveryQueries(deps.sql);
      const rows = await deliveries.page(
        endpoint.id,
        limit + 1,
        request.cursor ? decodeCursor(request.cursor) : undefined,
      );
      const page = rows.slice(0, limit);
      const attempts = await deliveries.attemptsOf(page.map((row) => row.id));
      return {
        deliveries: page.map((row) =>
          deliveryMessage(
            row,
            attempts.filter((attempt) => attempt.delivery_id === row.id),
          ),
        ),
        nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : undefined,
      };
    },

    async resendWebhookDelivery(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const endpoint = await endpointOf(client, request.endpointId);
      const queue = deps.queue;
      if (!queue) throw serviceError(domain, "server.unimplemented");
      const at = now();
      const row = await deps.sql.begin(async (tx: SqlClient) => {
        const reopened = await createDeliveryQueries(tx).reopen(request.deliveryId, endpoint.id, at);
        if (!reopened) throw serviceError(domain, "developer.webhook_delivery_not_found");
        await queue.enqueue(tx, { deliveryId: reopened.id, attempt: reopened.attempts_started + 1 }, endpoint.id);
        return reopened;
      });
      queue.wake(1);
      const attempts = await createDeliveryQueries(deps.sql).attemptsOf([row.id]);
      return { delivery: deliveryMessage(row, attempts) };
    },
  };
}
