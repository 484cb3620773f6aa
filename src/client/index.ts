// The partner client, the package @partner-api/client: `import { createPartnerClient } from "@partner-api/client"`. Nothing server-side is
// imported from here (no database, Redis or connect-node); it needs only a global fetch and Web Crypto.

export { createPartnerClient } from "./partner-client.js";
export type { CompanyClient, Connection, MerchantClient, PartnerClient } from "./partner-client.js";
export type { BusinessRoutes, CallOptions } from "./business-routes.js";
export { createAuthorizationRequest, createPushedAuthorizationRequest, validateCallback } from "./authorization.js";
export type { DpopAlgorithm, DpopKeyPair, DpopOption } from "./dpop.js";
export type { AuthorizationCode, AuthorizeUrlInput, PendingAuthorization } from "./authorization.js";
export { AuthorizationCallbackError, PartnerApiError, ReconnectRequiredError } from "./errors.js";
export type { ClientErrorCode, ErrorCode, ErrorShape, ServerErrorCode } from "./errors.js";
export type { ClientClock, PartnerClientOptions, RetryEvent } from "./options.js";
export type { RateBudget } from "./rate-budget.js";
export { decideRetry, defaultRetryLimits } from "./retry-policy.js";
export type { AttemptOutcome, RetryDecision, RetryLimits, RetryState } from "./retry-policy.js";
export type { PushedAuthorization, TokenEndpoint, TokenResponse } from "./token-endpoint.js";
export { createMemoryTokenStore } from "./token-store.js";
export type { MerchantTokens, TokenStore } from "./token-store.js";
export type * from "./types.js";
export {
  catalogueResources,
  fulfilmentTypes,
  onlineOrderingStatuses,
  onlineOrderReasons,
  onlineOrderStatuses,
} from "./types.js";
export type { CatalogueChangesOptions } from "./catalogue-feed.js";
export {
  webhookAttemptOutcomes,
  webhookDeliveryStates,
  webhookEndpointStatuses,
  webhookEnvironments,
} from "./webhook-endpoints.js";
export type {
  WebhookAttempt,
  WebhookAttemptOutcome,
  WebhookDelivery,
  WebhookDeliveryState,
  WebhookEndpoint,
  WebhookEndpointStatus,
  WebhookEndpoints,
  WebhookEnvironment,
} from "./webhook-endpoints.js";
export {
  accessRequestEventStates,
  grantEventReasons,
  webhookEventTypes,
  webhooks,
  WebhookVerificationError,
} from "./webhooks.js";
export type {
  AccessRequestEventData,
  CategoryEventData,
  GrantEventData,
  ItemEventData,
  OnlineOrderEventData,
  StoreEventData,
  WebhookEvent,
  WebhookEventType,
  WebhookHeaders,
} from "./webhooks.js";
