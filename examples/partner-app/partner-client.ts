// The one place the example imports the partner client from. Today: the repository's source through tsx. When the
// client is installed as the package (npm install @partner-api/client), this line becomes `from "@partner-api/client"`
// and nothing else changes.
export {
  AuthorizationCallbackError,
  createMemoryTokenStore,
  createPartnerClient,
  PartnerApiError,
  webhooks,
  WebhookVerificationError,
} from "../../src/client/index.js";
export type {
  Item,
  MerchantClient,
  PartnerClient,
  PendingAuthorization,
  Store,
  TokenStore,
  WebhookEvent,
} from "../../src/client/index.js";
