// Sign-in of merchant users for the consent site: the CredentialService checks email and password (scrypt; unknown
// email and wrong password answer alike) and this module turns its answer into the session's fields.
import type { ServiceImpl } from "@connectrpc/connect";
import { CredentialService, MerchantRole } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { readServiceError } from "../errors/index.js";
import { createInProcessClient } from "../runtime/service-caller.js";

export interface MerchantUser {
  userId: number;
  companyId: number;
  role: "OWNER" | "EMPLOYEE";
  email: string;
}

/** Resolves with the user, or undefined when email and password do not match a user. */
export type VerifyMerchantUser = (email: string, password: string) => Promise<MerchantUser | undefined>;

export function merchantUserVerifier(credentials: ServiceImpl<typeof CredentialService>): VerifyMerchantUser {
  const client = createInProcessClient(CredentialService, credentials);
  return async (email, password) => {
    try {
      const { user } = await client.verifyMerchantUser({ email, password });
      return {
        userId: Number(user!.userId),
        companyId: Number(user!.companyId),
        role: user!.role === MerchantRole.OWNER ? "OWNER" : "EMPLOYEE",
        email: user!.email!,
      };
    } catch (error) {
      if (readServiceError(error).code === "developer.merchant_user_invalid") return undefined;
      throw error;
    }
  };
}
