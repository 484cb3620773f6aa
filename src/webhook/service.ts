// The webhook owner's endpoints: an app's webhook endpoints and their deliveries (./endpoints.ts, plain values, for
// an actor: the app and a credential environment), and the WebhookService over them (./endpoint-handlers.ts), which
// authenticates a client by its own credentials. The console (src/console/webhooks.ts) calls the plain interface
// after checking the developer's organization role for the app; docs/decisions.md, "Events and webhooks (the webhook
// owner)".
import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import type { ServiceContext } from "../runtime/service-context.js";
import type { VerifyClient } from "../token/index.js";
import { createEndpointHandlers } from "./endpoint-handlers.js";
import { createWebhookEndpoints, type WebhookEndpoints, type WebhookEndpointsDeps } from "./endpoints.js";

export interface WebhookServiceDeps extends WebhookEndpointsDeps {
  /** Authenticates the client of a WebhookService call. */
  verifyClient: VerifyClient;
}

export type WebhookServiceImpl = ServiceImpl<typeof WebhookService>;

/** One webhook owner: its plain interface and the WebhookService over it. */
export interface WebhookOwner {
  endpoints: WebhookEndpoints;
  service: WebhookServiceImpl;
}

export function createWebhookOwner(context: ServiceContext, deps: WebhookServiceDeps): WebhookOwner {
  const endpoints = createWebhookEndpoints(context, deps);
  return { endpoints, service: createEndpointHandlers(endpoints, deps.verifyClient) };
}

/** The WebhookService alone. */
export function createWebhookService(context: ServiceContext, deps: WebhookServiceDeps): WebhookServiceImpl {
  return createWebhookOwner(context, deps).service;
}
