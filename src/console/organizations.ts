// ConsoleService, organizations: creating one (the caller is its owner), members and their roles, and invitations
// mailed as single-use links redeemed by the invited email's account (counted per organization, per invited email
// and per source address: src/console/limits.ts).
import type { ServiceImpl } from "@connectrpc/connect";
import { OrganizationRole, type ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { linkTokenPattern, sha256, type ConsoleContext } from "./console-context.js";
import { addressKeyOf } from "./limits.js";
import { createOrganizationMemberQueries, type OrgRole } from "./queries/organization-member-queries.js";
import { createOrganizationQueries } from "../credential/index.js";

const roleNames: Record<OrgRole, OrganizationRole> = {
  OWNER: OrganizationRole.OWNER,
  ADMIN: OrganizationRole.ADMIN,
  DEVELOPER: OrganizationRole.DEVELOPER,
  VIEWER: OrganizationRole.VIEWER,
};
const roleOf = (role: OrganizationRole): OrgRole | undefined =>
  (Object.entries(roleNames) as Array<[OrgRole, OrganizationRole]>).find(([, value]) => value === role)?.[0];

export function createOrganizationHandlers(
  shared: ConsoleContext,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  | "createDeveloperOrganization"
  | "listDeveloperOrganizations"
  | "listOrganizationMembers"
  | "updateOrganizationMember"
  | "removeOrganizationMember"
  | "createOrganizationInvitation"
  | "acceptOrganizationInvitation"
> {
  const {
    clock,
    ids,
    config,
    logger,
    deps,
    sql,
    fail,
    invalid,
    now,
    later,
    consoleUrl,
    normaliseEmail,
    checkEmail,
    authenticate,
    requireRole,
    limits,
  } = shared;
  return {
    async createDeveloperOrganization(request, ctx) {
      const { account } = await authenticate(ctx);
      const name = request.name.trim();
      if (!name) throw invalid("name", "is required");
      const organization = await sql.begin(async (tx) => {
        const row = await createOrganizationQueries(tx).insert(name, now());
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

    async createOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const email = normaliseEmail(request.email);
      checkEmail(email);
      const role = roleOf(request.role);
      if (!role || role === "OWNER") throw invalid("role", "must be ADMIN, DEVELOPER or VIEWER");
      await limits.invitation(organizationId, email, addressKeyOf(ctx));
      const token = ids.randomToken(32);
      const invitation = await createOrganizationMemberQueries(sql).insertInvitation(
        {
          tokenHash: sha256(token),
          organizationId,
          email,
          role,
          invitedBy: account.id,
          expiresAt: later(config.lifetimes.invitation),
        },
        now(),
      );
      deps.mail.enqueue("organization invitation", async () => ({
        to: email,
        subject: "You are invited to a developer organization",
        text: `${account.email} invited you to join their organization as ${role}.`,
        link: `${consoleUrl}/invitations/accept?token=${token}`,
      }));
      return {
        invitation: {
          invitationId: BigInt(invitation.id),
          organizationId: BigInt(organizationId),
          email,
          role: roleNames[role],
          expiresAt: invitation.expires_at.toISOString(),
        },
      };
    },

    async acceptOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      if (!linkTokenPattern.test(request.token)) throw fail("developer.invite_invalid");
      const members = createOrganizationMemberQueries(sql);
      const invitation = await members.findInvitation(sha256(request.token));
      if (!invitation || invitation.accepted_at) throw fail("developer.invite_invalid");
      if (invitation.expires_at.getTime() <= clock.now()) throw fail("developer.invite_expired");
      if (invitation.email !== account.email) throw fail("developer.invite_email_mismatch");
      if (await members.findMember(invitation.organization_id, account.id)) throw fail("developer.already_org_member");
      // One conditional write marks the invitation used and adds the member: of parallel redemptions, one wins.
      const redeemed = await members
        .redeem(invitation.id, account.id, now())
        .catch((error: { constraint_name?: string }) => {
          if (error.constraint_name === "organization_members__organization_id_account_id__pkey")
            throw fail("developer.already_org_member");
          throw error;
        });
      if (!redeemed) throw fail("developer.invite_invalid");
      const organization = await createOrganizationQueries(sql).find(invitation.organization_id);
      return {
        organization: {
          organizationId: BigInt(invitation.organization_id),
          name: organization?.name ?? "",
          role: roleNames[invitation.role],
        },
      };
    },
  };
}
