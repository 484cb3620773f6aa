// ConsoleService, organization invitations: mailed as single-use links redeemed by the invited email's account
// (counted per organization, per invited email and per source address: src/console/limits.ts), listed while
// pending, resent (a new link replaces the old one) or revoked. The mail is written in the invitee's language
// (docs/decisions.md, "Console").
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { linkTokenPattern, sha256, type ConsoleContext, type ConsoleServiceDeps } from "./console-context.js";
import { addressKeyOf } from "./limits.js";
import type { Locale } from "../errors/index.js";
import { createOrganizationMemberQueries, type InvitationRow } from "./queries/organization-member-queries.js";
import { findOrganization } from "../credential/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import { roleNames, roleOf } from "./org-roles.js";

export function createOrganizationInvitationHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<
    ConsoleContext,
    | "authenticate"
    | "checkEmail"
    | "clock"
    | "config"
    | "fail"
    | "invalid"
    | "later"
    | "limits"
    | "logger"
    | "normaliseEmail"
    | "now"
    | "requestLocale"
    | "requireRole"
    | "sql"
  > & { deps: Pick<ConsoleServiceDeps, "mail"> },
): Pick<
  ServiceImpl<typeof ConsoleService>,
  | "createOrganizationInvitation"
  | "listOrganizationInvitations"
  | "resendOrganizationInvitation"
  | "revokeOrganizationInvitation"
  | "previewOrganizationInvitation"
  | "acceptOrganizationInvitation"
> {
  const {
    clock,
    config,
    logger,
    deps,
    sql,
    fail,
    invalid,
    now,
    later,
    requestLocale,
    normaliseEmail,
    checkEmail,
    authenticate,
    requireRole,
    limits,
  } = shared;

  const isOpen = (row: InvitationRow) => !row.accepted_at && !row.revoked_at && row.superseded_by === null;

  /** Refuses an invitation link that no longer works, saying why: used, revoked, sent again, or expired. */
  function refuseEnded(row: InvitationRow) {
    if (row.accepted_at) throw fail("developer.invite_invalid");
    if (row.revoked_at) throw fail("developer.invite_revoked");
    if (row.superseded_by !== null) throw fail("developer.invite_superseded");
    if (row.expires_at.getTime() <= clock.now()) throw fail("developer.invite_expired");
  }

  /**
   * The invitation of a link, when `account` may accept it now; else the refusal that says why not (the link's
   * shape, unknown, ended, another email, already a member).
   */
  async function redeemable(token: string, account: { id: number; email: string }) {
    if (!linkTokenPattern.test(token)) throw fail("developer.invite_invalid");
    const members = createOrganizationMemberQueries(sql);
    const hash = sha256(token);
    const invitation = await members.findInvitation(hash);
    if (!invitation) throw fail("developer.invite_invalid");
    refuseEnded(invitation);
    if (invitation.email !== account.email) throw fail("developer.invite_email_mismatch");
    if (await members.findMember(invitation.organization_id, account.id)) {
      // A parallel redemption of this same link may have added the member since the read above: the link is then
      // used, and says so, as it would have to a redemption that came a moment later.
      const latest = await members.findInvitation(hash);
      if (latest) refuseEnded(latest);
      throw fail("developer.already_org_member");
    }
    return { invitation, hash, members };
  }

  const describeInvitation = (row: InvitationRow, invitedByEmail: string) => ({
    invitationId: BigInt(row.id),
    organizationId: BigInt(row.organization_id),
    email: row.email,
    role: roleNames[row.role],
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    invitedByEmail,
  });

  /**
   * Queues the invitation's mail on `tx` (the invitation's own transaction), its link's token derived from the
   * job's id (`token`, from `invitationLink`). It is written when the job runs, in the invitee's language: the one
   * their account last used when they have one, else the inviter's (the page they invited from).
   */
  function mailInvitation(tx: SqlClient, email: string, jobId: string, inviter: string, inviterLocale: Locale) {
    return deps.mail.enqueue(tx, { kind: "organization invitation", to: email, inviter, inviterLocale }, jobId);
  }
  /** A new invitation's mail job and the token of the link it will carry (only its hash is stored). */
  function invitationLink() {
    const jobId = deps.mail.newJobId();
    return { jobId, token: deps.mail.linkToken(jobId) };
  }

  return {
    async createOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const email = normaliseEmail(request.email);
      checkEmail(email);
      const role = roleOf(request.role);
      if (!role || role === "OWNER") throw invalid("role", "must be ADMIN, DEVELOPER or VIEWER");
      await limits.invitation(organizationId, email, addressKeyOf(ctx));
      const { jobId, token } = invitationLink();
      // The invitation and its mail's job in one transaction.
      const invitation = await sql.begin(async (tx) => {
        const members = createOrganizationMemberQueries(tx);
        // One open invitation an address: a second would be a second link and mail (the list offers a resend).
        if (await members.pendingInvitationTo(organizationId, email, now())) throw fail("developer.invitation_pending");
        const row = await members.insertInvitation(
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
        await mailInvitation(tx, email, jobId, account.email, requestLocale(ctx));
        return row;
      });
      return { invitation: describeInvitation(invitation, account.email) };
    },

    async listOrganizationInvitations(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "read");
      const rows = await createOrganizationMemberQueries(sql).listPendingInvitations(organizationId);
      return { invitations: rows.map((row) => describeInvitation(row, row.invited_by_email)) };
    },

    async resendOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const current = await createOrganizationMemberQueries(sql).findInvitationById(
        organizationId,
        Number(request.invitationId),
      );
      if (!current) throw fail("developer.invitation_not_found");
      if (!isOpen(current)) throw fail("developer.invitation_not_pending");
      // A resend mails someone just as a new invitation does: the same ceilings count it.
      await limits.invitation(organizationId, current.email, addressKeyOf(ctx));
      const { jobId, token } = invitationLink();
      // The new invitation and the end of the old one in one transaction: of a resend racing an acceptance, a
      // revocation or another resend, either the old one is still open and ends here, or nothing is written.
      const invitation = await sql.begin(async (tx) => {
        const members = createOrganizationMemberQueries(tx);
        const row = await members.insertInvitation(
          {
            tokenHash: sha256(token),
            organizationId,
            email: current.email,
            role: current.role,
            invitedBy: account.id,
            expiresAt: later(config.lifetimes.invitation),
          },
          now(),
        );
        if (!(await members.supersedeInvitation(current.id, row.id))) throw fail("developer.invitation_not_pending");
        await mailInvitation(tx, current.email, jobId, account.email, requestLocale(ctx));
        return row;
      });
      logger.info("organization invitation resent", {
        organizationId,
        replaced: current.id,
        invitation: invitation.id,
      });
      return { invitation: describeInvitation(invitation, account.email) };
    },

    async revokeOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const members = createOrganizationMemberQueries(sql);
      const current = await members.findInvitationById(organizationId, Number(request.invitationId));
      if (!current) throw fail("developer.invitation_not_found");
      if (!(await members.revokeInvitation(current.id, now()))) throw fail("developer.invitation_not_pending");
      logger.info("organization invitation revoked", { organizationId, invitation: current.id });
      return {};
    },

    async previewOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const { invitation, members } = await redeemable(request.token, account);
      const [organization, inviter] = await Promise.all([
        findOrganization(sql, invitation.organization_id),
        members.inviterEmailOf(invitation.id),
      ]);
      return {
        invitation: describeInvitation(invitation, inviter ?? ""),
        organizationName: organization?.name ?? "",
      };
    },

    async acceptOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const { invitation, hash, members } = await redeemable(request.token, account);
      // One conditional write marks the invitation used and adds the member: of parallel redemptions, one wins.
      const redeemed = await members
        .redeem(invitation.id, account.id, now())
        .catch((error: { constraint_name?: string }) => {
          if (error.constraint_name === "organization_members__organization_id_account_id__pkey")
            throw fail("developer.already_org_member");
          throw error;
        });
      if (!redeemed) {
        // Revoked, resent or used in between: say which, as if it had happened before.
        const latest = await members.findInvitation(hash);
        if (latest) refuseEnded(latest);
        throw fail("developer.invite_invalid");
      }
      const organization = await findOrganization(sql, invitation.organization_id);
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
