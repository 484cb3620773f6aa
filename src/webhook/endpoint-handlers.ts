// WebhookService: the RPCs over ./endpoints.ts, for a client that authenticates with its own credentials (HTTP Basic
// at the front; the credential's environment decides which endpoints it sees and whose events they get). Protobuf in
// and out here only: an endpoint and a delivery are described once, for this service and for the ConsoleService,
// which calls ./endpoints.ts itself after its own role check.
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { WebhookDelivery, WebhookEndpoint, WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { serviceError } from "../errors/index.js";
import { callerInfoKey } from "../runtime/caller-context.js";
import { clientAddressAllowed, type VerifyClient } from "../token/index.js";
import { domain, type Delivery, type Endpoint, type WebhookActor, type WebhookEndpoints } from "./endpoints.js";

function iso(date: Date | null | undefined): string | undefined {
  return date ? date.toISOString() : undefined;
}

export function describeEndpoint({ row, at }: Endpoint): Omit<WebhookEndpoint, "$typeName"> {
  const overlap =
    row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > at.getTime()
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

export function describeDelivery({ row, attempts }: Delivery): Omit<WebhookDelivery, "$typeName"> {
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

export function createEndpointHandlers(
  endpoints: WebhookEndpoints,
  verifyClient: VerifyClient,
): ServiceImpl<typeof WebhookService> {
  /** Step 1 of every RPC: the client's id and secret, from an address its allowlist admits. */
  async function authenticate(
    request: { clientId: string; clientSecret: string },
    handlerContext: HandlerContext,
  ): Promise<WebhookActor> {
    // No client authentication included is invalid_client (RFC 6749 section 5.2): 401 with WWW-Authenticate: Basic,
    // as the OpenAPI document's `security` says, not a 400 that reads as a malformed request.
    if (!request.clientId || !request.clientSecret) throw serviceError(domain, "developer.invalid_client");
    const client = await verifyClient(request.clientId, request.clientSecret);
    const caller = handlerContext.values.get(callerInfoKey);
    if (!clientAddressAllowed(client, caller?.clientAddress ?? "internal"))
      throw serviceError(domain, "developer.ip_denied");
    return client;
  }

  return {
    async createWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const { endpoint, secret } = await endpoints.createEndpoint(client, request);
      return { endpoint: describeEndpoint(endpoint), secret };
    },

    async listWebhookEndpoints(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      return { endpoints: (await endpoints.listEndpoints(client)).map(describeEndpoint) };
    },

    async getWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      return { endpoint: describeEndpoint(await endpoints.getEndpoint(client, request.endpointId)) };
    },

    async updateWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      return { endpoint: describeEndpoint(await endpoints.updateEndpoint(client, request.endpointId, request)) };
    },

    async deleteWebhookEndpoint(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      await endpoints.deleteEndpoint(client, request.endpointId);
      return { deleted: true };
    },

    async rotateWebhookSecret(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const { endpoint, secret } = await endpoints.rotateSecret(client, request.endpointId);
      return { endpoint: describeEndpoint(endpoint), secret };
    },

    async sendTestWebhook(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      return { eventId: await endpoints.sendTestWebhook(client, request.endpointId) };
    },

    async listWebhookDeliveries(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      const page = await endpoints.listDeliveries(client, request.endpointId, request);
      return { deliveries: page.deliveries.map(describeDelivery), nextCursor: page.nextCursor };
    },

    async resendWebhookDelivery(request, handlerContext) {
      const client = await authenticate(request, handlerContext);
      return {
        delivery: describeDelivery(await endpoints.resendDelivery(client, request.endpointId, request.deliveryId)),
      };
    },
  };
}
