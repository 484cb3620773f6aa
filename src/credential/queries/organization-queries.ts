// Queries of control.organizations. Every function runs on the `sql` given, so a transaction can pass its own.
import type { SqlClient } from "../../storage/sql-client.js";

export interface OrganizationRow {
  id: number;
  name: string;
}

/** The organization queries over `sql` (the pool, or a transaction's `sql`). */
export function createOrganizationQueries(sql: SqlClient) {
  return {
    async insert(name: string, now: Date): Promise<OrganizationRow> {
      const [row] = await sql<OrganizationRow[]>`
        insert into control.organizations (name, created_at) values (${name}, ${now}) returning id, name`;
      return row!;
    },
    async find(id: number): Promise<OrganizationRow | undefined> {
      const [row] = await sql<OrganizationRow[]>`select id, name from control.organizations where id = ${id}`;
      return row;
    },
    /**
     * Locks the organization's row until the transaction ends: the serialisation point of everything counted per
     * organization (active sandbox merchants), so concurrent provisioning cannot overshoot a limit.
     */
    async lock(id: number): Promise<OrganizationRow | undefined> {
      const [row] = await sql<
        OrganizationRow[]
      >`select id, name from control.organizations where id = ${id} for update`;
      return row;
    },
  };
}
