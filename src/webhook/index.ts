// The webhook owner's public surface: endpoints (WebhookService), delivery (relay, queue, attempts).
export {
  forbiddenWebhookPorts,
  relayIntervalMs,
  startWebhookDelivery,
  type WebhookDelivery,
} from "./delivery-runtime.js";
export {
  createWebhookService,
  webhookConsoleActorKey,
  type WebhookActor,
  type WebhookServiceDeps,
} from "./service.js";
export { systemResolver, type ResolveHost } from "./endpoint-url.js";
export type { EndpointDisabledNotice } from "./delivery-attempts.js";
