// CredentialService, sandbox merchants: an organization's demo merchants (at most sandboxMerchantLimit active), each
// with an owner login shown once, granted to the organization's apps and, when the region is reachable, seeded as richly
// as the demo's live merchants (src/data/sandbox-data.ts).
import type { ServiceImpl } from "@connectrpc/connect";
import { MerchantRole, type CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { regionForCountry } from "./countries.js";
import { hashPassword } from "./passwords.js";
import { newPassword } from "./secrets.js";
import { createMerchantQueries } from "./queries/merchant-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { seedSandboxMerchant } from "../data/index.js";
import { describeMerchant, fail, sandboxMerchantLimit, type CredentialContext } from "./credential-context.js";

export function createSandboxMerchantHandlers(
  credential: CredentialContext,
): Pick<ServiceImpl<typeof CredentialService>, "provisionSandboxMerchant" | "listSandboxMerchants"> {
  const { sql, ids, config, logger, now, regionSql, sandboxGrants } = credential;
  return {
    async provisionSandboxMerchant(request) {
      const placed = regionForCountry(request.country, config.sandboxDefaultRegion);
      if (!placed) throw fail("developer.sandbox_country_unknown");
      // The scrypt hash is made before the transaction, so the organization's lock is held for milliseconds.
      const password = newPassword(ids);
      const passwordHash = await hashPassword(password, config.passwordHashCost);
      const { merchant, owner } = await sql.begin(async (tx) => {
        // The organization's row lock serialises provisioning: ten parallel calls leave exactly three active.
        const organization = await createOrganizationQueries(tx).lock(Number(request.organizationId));
        if (!organization) throw fail("developer.organization_not_found");
        const merchants = createMerchantQueries(tx);
        if ((await merchants.countActiveSandbox(organization.id)) >= sandboxMerchantLimit)
          throw fail("developer.sandbox_limit");
        const name = request.name.trim() || `${organization.name} sandbox ${placed.country} ${ids.randomToken(3)}`;
        const row = await merchants.insert(
          { name, region: placed.region, demo: true, sandboxOrganizationId: organization.id, country: placed.country },
          now(),
        );
        const email = `owner.${row.company_id}@sandbox.partner-api.test`;
        const user = await merchants.insertUser(
          { companyId: row.company_id, email, passwordHash, role: "OWNER" },
          now(),
        );
        await sandboxGrants.grantAppsToMerchant(tx, row.company_id, organization.id, now());
        return { merchant: row, owner: user };
      });
      let described = merchant;
      const regional = regionSql?.(merchant.region);
      if (regional) {
        await seedSandboxMerchant(regional, merchant.region, merchant.company_id, now());
        described =
          (await createMerchantQueries(sql).updateStatus(merchant.company_id, { provisioned: true })) ?? merchant;
      }
      logger.info("sandbox merchant provisioned", {
        companyId: merchant.company_id,
        organizationId: Number(request.organizationId),
        region: merchant.region,
      });
      return {
        merchant: describeMerchant(described),
        owner: {
          userId: String(owner.id),
          companyId: BigInt(owner.company_id),
          email: owner.email,
          role: MerchantRole.OWNER,
          password,
        },
      };
    },

    async listSandboxMerchants(request) {
      const rows = await createMerchantQueries(sql).listSandbox(Number(request.organizationId));
      return { merchants: rows.map(describeMerchant) };
    },
  };
}
