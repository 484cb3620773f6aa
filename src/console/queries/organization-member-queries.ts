// Queries of control.organization_members and organization_invitations (the console's organizations).
import type { SqlClient } from "../../storage/sql-client.js";

export type OrgRole = "OWNER" | "ADMIN" | "DEVELOPER" | "VIEWER";

export interface MemberRow {
  organization_id: number;
  account_id: number;
  email: string;
  role: OrgRole;
  created_at: Date;
}

export interface InvitationRow {
  id: number;
  organization_id: number;
  email: string;
  role: Exclude<OrgRole, "OWNER">;
  expires_at: Date;
  accepted_at: Date | null;
  /** Revoked by a member: its link stops working. */
  revoked_at: Date | null;
  /** Resent: the newer invitation that replaced it (its link stops working). */
  superseded_by: number | null;
  created_at: Date;
}

/** A pending invitation as the organization page lists it: who invited (by email), when it was sent and ends. */
export interface PendingInvitationRow extends InvitationRow {
  invited_by_email: string;
}

const invitationColumns =
  "id, organization_id, email, role, expires_at, accepted_at, revoked_at, superseded_by, created_at";
/** Neither accepted, revoked nor resent (it may have expired: it can still be resent or revoked). */
const open = "accepted_at is null and revoked_at is null and superseded_by is null";

export function createOrganizationMemberQueries(sql: SqlClient) {
  return {
    async insertMember(organizationId: number, accountId: number, role: OrgRole, now: Date): Promise<void> {
      await sql`
        insert into control.organization_members (organization_id, account_id, role, created_at)
        values (${organizationId}, ${accountId}, ${role}, ${now})`;
    },
    async findMember(organizationId: number, accountId: number): Promise<MemberRow | undefined> {
      const [row] = await sql<MemberRow[]>`
        select m.organization_id, m.account_id, a.email, m.role, m.created_at
        from control.organization_members m join control.developer_accounts a on a.id = m.account_id
        where m.organization_id = ${organizationId} and m.account_id = ${accountId}`;
      return row;
    },
    async listMembers(organizationId: number): Promise<MemberRow[]> {
      return sql<MemberRow[]>`
        select m.organization_id, m.account_id, a.email, m.role, m.created_at
        from control.organization_members m join control.developer_accounts a on a.id = m.account_id
        where m.organization_id = ${organizationId} order by m.created_at, m.account_id`;
    },
    async organizationsOf(accountId: number): Promise<Array<{ id: number; name: string; role: OrgRole }>> {
      return sql<Array<{ id: number; name: string; role: OrgRole }>>`
        select o.id, o.name, m.role from control.organization_members m join control.organizations o on o.id = m.organization_id
        where m.account_id = ${accountId} order by o.id`;
    },
    async setRole(organizationId: number, accountId: number, role: OrgRole): Promise<void> {
      await sql`update control.organization_members set role = ${role} where organization_id = ${organizationId} and account_id = ${accountId}`;
    },
    async removeMember(organizationId: number, accountId: number): Promise<void> {
      await sql`delete from control.organization_members where organization_id = ${organizationId} and account_id = ${accountId}`;
    },

    async insertInvitation(
      input: {
        tokenHash: string;
        organizationId: number;
        email: string;
        role: Exclude<OrgRole, "OWNER">;
        invitedBy: number;
        expiresAt: Date;
      },
      now: Date,
    ): Promise<InvitationRow> {
      const [row] = await sql<InvitationRow[]>`
        insert into control.organization_invitations (token_hash, organization_id, email, role, invited_by, expires_at, created_at)
        values (${input.tokenHash}, ${input.organizationId}, ${input.email}, ${input.role}, ${input.invitedBy}, ${input.expiresAt}, ${now})
        returning ${sql.unsafe(invitationColumns)}`;
      return row!;
    },
    async findInvitation(tokenHash: string): Promise<InvitationRow | undefined> {
      const [row] = await sql<InvitationRow[]>`
        select ${sql.unsafe(invitationColumns)} from control.organization_invitations where token_hash = ${tokenHash}`;
      return row;
    },
    /** The email of the account that sent invitation `id`. */
    async inviterEmailOf(id: number): Promise<string | undefined> {
      const [row] = await sql<Array<{ email: string }>>`
        select a.email from control.organization_invitations i join control.developer_accounts a on a.id = i.invited_by
        where i.id = ${id}`;
      return row?.email;
    },
    async findInvitationById(organizationId: number, id: number): Promise<InvitationRow | undefined> {
      const [row] = await sql<InvitationRow[]>`
        select ${sql.unsafe(invitationColumns)} from control.organization_invitations
        where id = ${id} and organization_id = ${organizationId}`;
      return row;
    },
    /** The organization's open invitations, newest first (expired ones included: they can be resent or revoked). */
    /**
     * Whether `email` has an open, unexpired invitation to the organization, once this transaction holds the
     * (organization, email) lock: two invitations to one address racing each other are serialised here.
     */
    async pendingInvitationTo(organizationId: number, email: string, now: Date): Promise<boolean> {
      await sql`select pg_advisory_xact_lock(hashtext(${`invitation:${organizationId}:${email}`}))`;
      const rows = await sql`
        select 1 from control.organization_invitations
        where organization_id = ${organizationId} and email = ${email} and expires_at > ${now}
          and accepted_at is null and revoked_at is null and superseded_by is null
        limit 1`;
      return rows.length > 0;
    },
    async listPendingInvitations(organizationId: number): Promise<PendingInvitationRow[]> {
      return sql<PendingInvitationRow[]>`
        select i.id, i.organization_id, i.email, i.role, i.expires_at, i.accepted_at, i.revoked_at, i.superseded_by,
          i.created_at, a.email as invited_by_email
        from control.organization_invitations i join control.developer_accounts a on a.id = i.invited_by
        where i.organization_id = ${organizationId}
          and i.accepted_at is null and i.revoked_at is null and i.superseded_by is null
        order by i.id desc limit 500`;
    },
    /** Revokes an open invitation: one conditional write; false when it was no longer open. */
    async revokeInvitation(id: number, now: Date): Promise<boolean> {
      const rows = await sql`
        update control.organization_invitations set revoked_at = ${now}
        where id = ${id} and ${sql.unsafe(open)} returning 1`;
      return rows.length === 1;
    },
    /**
     * Marks an open invitation replaced by `newerId` (a resend): one conditional write, in the transaction that
     * inserted the newer one; false when it was no longer open (accepted, revoked or resent meanwhile).
     */
    async supersedeInvitation(id: number, newerId: number): Promise<boolean> {
      const rows = await sql`
        update control.organization_invitations set superseded_by = ${newerId}
        where id = ${id} and ${sql.unsafe(open)} returning 1`;
      return rows.length === 1;
    },
    /**
     * Redeems an invitation: one conditional write (unused, unexpired) that also adds the member, so of two
     * parallel redemptions exactly one adds a member; false for the other.
     */
    async redeem(id: number, accountId: number, now: Date): Promise<boolean> {
      const rows = await sql`
        with used as (
          update control.organization_invitations set accepted_at = ${now}, accepted_by = ${accountId}
          where id = ${id} and ${sql.unsafe(open)} and expires_at > ${now}
          returning organization_id, role
        )
        insert into control.organization_members (organization_id, account_id, role, created_at)
        select organization_id, ${accountId}, role, ${now} from used
        returning 1`;
      return rows.length === 1;
    },
  };
}
