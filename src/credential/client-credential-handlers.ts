// CredentialService, client credentials: the RPCs over ./client-credentials.ts (protobuf in and out here only).
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum } from "./products.js";
import type { ClientCredentials } from "./client-credentials.js";

export function createClientCredentialHandlers(
  clients: ClientCredentials,
): Pick<
  ServiceImpl<typeof CredentialService>,
  "rotateClientSecret" | "revealProductionSecret" | "revokeClientCredential" | "setIpAllowlist"
> {
  return {
    async rotateClientSecret(request) {
      const rotated = await clients.rotateClientSecret(request.clientId);
      return {
        clientId: rotated.clientId,
        clientSecret: rotated.clientSecret,
        previousSecretExpiresAtMs: BigInt(rotated.previousSecretExpiresAt?.getTime() ?? 0),
      };
    },
    async revealProductionSecret(request) {
      const production = await clients.revealProductionSecret(request.appId);
      return {
        production: {
          clientId: production.clientId,
          environment: environmentEnum(production.environment),
          clientSecret: production.clientSecret,
          allowedIps: production.allowedIps,
        },
      };
    },
    async revokeClientCredential(request) {
      await clients.revokeClientCredential(request.clientId);
      return { revoked: true };
    },
    async setIpAllowlist(request) {
      const target = { clientId: request.clientId, apiKeyId: request.apiKeyId };
      return { allowedIps: await clients.setIpAllowlist(target, request.allowedIps) };
    },
  };
}
