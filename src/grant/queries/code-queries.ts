// Queries of control.authorization_codes. Codes are stored only as SHA-256 hashes; consumption is one conditional
// UPDATE that carries every check (unconsumed, unexpired, same client, same redirect_uri, matching PKCE), so of
// any number of parallel exchanges exactly one can succeed, and a failed check never consumes the code.
// Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";

export interface CodeRow {
  app_id: string;
  client_id: string;
  company_id: number;
  grant_id: number | null;
  redirect_uri: string;
  code_challenge: string | null;
  expires_at: Date;
  consumed_at: Date | null;
  /** The DPoP key the code is bound to (RFC 9449 section 10, `dpop_jkt`); null: any proof, or none. */
  dpop_jkt: string | null;
}

const columns =
  "app_id, client_id, company_id, grant_id, redirect_uri, code_challenge, expires_at, consumed_at, dpop_jkt";

/** The code queries over `sql` (the pool, or a transaction's `sql`). */
export function createCodeQueries(sql: SqlClient) {
  return {
    async insert(code: {
      hash: Uint8Array;
      appId: string;
      clientId: string;
      companyId: number;
      grantId: number;
      approvedByUserId: number;
      redirectUri: string;
      codeChallenge: string | null;
      now: Date;
      expiresAt: Date;
      /** Binds the code to a DPoP key (the authorization request's `dpop_jkt`); absent: unbound. */
      dpopJkt?: string | null;
    }): Promise<void> {
      await sql`
        insert into control.authorization_codes
          (code_hash, app_id, client_id, company_id, grant_id, approved_by_user_id, redirect_uri, code_challenge, created_at,
           expires_at, dpop_jkt)
        values (${code.hash}, ${code.appId}, ${code.clientId}, ${code.companyId}, ${code.grantId}, ${code.approvedByUserId},
                ${code.redirectUri}, ${code.codeChallenge}, ${code.now}, ${code.expiresAt}, ${code.dpopJkt ?? null})`;
    },
    /**
     * Consumes the code when every condition holds, in one statement; undefined when any does not (find() then
     * tells which). `challenge` is S256 of the presented verifier, or null when none was sent: a code bound to a
     * challenge needs it, and a code without one refuses a verifier (RFC 9700 section 4.8.2, PKCE downgrade).
     */
    async consume(check: {
      hash: Uint8Array;
      clientId: string;
      redirectUri: string;
      challenge: string | null;
      now: Date;
      dpopJkt: string | null;
    }): Promise<CodeRow | undefined> {
      // A code bound to a DPoP key is consumed only by a proof of that key (RFC 9449 section 10).
      const [row] = await sql<CodeRow[]>`
        update control.authorization_codes set consumed_at = ${check.now}
        where code_hash = ${check.hash} and consumed_at is null and expires_at > ${check.now}
          and client_id = ${check.clientId} and redirect_uri = ${check.redirectUri}
          and code_challenge is not distinct from ${check.challenge}
          and (dpop_jkt is null or dpop_jkt = ${check.dpopJkt})
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    async find(hash: Uint8Array): Promise<CodeRow | undefined> {
      const [row] = await sql<
        CodeRow[]
      >`select ${sql.unsafe(columns)} from control.authorization_codes where code_hash = ${hash}`;
      return row;
    },
    /** Deletes codes that expired before `before` (housekeeping; an expired code can no longer be exchanged). */
    async deleteExpired(before: Date): Promise<number> {
      const rows = await sql`
        delete from control.authorization_codes c where c.expires_at < ${before}
          and not exists (select 1 from control.refresh_families f where f.code_hash = c.code_hash)
        returning 1`;
      return rows.length;
    },
  };
}
