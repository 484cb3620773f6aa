// CredentialService, the merchant directory and its back-office users: create, read and set the status of a
// merchant; add a user (password generated, shown once). A user's sign-in is checked in ./verification.ts.
import type { ServiceImpl } from "@connectrpc/connect";
import { MerchantRole, type CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { hashPassword } from "./passwords.js";
import { newPassword } from "./secrets.js";
import { createMerchantQueries, type MerchantUserRow } from "./queries/merchant-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { isRegion } from "../config/regions.js";
import { describeMerchant, fail, invalid, sandboxMerchantLimit, type CredentialContext } from "./credential-context.js";

const roles: Record<MerchantUserRow["role"], MerchantRole> = {
  OWNER: MerchantRole.OWNER,
  EMPLOYEE: MerchantRole.EMPLOYEE,
};

const roleName = (role: MerchantRole): MerchantUserRow["role"] | undefined =>
  role === MerchantRole.OWNER ? "OWNER" : role === MerchantRole.EMPLOYEE ? "EMPLOYEE" : undefined;

/** A plausible email: something@something.tld, no spaces; the sign-in flow checks the rest. */
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createMerchantHandlers(
  credential: CredentialContext,
): Pick<
  ServiceImpl<typeof CredentialService>,
  "createMerchant" | "getMerchant" | "updateMerchantStatus" | "createMerchantUser"
> {
  const { sql, ids, now, config } = credential;
  return {
    async createMerchant(request) {
      const name = request.name.trim();
      if (!name || !isRegion(request.region))
        throw invalid([!name && "name", !isRegion(request.region) && "region"].filter(Boolean).join(", "));
      const row = await createMerchantQueries(sql)
        .insert({ companyId: Number(request.companyId) || undefined, name, region: request.region, demo: false }, now())
        .catch((error: { constraint_name?: string }) => {
          throw error.constraint_name === "merchants__company_id__pkey"
            ? invalid("company_id (already exists)")
            : error;
        });
      return { merchant: describeMerchant(row) };
    },

    async getMerchant(request) {
      const row = await createMerchantQueries(sql).find(Number(request.companyId));
      if (!row) throw fail("developer.merchant_not_found");
      return { merchant: describeMerchant(row) };
    },

    async updateMerchantStatus(request) {
      const row = await sql.begin(async (tx) => {
        const merchants = createMerchantQueries(tx);
        const current = await merchants.find(Number(request.companyId));
        if (!current) throw fail("developer.merchant_not_found");
        // Reactivating a sandbox merchant counts against the organization's limit like provisioning does.
        if (request.active && !current.active && current.sandbox_organization_id !== null) {
          await createOrganizationQueries(tx).lock(current.sandbox_organization_id);
          if ((await merchants.countActiveSandbox(current.sandbox_organization_id)) >= sandboxMerchantLimit) {
            throw fail("developer.sandbox_limit");
          }
        }
        return merchants.updateStatus(Number(request.companyId), {
          active: request.active,
          provisioned: request.provisioned,
        });
      });
      return { merchant: describeMerchant(row!) };
    },

    async createMerchantUser(request) {
      const email = request.email.trim().toLowerCase();
      const role = roleName(request.role);
      if (!emailPattern.test(email) || !role)
        throw invalid([!emailPattern.test(email) && "email", !role && "role"].filter(Boolean).join(", "));
      const password = newPassword(ids);
      const passwordHash = await hashPassword(password, config.passwordHashCost);
      const user = await sql.begin(async (tx) => {
        const merchant = await createMerchantQueries(tx).find(Number(request.companyId));
        if (!merchant) throw fail("developer.merchant_not_found");
        return createMerchantQueries(tx)
          .insertUser({ companyId: merchant.company_id, email, passwordHash, role }, now())
          .catch((error: { constraint_name?: string }) => {
            throw error.constraint_name === "merchant_users__email__key"
              ? fail("developer.merchant_user_invalid")
              : error;
          });
      });
      return {
        user: { userId: String(user.id), companyId: BigInt(user.company_id), email, role: roles[role], password },
      };
    },
  };
}
