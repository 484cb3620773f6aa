// CredentialService: organizations, apps, client credentials, API keys, redirect URIs, IP allowlists and the
// merchant directory. Every rule the spec gives them is enforced here (never in a client); decisions the spec leaves
// open are in docs/decisions.md, "Credentials". One module per section of credential_service.proto.
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { composeSections } from "../runtime/service-sections.js";
import { createApiKeyHandlers } from "./api-keys.js";
import { createAppHandlers } from "./apps.js";
import { createClientCredentialHandlers } from "./client-credentials.js";
import { createCredentialContext, type CredentialServiceDeps } from "./credential-context.js";
import { createMerchantHandlers } from "./merchants.js";
import { createOrganizationHandlers } from "./organizations.js";
import { createSandboxMerchantHandlers } from "./sandbox-merchants.js";
import { createVerificationHandlers } from "./verification.js";

export { apiKeyLimit } from "./api-keys.js";
export { sandboxMerchantLimit, type CredentialServiceDeps } from "./credential-context.js";

/** Builds the CredentialService over the control database; every RPC comes from exactly one section. */
export function createCredentialService(
  context: ServiceContext,
  deps: CredentialServiceDeps,
): ServiceImpl<typeof CredentialService> {
  const shared = createCredentialContext(context, deps);
  return composeSections(
    createVerificationHandlers(shared),
    createOrganizationHandlers(shared),
    createAppHandlers(shared),
    createClientCredentialHandlers(shared),
    createApiKeyHandlers(shared),
    createMerchantHandlers(shared),
    createSandboxMerchantHandlers(shared),
  );
}
