// ConsoleService, organization members: listing them, changing a member's role and removing one; the owner is
// neither changed nor removed, and OWNER is never given (docs/decisions.md, "Console").
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { ConsoleContext } from "./console-context.js";
import { createOrganizationMemberQueries } from "./queries/organization-member-queries.js";
import { roleNames, roleOf } from "./org-roles.js";

export function createOrganizationMemberHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "authenticate" | "fail" | "invalid" | "requireRole" | "sql">,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  "listOrganizationMembers" | "updateOrganizationMember" | "removeOrganizationMember"
> {
  const { sql, fail, invalid, authenticate, requireRole } = shared;

  return {
    async listOrganizationMembers(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "read");
      const rows = await createOrganizationMemberQueries(sql).listMembers(organizationId);
      return {
        members: rows.map((row) => ({
          accountId: BigInt(row.account_id),
          email: row.email,
          role: roleNames[row.role],
          joinedAt: row.created_at.toISOString(),
        })),
      };
    },

    async updateOrganizationMember(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const role = roleOf(request.role);
      if (!role) throw invalid("role", "is required");
      const members = createOrganizationMemberQueries(sql);
      const target = await members.findMember(organizationId, Number(request.accountId));
      if (!target) throw fail("developer.member_not_found");
      if (target.role === "OWNER") throw fail("developer.owner_immutable");
      if (role === "OWNER") throw invalid("role", "OWNER cannot be given; an organization has one owner");
      await members.setRole(organizationId, target.account_id, role);
      return {
        member: {
          accountId: BigInt(target.account_id),
          email: target.email,
          role: roleNames[role],
          joinedAt: target.created_at.toISOString(),
        },
      };
    },

    async removeOrganizationMember(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const members = createOrganizationMemberQueries(sql);
      const target = await members.findMember(organizationId, Number(request.accountId));
      if (!target) throw fail("developer.member_not_found");
      if (target.role === "OWNER") throw fail("developer.owner_immutable");
      await members.removeMember(organizationId, target.account_id);
      return {};
    },
  };
}
