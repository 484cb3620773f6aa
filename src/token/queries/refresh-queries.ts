// Queries of control.refresh_families and control.refresh_tokens. Tokens are stored only as SHA-256 hashes.
// Rotation is one conditional UPDATE (`... where rotated_at is null`), never read-then-write, so of any number of
// parallel refreshes of one token exactly one rotates it. Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";
import type { Region } from "../../config/regions.js";

/**
 * Why a refresh family ended (refresh_families.revoked_reason); a family whose grant was revoked ends with it.
 * `code_replayed`: the code that started the family was presented again (RFC 6749 section 4.1.2).
 */
export type RevokedReason = "refresh_reused" | "app_revoked" | "code_replayed";

/** A presented token with its family, grant and successor: everything the refresh grant decides on. */
export interface PresentedTokenRow {
  family_id: number;
  generation: number;
  expires_at: Date;
  rotated_at: Date | null;
  successor_hash: Uint8Array | null;
  app_id: string;
  company_id: number;
  client_id: string | null;
  grant_id: number;
  family_revoked_at: Date | null;
  revoked_reason: RevokedReason | null;
  grant_revoked_at: Date | null;
  successor_rotated_at: Date | null;
  successor_expires_at: Date | null;
  /** The DPoP key the family is bound to (RFC 7638 thumbprint); null: unbound. */
  dpop_jkt: string | null;
}

/** A presented token with its merchant's state: the refresh grant's one read before it rotates. */
export interface PresentedTokenWithMerchant extends PresentedTokenRow {
  /** Null when the merchant row is gone. */
  merchant_active: boolean | null;
  merchant_region: Region | null;
}

/** The refresh-token queries over `sql` (the pool, or a transaction's `sql`). */
export function createRefreshQueries(sql: SqlClient) {
  return {
    async insertFamily(family: {
      grantId: number;
      appId: string;
      companyId: number;
      clientId: string;
      codeHash: Uint8Array | null;
      now: Date;
      /** The DPoP key the family is bound to; null: unbound (Bearer). */
      dpopJkt: string | null;
    }): Promise<number> {
      const [row] = await sql<{ id: number }[]>`
        insert into control.refresh_families (grant_id, app_id, company_id, client_id, code_hash, created_at, dpop_jkt)
        values (${family.grantId}, ${family.appId}, ${family.companyId}, ${family.clientId}, ${family.codeHash}, ${family.now},
                ${family.dpopJkt})
        returning id`;
      return row!.id;
    },
    async insertToken(token: {
      hash: Uint8Array;
      familyId: number;
      generation: number;
      now: Date;
      expiresAt: Date;
    }): Promise<void> {
      await sql`
        insert into control.refresh_tokens (token_hash, family_id, generation, created_at, expires_at)
        values (${token.hash}, ${token.familyId}, ${token.generation}, ${token.now}, ${token.expiresAt})`;
    },
    async find(hash: Uint8Array): Promise<PresentedTokenRow | undefined> {
      const [row] = await sql<PresentedTokenRow[]>`
        select t.family_id, t.generation, t.expires_at, t.rotated_at, t.successor_hash,
               f.app_id, f.company_id, f.client_id, f.grant_id, f.revoked_at as family_revoked_at, f.revoked_reason, f.dpop_jkt,
               g.revoked_at as grant_revoked_at,
               s.rotated_at as successor_rotated_at, s.expires_at as successor_expires_at
        from control.refresh_tokens t
        join control.refresh_families f on f.id = t.family_id
        join control.grants g on g.id = f.grant_id
        left join control.refresh_tokens s on s.token_hash = t.successor_hash
        where t.token_hash = ${hash}`;
      return row;
    },
    /** `find` with the merchant's state (active, region), in the same read. */
    async findWithMerchant(hash: Uint8Array): Promise<PresentedTokenWithMerchant | undefined> {
      const [row] = await sql<PresentedTokenWithMerchant[]>`
        select t.family_id, t.generation, t.expires_at, t.rotated_at, t.successor_hash,
               f.app_id, f.company_id, f.client_id, f.grant_id, f.revoked_at as family_revoked_at, f.revoked_reason, f.dpop_jkt,
               g.revoked_at as grant_revoked_at,
               s.rotated_at as successor_rotated_at, s.expires_at as successor_expires_at,
               m.active as merchant_active, m.region as merchant_region
        from control.refresh_tokens t
        join control.refresh_families f on f.id = t.family_id
        join control.grants g on g.id = f.grant_id
        left join control.refresh_tokens s on s.token_hash = t.successor_hash
        left join control.merchants m on m.company_id = f.company_id
        where t.token_hash = ${hash}`;
      return row;
    },
    /**
     * Rotates the token out and inserts its successor in one statement, atomic on its own (no transaction around
     * it): only when the token is live (not rotated, not expired) and its family, grant and merchant still are.
     * Of any number of these at once for one token exactly one rotates it (the row's update is conditional on
     * `rotated_at is null`, re-checked by PostgreSQL after a concurrent update). Returns the family and the rotated
     * token's generation when this call rotated it.
     */
    async rotateWithSuccessor(
      hash: Uint8Array,
      successorHash: Uint8Array,
      now: Date,
      expiresAt: Date,
    ): Promise<{ family_id: number; generation: number } | undefined> {
      const [row] = await sql<{ family_id: number; generation: number }[]>`
        with rotated as (
          update control.refresh_tokens t set rotated_at = ${now}, successor_hash = ${successorHash}
          where t.token_hash = ${hash} and t.rotated_at is null and t.expires_at > ${now}
            and exists (
              select 1 from control.refresh_families f
              join control.grants g on g.id = f.grant_id
              join control.merchants m on m.company_id = f.company_id
              where f.id = t.family_id and f.revoked_at is null and g.revoked_at is null and m.active)
          returning t.family_id, t.generation)
        insert into control.refresh_tokens (token_hash, family_id, generation, created_at, expires_at)
        select ${successorHash}, family_id, generation + 1, ${now}, ${expiresAt} from rotated
        returning family_id, generation - 1 as generation`;
      return row;
    },
    /**
     * Rotates the token out in one conditional write: only when it is live (not rotated, not expired) and its
     * family and grant are not revoked. Returns the family and generation when this call rotated it.
     */
    async rotate(
      hash: Uint8Array,
      successorHash: Uint8Array,
      now: Date,
    ): Promise<{ family_id: number; generation: number } | undefined> {
      const [row] = await sql<{ family_id: number; generation: number }[]>`
        update control.refresh_tokens t set rotated_at = ${now}, successor_hash = ${successorHash}
        where t.token_hash = ${hash} and t.rotated_at is null and t.expires_at > ${now}
          and exists (
            select 1 from control.refresh_families f join control.grants g on g.id = f.grant_id
            where f.id = t.family_id and f.revoked_at is null and g.revoked_at is null)
        returning t.family_id, t.generation`;
      return row;
    },
    /**
     * True when the token is live (not rotated, not expired), holding a share lock on it until the transaction
     * ends, so it cannot be rotated while a grace replay hands it out again.
     */
    async holdLive(hash: Uint8Array, now: Date): Promise<boolean> {
      const rows = await sql`
        select 1 from control.refresh_tokens where token_hash = ${hash} and rotated_at is null and expires_at > ${now}
        for share`;
      return rows.length > 0;
    },
    /** Revokes one family (if not already); true when this call revoked it. */
    async revokeFamily(familyId: number, now: Date, reason: RevokedReason): Promise<boolean> {
      const rows = await sql`
        update control.refresh_families set revoked_at = ${now}, revoked_reason = ${reason}
        where id = ${familyId} and revoked_at is null returning id`;
      return rows.length > 0;
    },
    /**
     * Revokes the family the code with this hash started (refresh_families.code_hash), if it is not revoked yet;
     * its id when this call revoked it.
     */
    async revokeFamilyOfCode(codeHash: Uint8Array, now: Date, reason: RevokedReason): Promise<number | undefined> {
      const [row] = await sql<{ id: number }[]>`
        update control.refresh_families set revoked_at = ${now}, revoked_reason = ${reason}
        where code_hash = ${codeHash} and revoked_at is null returning id`;
      return row?.id;
    },
    /** Revokes every live family of a grant (the app revoking its access: they all end with it). */
    async revokeFamiliesOfGrant(grantId: number, now: Date, reason: RevokedReason): Promise<void> {
      await sql`
        update control.refresh_families set revoked_at = ${now}, revoked_reason = ${reason}
        where grant_id = ${grantId} and revoked_at is null`;
    },
  };
}
