// Queries of the merchant directory (control.merchants) and its users (control.merchant_users).
// Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";
import type { Region } from "../../config/regions.js";

export interface MerchantRow {
  company_id: number;
  name: string;
  region: Region;
  demo: boolean;
  active: boolean;
  provisioned: boolean;
  sandbox_organization_id: number | null;
  country: string | null;
}

export interface MerchantUserRow {
  id: number;
  company_id: number;
  email: string;
  password_hash: string;
  role: "OWNER" | "EMPLOYEE";
}

const merchantColumns = "company_id, name, region, demo, active, provisioned, sandbox_organization_id, country";

/** The merchant directory queries over `sql` (the pool, or a transaction's `sql`). */
export function createMerchantQueries(sql: SqlClient) {
  return {
    async insert(
      merchant: {
        companyId?: number;
        name: string;
        region: Region;
        demo: boolean;
        sandboxOrganizationId?: number;
        country?: string;
      },
      now: Date,
    ): Promise<MerchantRow> {
      const values = {
        name: merchant.name,
        region: merchant.region,
        demo: merchant.demo,
        sandbox_organization_id: merchant.sandboxOrganizationId ?? null,
        country: merchant.country ?? null,
        created_at: now,
        ...(merchant.companyId ? { company_id: merchant.companyId } : {}),
      };
      const [row] = await sql<MerchantRow[]>`
        insert into control.merchants ${sql(values)} returning ${sql.unsafe(merchantColumns)}`;
      return row!;
    },
    async find(companyId: number): Promise<MerchantRow | undefined> {
      const [row] = await sql<MerchantRow[]>`
        select ${sql.unsafe(merchantColumns)} from control.merchants where company_id = ${companyId}`;
      return row;
    },
    async updateStatus(
      companyId: number,
      status: { active?: boolean; provisioned?: boolean },
    ): Promise<MerchantRow | undefined> {
      const [row] = await sql<MerchantRow[]>`
        update control.merchants
        set active = coalesce(${status.active ?? null}::boolean, active),
            provisioned = coalesce(${status.provisioned ?? null}::boolean, provisioned)
        where company_id = ${companyId}
        returning ${sql.unsafe(merchantColumns)}`;
      return row;
    },
    async countActiveSandbox(organizationId: number): Promise<number> {
      const [row] = await sql<{ count: number }[]>`
        select count(*)::int as count from control.merchants
        where sandbox_organization_id = ${organizationId} and demo and active`;
      return row!.count;
    },
    async listSandbox(organizationId: number): Promise<MerchantRow[]> {
      return sql<MerchantRow[]>`
        select ${sql.unsafe(merchantColumns)} from control.merchants
        where sandbox_organization_id = ${organizationId} order by company_id`;
    },

    async insertUser(
      user: { companyId: number; email: string; passwordHash: string; role: MerchantUserRow["role"] },
      now: Date,
    ): Promise<MerchantUserRow> {
      const [row] = await sql<MerchantUserRow[]>`
        insert into control.merchant_users (company_id, email, password_hash, role, created_at)
        values (${user.companyId}, ${user.email}, ${user.passwordHash}, ${user.role}, ${now})
        returning id, company_id, email, password_hash, role`;
      return row!;
    },
    async findUser(id: number): Promise<MerchantUserRow | undefined> {
      const [row] = await sql<MerchantUserRow[]>`
        select id, company_id, email, password_hash, role from control.merchant_users where id = ${id}`;
      return row;
    },
    async findUserByEmail(email: string): Promise<MerchantUserRow | undefined> {
      const [row] = await sql<MerchantUserRow[]>`
        select id, company_id, email, password_hash, role from control.merchant_users where email = ${email}`;
      return row;
    },
  };
}
