// ConsoleService, an app's webhooks: its endpoints in one environment, their deliveries, a test event, a resend and
// a new signing secret. No second implementation: each handler checks the caller's organization role for the app
// (any member reads; manage_apps changes), then calls the WebhookService implementation the /v1/webhook-endpoints
// routes call, in process, with the app and environment as its actor (webhookConsoleActorKey) in place of the
// client credentials. docs/decisions.md, "Events and webhooks (the webhook owner)".
import { createContextValues, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { Environment } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { callerInfoKey } from "../runtime/caller-context.js";
import { createInProcessClient, type CallOptions } from "../runtime/service-caller.js";
import { webhookConsoleActorKey } from "../webhook/index.js";
import type { ConsoleContext } from "./console-context.js";
import type { OrgAction } from "./org-roles.js";

export function createWebhookHandlers(
  shared: ConsoleContext,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  | "listAppWebhookEndpoints"
  | "createAppWebhookEndpoint"
  | "deleteAppWebhookEndpoint"
  | "enableAppWebhookEndpoint"
  | "rotateAppWebhookSecret"
  | "sendAppTestWebhook"
  | "listAppWebhookDeliveries"
  | "resendAppWebhookDelivery"
> {
  const { authenticate, requireAppRole, invalid, fail, config, deps } = shared;
  const webhooks = deps.webhooks ? createInProcessClient(WebhookService, deps.webhooks) : undefined;

  /** The role check, then the call options that make the WebhookService act for this app and environment. */
  async function actingFor(
    request: { appId: string; environment: Environment },
    ctx: HandlerContext,
    action: OrgAction,
  ): Promise<{ client: NonNullable<typeof webhooks>; options: CallOptions }> {
    const { account } = await authenticate(ctx);
    await requireAppRole(account.id, request.appId, action);
    const environment =
      request.environment === Environment.SANDBOX
        ? "SANDBOX"
        : request.environment === Environment.PRODUCTION
          ? "PRODUCTION"
          : undefined;
    if (!environment) throw invalid("environment", "must be SANDBOX or PRODUCTION");
    if (!webhooks) throw fail("server.unimplemented");
    // Fresh values: the caller's address and correlation id, and the actor; nothing else of the console call.
    const values = createContextValues()
      .set(callerInfoKey, ctx.values.get(callerInfoKey))
      .set(webhookConsoleActorKey, { appId: request.appId, environment });
    return { client: webhooks, options: { headers: ctx.requestHeader, values, signal: ctx.signal } };
  }

  return {
    async listAppWebhookEndpoints(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "read");
      const listed = await client.listWebhookEndpoints({}, options);
      return { endpoints: listed.endpoints, limit: config.webhooks.endpointLimit };
    },

    async createAppWebhookEndpoint(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "manage_apps");
      const created = await client.createWebhookEndpoint(
        { url: request.url, events: request.events, description: request.description },
        options,
      );
      return { endpoint: created.endpoint, secret: created.secret };
    },

    async deleteAppWebhookEndpoint(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "manage_apps");
      return { deleted: (await client.deleteWebhookEndpoint({ endpointId: request.endpointId }, options)).deleted };
    },

    async enableAppWebhookEndpoint(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "manage_apps");
      const updated = await client.updateWebhookEndpoint({ endpointId: request.endpointId, enabled: true }, options);
      return { endpoint: updated.endpoint };
    },

    async rotateAppWebhookSecret(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "manage_apps");
      const rotated = await client.rotateWebhookSecret({ endpointId: request.endpointId }, options);
      return { endpoint: rotated.endpoint, secret: rotated.secret };
    },

    async sendAppTestWebhook(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "manage_apps");
      return { eventId: (await client.sendTestWebhook({ endpointId: request.endpointId }, options)).eventId };
    },

    async listAppWebhookDeliveries(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "read");
      const listed = await client.listWebhookDeliveries(
        { endpointId: request.endpointId, limit: request.limit, cursor: request.cursor },
        options,
      );
      return { deliveries: listed.deliveries, nextCursor: listed.nextCursor };
    },

    async resendAppWebhookDelivery(request, ctx) {
      const { client, options } = await actingFor(request, ctx, "manage_apps");
      const resent = await client.resendWebhookDelivery(
        { endpointId: request.endpointId, deliveryId: request.deliveryId },
        options,
      );
      return { delivery: resent.delivery };
    },
  };
}
