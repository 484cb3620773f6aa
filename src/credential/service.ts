// CredentialService: organizations, apps, client credentials, API keys, redirect URIs, IP allowlists and the
// merchant directory. Every rule of issue 4 is enforced here (never in a client); decisions the spec leaves open
// are in docs/decisions.md, "Credentials". One module per section of credential_service.proto, under handlers/.
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { createApiKeyHandlers } from "./handlers/api-keys.js";
import { createAppHandlers } from "./handlers/apps.js";
import { createClientCredentialHandlers } from "./handlers/client-credentials.js";
import { createCredentialContext, type CredentialServiceDeps } from "./handlers/context.js";
import { createMerchantHandlers } from "./handlers/merchants.js";
import { createOrganizationHandlers } from "./handlers/organizations.js";
import { createSandboxMerchantHandlers } from "./handlers/sandbox-merchants.js";
import { createVerificationHandlers } from "./handlers/verification.js";

export { apiKeyLimit } from "./handlers/api-keys.js";
export { sandboxMerchantLimit, type CredentialServiceDeps } from "./handlers/context.js";

/** Builds the CredentialService over the control database; every RPC comes from exactly one section. */
export function createCredentialService(context: ServiceContext, deps: CredentialServiceDeps): ServiceImpl<typeof CredentialService> {
  const credential = createCredentialContext(context, deps);
  return {
    ...createVerificationHandlers(credential),
    ...createOrganizationHandlers(credential),
    ...createAppHandlers(credential),
    ...createClientCredentialHandlers(credential),
    ...createApiKeyHandlers(credential),
    ...createMerchantHandlers(credential),
    ...createSandboxMerchantHandlers(credential),
  };
}
