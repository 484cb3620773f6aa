// CredentialService, API keys: the RPCs over ./api-keys.ts (protobuf in and out here only).
import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ApiKeySchema, CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum, requestedEnvironment } from "./products.js";
import type { ApiKeys, NewApiKey } from "./api-keys.js";
import { fail, parseApiKeyId } from "./credential-context.js";

/** A key just made, as the CredentialService and the ConsoleService answer it (the key shown once). */
export function describeNewApiKey(made: NewApiKey): MessageInitShape<typeof ApiKeySchema> {
  return {
    apiKeyId: String(made.apiKeyId),
    name: made.name,
    environment: environmentEnum(made.environment),
    apiKey: made.apiKey,
    revoked: false,
    allowedIps: [],
  };
}

export function createApiKeyHandlers(
  keys: ApiKeys,
): Pick<ServiceImpl<typeof CredentialService>, "createApiKey" | "revokeApiKey"> {
  return {
    async createApiKey(request) {
      const made = await keys.createApiKey(request.appId, {
        name: request.name,
        environment: requestedEnvironment(request.environment),
      });
      return { apiKey: describeNewApiKey(made) };
    },

    async revokeApiKey(request) {
      const id = parseApiKeyId(request.apiKeyId);
      if (id === undefined) throw fail("developer.api_key_not_found");
      await keys.revokeApiKey(id);
      return { revoked: true };
    },
  };
}
