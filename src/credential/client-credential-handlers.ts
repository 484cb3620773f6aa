// CredentialService, client credentials: the RPCs over ./client-credentials.ts (protobuf in and out here only).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type {
  ClientCredentialSchema,
  CredentialService,
  RotateClientSecretResponseSchema,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum } from "./products.js";
import type { NewClient } from "./apps.js";
import type { ClientCredentials, RotatedSecret } from "./client-credentials.js";

/** Who a secret handed out through the CredentialService went to, as the console shows it (staff tools call it). */
const serviceCaller = "CredentialService";

/** A rotation's new secret (shown once) and when the previous one stops working (0: there was none). */
export function describeRotatedSecret(
  rotated: RotatedSecret,
): Omit<MessageInitShape<typeof RotateClientSecretResponseSchema>, "$typeName"> {
  return {
    clientId: rotated.clientId,
    clientSecret: rotated.clientSecret,
    previousSecretExpiresAtMs: BigInt(rotated.previousSecretExpiresAt?.getTime() ?? 0),
  };
}

/** The production client id revealed with its secret (shown once) and its allowlist. */
export function describeProductionClient(
  production: NewClient & { allowedIps: string[] },
): MessageInitShape<typeof ClientCredentialSchema> {
  return {
    clientId: production.clientId,
    environment: environmentEnum(production.environment),
    clientSecret: production.clientSecret,
    allowedIps: production.allowedIps,
  };
}

export function createClientCredentialHandlers(
  clients: ClientCredentials,
): Pick<
  ServiceImpl<typeof CredentialService>,
  "rotateClientSecret" | "revealProductionSecret" | "revokeClientCredential" | "setIpAllowlist"
> {
  return {
    async rotateClientSecret(request) {
      return describeRotatedSecret(await clients.rotateClientSecret(request.clientId, serviceCaller));
    },
    async revealProductionSecret(request) {
      return {
        production: describeProductionClient(await clients.revealProductionSecret(request.appId, serviceCaller)),
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
