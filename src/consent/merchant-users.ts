// Sign-in of merchant users for the consent site: the credential owner checks email and password (scrypt; unknown
// email and wrong password answer alike); this module turns its refusal into "no such user" for the sign-in form.
import type { Credentials, MerchantUser } from "../credential/index.js";
import { readServiceError } from "../errors/index.js";

export type { MerchantUser };

/** Resolves with the user, or undefined when email and password do not match a user. */
export type VerifyMerchantUser = (email: string, password: string) => Promise<MerchantUser | undefined>;

export function merchantUserVerifier(credentials: Pick<Credentials, "verifyMerchantUser">): VerifyMerchantUser {
  return async (email, password) => {
    try {
      return await credentials.verifyMerchantUser(email, password);
    } catch (error) {
      if (readServiceError(error).code === "developer.merchant_user_invalid") return undefined;
      throw error;
    }
  };
}
