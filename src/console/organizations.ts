// ConsoleService, organizations: creating one (the caller is its owner) and listing the caller's; its members
// (./organization-members.ts) and invitations (./organization-invitations.ts) are sections of their own.
import type { ServiceImpl } from "@connectrpc/connect";
import { OrganizationRole, type ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { ConsoleContext } from "./console-context.js";
import { createOrganizationMemberQueries } from "./queries/organization-member-queries.js";
import { insertOrganization } from "../credential/index.js";
import { roleNames } from "./org-roles.js";

export function createOrganizationHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "authenticate" | "invalid" | "logger" | "now" | "sql">,
): Pick<ServiceImpl<typeof ConsoleService>, "createDeveloperOrganization" | "listDeveloperOrganizations"> {
  const { logger, sql, invalid, now, authenticate } = shared;

  return {
    async createDeveloperOrganization(request, ctx) {
      const { account } = await authenticate(ctx);
      const name = request.name.trim();
      if (!name) throw invalid("name", "is required");
      const organization = await sql.begin(async (tx) => {
        const row = await insertOrganization(tx, name, now());
        await createOrganizationMemberQueries(tx).insertMember(row.id, account.id, "OWNER", now());
        return row;
      });
      logger.info("organization created", { organizationId: organization.id, accountId: account.id });
      return {
        organization: {
          organizationId: BigInt(organization.id),
          name: organization.name,
          role: OrganizationRole.OWNER,
        },
      };
    },

    async listDeveloperOrganizations(_request, ctx) {
      const { account } = await authenticate(ctx);
      const rows = await createOrganizationMemberQueries(sql).organizationsOf(account.id);
      return {
        organizations: rows.map((row) => ({
          organizationId: BigInt(row.id),
          name: row.name,
          role: roleNames[row.role],
        })),
      };
    },
  };
}
