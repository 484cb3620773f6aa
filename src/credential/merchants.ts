// The credential owner's merchant directory and its back-office users: create, read and set the status of a
// merchant; add a user (password generated, shown once). A user's sign-in is checked in ./verification.ts.
import { hashPassword } from "./passwords.js";
import { newPassword } from "./secrets.js";
import { createMerchantQueries } from "./queries/merchant-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { isRegion } from "../config/regions.js";
import type { Merchant, MerchantUser } from "./merchant-directory.js";
import { fail, invalid, sandboxMerchantLimit, type CredentialContext } from "./credential-context.js";

/** A merchant user just made: its password is shown once, here, and stored only as a hash. */
export interface NewMerchantLogin extends MerchantUser {
  password: string;
}

export interface MerchantAdmin {
  /** A live merchant; `companyId` undefined lets the directory choose. developer.invalid_request on a bad field. */
  createMerchant(merchant: { companyId?: number; name: string; region: string }): Promise<Merchant>;
  /** developer.merchant_not_found when the company is not in the directory. */
  getMerchant(companyId: number): Promise<Merchant>;
  /** Sets what is given; reactivating a sandbox merchant counts against its organization's limit. */
  updateMerchantStatus(companyId: number, status: { active?: boolean; provisioned?: boolean }): Promise<Merchant>;
  /** `role` undefined is a bad request; a taken email is developer.merchant_user_invalid. */
  createMerchantUser(
    companyId: number,
    user: { email: string; role: MerchantUser["role"] | undefined },
  ): Promise<NewMerchantLogin>;
}

/** A plausible email: something@something.tld, no spaces; the sign-in flow checks the rest. */
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createMerchantAdmin(credential: CredentialContext): MerchantAdmin {
  const { sql, ids, now, config } = credential;
  return {
    async createMerchant(request) {
      const name = request.name.trim();
      if (!name || !isRegion(request.region))
        throw invalid([!name && "name", !isRegion(request.region) && "region"].filter(Boolean).join(", "));
      return createMerchantQueries(sql)
        .insert({ companyId: request.companyId, name, region: request.region, demo: false }, now())
        .catch((error: { constraint_name?: string }) => {
          throw error.constraint_name === "merchants__company_id__pkey"
            ? invalid("company_id (already exists)")
            : error;
        });
    },

    async getMerchant(companyId) {
      const row = await createMerchantQueries(sql).find(companyId);
      if (!row) throw fail("developer.merchant_not_found");
      return row;
    },

    async updateMerchantStatus(companyId, status) {
      const row = await sql.begin(async (tx) => {
        const merchants = createMerchantQueries(tx);
        const current = await merchants.find(companyId);
        if (!current) throw fail("developer.merchant_not_found");
        // Reactivating a sandbox merchant counts against the organization's limit like provisioning does.
        if (status.active && !current.active && current.sandbox_organization_id !== null) {
          await createOrganizationQueries(tx).lock(current.sandbox_organization_id);
          if ((await merchants.countActiveSandbox(current.sandbox_organization_id)) >= sandboxMerchantLimit) {
            throw fail("developer.sandbox_limit");
          }
        }
        return merchants.updateStatus(companyId, { active: status.active, provisioned: status.provisioned });
      });
      return row!;
    },

    async createMerchantUser(companyId, request) {
      const email = request.email.trim().toLowerCase();
      const role = request.role;
      if (!emailPattern.test(email) || !role)
        throw invalid([!emailPattern.test(email) && "email", !role && "role"].filter(Boolean).join(", "));
      const password = newPassword(ids);
      const passwordHash = await hashPassword(password, config.passwordHashCost);
      const user = await sql.begin(async (tx) => {
        const merchant = await createMerchantQueries(tx).find(companyId);
        if (!merchant) throw fail("developer.merchant_not_found");
        return createMerchantQueries(tx)
          .insertUser({ companyId: merchant.company_id, email, passwordHash, role }, now())
          .catch((error: { constraint_name?: string }) => {
            throw error.constraint_name === "merchant_users__email__key"
              ? fail("developer.merchant_user_invalid")
              : error;
          });
      });
      return { userId: user.id, companyId: user.company_id, role, email, password };
    },
  };
}
