// The credential owner's sandbox merchants: an organization's demo merchants (at most sandboxMerchantLimit active),
// each with an owner login shown once, granted to the organization's apps and, when the region is reachable, seeded
// as richly as the demo's live merchants (src/data/sandbox-data.ts).
import { regionForCountry } from "./countries.js";
import { hashPassword } from "./passwords.js";
import { newPassword } from "./secrets.js";
import { createMerchantQueries } from "./queries/merchant-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { seedSandboxMerchant } from "../data/index.js";
import type { Merchant } from "./merchant-directory.js";
import type { NewMerchantLogin } from "./merchants.js";
import { fail, sandboxMerchantLimit, type CredentialContext } from "./credential-context.js";

export interface SandboxMerchants {
  /** A new sandbox merchant of the organization and its owner's login; `name` blank picks one. */
  provisionSandboxMerchant(
    organizationId: number,
    request: { country: string; name: string },
  ): Promise<{ merchant: Merchant; owner: NewMerchantLogin }>;
  /** Every sandbox merchant of the organization (active or not), by company id. */
  listSandboxMerchants(organizationId: number): Promise<Merchant[]>;
}

export function createSandboxMerchants(credential: CredentialContext): SandboxMerchants {
  const { sql, ids, config, logger, now, regionSql, sandboxGrants } = credential;
  return {
    async provisionSandboxMerchant(organizationId, request) {
      const placed = regionForCountry(request.country, config.sandboxDefaultRegion);
      if (!placed) throw fail("developer.sandbox_country_unknown");
      // The scrypt hash is made before the transaction, so the organization's lock is held for milliseconds.
      const password = newPassword(ids);
      const passwordHash = await hashPassword(password, config.passwordHashCost);
      const { merchant, owner } = await sql.begin(async (tx) => {
        // The organization's row lock serialises provisioning: ten parallel calls leave exactly three active.
        const organization = await createOrganizationQueries(tx).lock(organizationId);
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
        await seedSandboxMerchant(regional, merchant.region, merchant.company_id, {
          now: now(),
          decisionSeconds: config.onlineOrders.decisionSeconds,
        });
        described =
          (await createMerchantQueries(sql).updateStatus(merchant.company_id, { provisioned: true })) ?? merchant;
      }
      logger.info("sandbox merchant provisioned", {
        companyId: merchant.company_id,
        organizationId,
        region: merchant.region,
      });
      return {
        merchant: described,
        owner: { userId: owner.id, companyId: owner.company_id, role: "OWNER", email: owner.email, password },
      };
    },

    listSandboxMerchants(organizationId) {
      return createMerchantQueries(sql).listSandbox(organizationId);
    },
  };
}
