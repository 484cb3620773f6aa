// ConsoleService, an app's webhooks: its endpoints in one environment, their deliveries, a test event, a resend and
// a new signing secret. No second implementation: each handler checks the caller's organization role for the app
// (any member reads; manage_apps changes), then calls the webhook owner's plain interface, the one the
// /v1/webhook-endpoints routes' WebhookService calls, with the app and environment as its actor in place of a
// client's credentials; the answers are the webhook owner's own descriptions. docs/decisions.md, "Events and
// webhooks (the webhook owner)".
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { requestedEnvironment } from "../credential/index.js";
import { describeDelivery, describeEndpoint, type WebhookActor, type WebhookEndpoints } from "../webhook/index.js";
import type { ConsoleContext, ConsoleServiceDeps } from "./console-context.js";
import type { OrgAction } from "./org-roles.js";

export function createWebhookHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "authenticate" | "config" | "fail" | "invalid" | "requireAppRole"> & {
    deps: Pick<ConsoleServiceDeps, "webhooks">;
  },
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

  /** The role check, then the webhook owner's endpoints and the actor they act for (this app and environment). */
  async function actingFor(
    request: { appId: string; environment: Parameters<typeof requestedEnvironment>[0] },
    ctx: HandlerContext,
    action: OrgAction,
  ): Promise<{ webhooks: WebhookEndpoints; actor: WebhookActor }> {
    const { account } = await authenticate(ctx);
    await requireAppRole(account.id, request.appId, action);
    const environment = requestedEnvironment(request.environment);
    if (!environment) throw invalid("environment", "must be SANDBOX or PRODUCTION");
    if (!deps.webhooks) throw fail("server.unimplemented");
    return { webhooks: deps.webhooks, actor: { appId: request.appId, environment } };
  }

  return {
    async listAppWebhookEndpoints(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "read");
      const endpoints = await webhooks.listEndpoints(actor);
      return { endpoints: endpoints.map(describeEndpoint), limit: config.webhooks.endpointLimit };
    },

    async createAppWebhookEndpoint(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "manage_apps");
      const created = await webhooks.createEndpoint(actor, {
        url: request.url,
        events: request.events,
        description: request.description,
      });
      return { endpoint: describeEndpoint(created.endpoint), secret: created.secret };
    },

    async deleteAppWebhookEndpoint(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "manage_apps");
      await webhooks.deleteEndpoint(actor, request.endpointId);
      return { deleted: true };
    },

    async enableAppWebhookEndpoint(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "manage_apps");
      const updated = await webhooks.updateEndpoint(actor, request.endpointId, { events: [], enabled: true });
      return { endpoint: describeEndpoint(updated) };
    },

    async rotateAppWebhookSecret(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "manage_apps");
      const rotated = await webhooks.rotateSecret(actor, request.endpointId);
      return { endpoint: describeEndpoint(rotated.endpoint), secret: rotated.secret };
    },

    async sendAppTestWebhook(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "manage_apps");
      return { eventId: await webhooks.sendTestWebhook(actor, request.endpointId) };
    },

    async listAppWebhookDeliveries(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "read");
      const page = await webhooks.listDeliveries(actor, request.endpointId, {
        limit: request.limit,
        cursor: request.cursor,
      });
      return { deliveries: page.deliveries.map(describeDelivery), nextCursor: page.nextCursor };
    },

    async resendAppWebhookDelivery(request, ctx) {
      const { webhooks, actor } = await actingFor(request, ctx, "manage_apps");
      const resent = await webhooks.resendDelivery(actor, request.endpointId, request.deliveryId);
      return { delivery: describeDelivery(resent) };
    },
  };
}
