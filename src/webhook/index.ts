// The webhook owner's public surface: endpoints (their plain interface, and the WebhookService over it), delivery
// (relay, queue, attempts).
export {
  forbiddenWebhookPorts,
  relayIntervalMs,
  startWebhookDelivery,
  type WebhookDelivery,
} from "./delivery-runtime.js";
export { describeDelivery, describeEndpoint } from "./endpoint-handlers.js";
export type { Delivery, Endpoint, WebhookActor, WebhookEndpoints } from "./endpoints.js";
export {
  createWebhookOwner,
  createWebhookService,
  type WebhookOwner,
  type WebhookServiceDeps,
  type WebhookServiceImpl,
} from "./service.js";
export { systemResolver, type ResolveHost } from "./endpoint-url.js";
export { recentMerchantEvents, type EventResource, type MerchantEvent } from "./merchant-events.js";
export type { EndpointDisabledNotice } from "./delivery-attempts.js";
// The queue's pg-boss installation and adapter, shared with the console's mail queue (src/console/mail-queue.ts).
export { deliveryStopBoundMs, pgBossDatabase, queueSchema } from "./delivery-queue.js";
