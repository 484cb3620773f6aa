// The merchant directory as other owners and the edges read it: a merchant (where its data lives, whether it is a
// sandbox one, whether it is active) and its back-office users. Plain records and functions: each read runs on the
// `sql` it is given (the pool, or the caller's transaction when the read must see or lock within it).
import type { SqlClient } from "../storage/sql-client.js";
import { createMerchantQueries, type MerchantRow, type MerchantUserRow } from "./queries/merchant-queries.js";

/** A merchant of the directory: company id, region, demo (sandbox) flag, active, provisioned, its sandbox organization. */
export type Merchant = MerchantRow;

/** A back-office user of a merchant, without its password hash (that never leaves this owner). */
export interface MerchantUser {
  userId: number;
  companyId: number;
  role: "OWNER" | "EMPLOYEE";
  email: string;
}

export function merchantUserOf(row: MerchantUserRow): MerchantUser {
  return { userId: row.id, companyId: row.company_id, role: row.role, email: row.email };
}

/** The merchant of `companyId`; undefined when the company is not in the directory. */
export function findMerchant(sql: SqlClient, companyId: number): Promise<Merchant | undefined> {
  return createMerchantQueries(sql).find(companyId);
}

/** Every sandbox merchant of an organization (active or not), by company id. */
export function listSandboxMerchants(sql: SqlClient, organizationId: number): Promise<Merchant[]> {
  return createMerchantQueries(sql).listSandbox(organizationId);
}

/** The merchant user of `userId`; undefined when there is none. */
export async function findMerchantUser(sql: SqlClient, userId: number): Promise<MerchantUser | undefined> {
  const row = await createMerchantQueries(sql).findUser(userId);
  return row && merchantUserOf(row);
}

/** The merchant user signing in with `email` (already trimmed and lower-cased); undefined when there is none. */
export async function findMerchantUserByEmail(sql: SqlClient, email: string): Promise<MerchantUser | undefined> {
  const row = await createMerchantQueries(sql).findUserByEmail(email);
  return row && merchantUserOf(row);
}
