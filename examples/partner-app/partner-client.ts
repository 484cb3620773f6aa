// The one place the example imports the partner client from. Today: the repository's source through tsx. When the
// client ships as a built package, this line becomes `from "partner-api/client"` and nothing else changes.
export { AuthorizationCallbackError, createMemoryTokenStore, createPartnerClient, PartnerApiError } from "../../src/client/index.js";
export type { PartnerClient, PendingAuthorization, TokenStore } from "../../src/client/index.js";
