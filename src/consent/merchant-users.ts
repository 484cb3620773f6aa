// Sign-in of merchant users for the consent site: the CredentialService checks email and password (scrypt; unknown
// email and wrong password answer alike) and this module turns its answer into the session's fields.
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { inProcessContext } from "../runtime/in-process-context.js";
import { CredentialService, MerchantRole, VerifyMerchantUserRequestSchema } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { readServiceError } from "../errors/index.js";

export interface MerchantUser {
  userId: number;
  companyId: number;
  role: "OWNER" | "EMPLOYEE";
  email: string;
}

/** Resolves with the user, or undefined when email and password do not match a user. */
export type VerifyMerchantUser = (email: string, password: string) => Promise<MerchantUser | undefined>;

export function merchantUserVerifier(credentials: ServiceImpl<typeof CredentialService>): VerifyMerchantUser {
  const method = CredentialService.method.verifyMerchantUser;
  return async (email, password) => {
    const context = inProcessContext(CredentialService, method);
    try {
      const { user } = await credentials.verifyMerchantUser(create(VerifyMerchantUserRequestSchema, { email, password }), context);
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
