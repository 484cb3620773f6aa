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
}

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
        returning id, organization_id, email, role, expires_at, accepted_at`;
      return row!;
    },
    async findInvitation(tokenHash: string): Promise<InvitationRow | undefined> {
      const [row] = await sql<InvitationRow[]>`
        select id, organization_id, email, role, expires_at, accepted_at from control.organization_invitations where token_hash = ${tokenHash}`;
      return row;
    },
    /**
     * Redeems an invitation: one conditional write (unused, unexpired) that also adds the member, so of two
     * parallel redemptions exactly one adds a member; false for the other.
     */
    async redeem(id: number, accountId: number, now: Date): Promise<boolean> {
      const rows = await sql`
        with used as (
          update control.organization_invitations set accepted_at = ${now}, accepted_by = ${accountId}
          where id = ${id} and accepted_at is null and expires_at > ${now}
          returning organization_id, role
        )
        insert into control.organization_members (organization_id, account_id, role, created_at)
        select organization_id, ${accountId}, role, ${now} from used
        returning 1`;
      return rows.length === 1;
    },
  };
}
