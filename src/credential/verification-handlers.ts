// CredentialService, verification: the RPCs over the plain verifications (./verification.ts). Protobuf in and out
// here only: ids and enums are mapped once, for callers on the internal port.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  MerchantRole,
  type CredentialService,
  type VerifiedAppSchema,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum, productEnum } from "./products.js";
import type { Verification } from "./verification.js";
import type { VerifiedApp } from "./verified.js";

function describeVerifiedApp(app: VerifiedApp): MessageInitShape<typeof VerifiedAppSchema> {
  return {
    appId: app.appId,
    organizationId: BigInt(app.organizationId),
    product: productEnum(app.product),
    environment: environmentEnum(app.environment),
    appState: app.appState,
    allowedIps: app.allowedIps,
  };
}

export function createVerificationHandlers(
  verification: Verification,
): Pick<ServiceImpl<typeof CredentialService>, "verifyClientCredentials" | "verifyApiKey" | "verifyMerchantUser"> {
  return {
    async verifyClientCredentials(request) {
      const client = await verification.verifyClientCredentials(request.clientId, request.clientSecret);
      return { app: describeVerifiedApp(client), clientId: client.clientId };
    },
    async verifyApiKey(request) {
      const key = await verification.verifyApiKey(request.apiKey);
      return { app: describeVerifiedApp(key), apiKeyId: String(key.apiKeyId) };
    },
    async verifyMerchantUser(request) {
      const user = await verification.verifyMerchantUser(request.email, request.password);
      return {
        user: {
          userId: String(user.userId),
          companyId: BigInt(user.companyId),
          email: user.email,
          role: user.role === "OWNER" ? MerchantRole.OWNER : MerchantRole.EMPLOYEE,
        },
      };
    },
  };
}
