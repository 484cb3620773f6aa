// CredentialService: organizations, apps, client credentials, API keys and the merchant directory.
import type { ServiceImpl } from "@connectrpc/connect";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { ServiceContext } from "./dependencies.js";
import { notBuilt } from "./not-built.js";

export function createCredentialService(_context: ServiceContext): ServiceImpl<typeof CredentialService> {
  return {
    verifyClientCredentials: notBuilt(CredentialService, "VerifyClientCredentials"),
    verifyApiKey: notBuilt(CredentialService, "VerifyApiKey"),
  };
}
