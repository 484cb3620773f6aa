// CredentialService, API keys: the RPCs over ./api-keys.ts (protobuf in and out here only).
import type { ServiceImpl } from "@connectrpc/connect";
import { Environment, type CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum, type CredentialEnvironment } from "./products.js";
import type { ApiKeys } from "./api-keys.js";
import { fail, parseApiKeyId } from "./credential-context.js";

/** The environment a request names; UNSPECIFIED is a bad request here, not a default. */
const requestedEnvironment = (environment: Environment): CredentialEnvironment | undefined =>
  environment === Environment.SANDBOX ? "SANDBOX" : environment === Environment.PRODUCTION ? "PRODUCTION" : undefined;

export function createApiKeyHandlers(
  keys: ApiKeys,
): Pick<ServiceImpl<typeof CredentialService>, "createApiKey" | "revokeApiKey"> {
  return {
    async createApiKey(request) {
      const made = await keys.createApiKey(request.appId, {
        name: request.name,
        environment: requestedEnvironment(request.environment),
      });
      return {
        apiKey: {
          apiKeyId: String(made.apiKeyId),
          name: made.name,
          environment: environmentEnum(made.environment),
          apiKey: made.apiKey,
          revoked: false,
          allowedIps: [],
        },
      };
    },

    async revokeApiKey(request) {
      const id = parseApiKeyId(request.apiKeyId);
      if (id === undefined) throw fail("developer.api_key_not_found");
      await keys.revokeApiKey(id);
      return { revoked: true };
    },
  };
}
