// grant_type=refresh_token (RFC 6749 section 6) with rotation and reuse detection:
// - the live token is rotated out by one conditional UPDATE (`where rotated_at is null`), never read-then-write
//   (Keycloak GHSA-m2w5-7xhv-w6fh), and its successor inserted with a fresh rolling lifetime;
// - the token rotated out last, presented again inside REFRESH_GRACE_SECONDS while its successor is still unused,
//   gets that same successor again (its value is derived, never stored: ../refresh-token-secrets.ts) and a fresh
//   access token; an older token never gets grace (django-oauth-toolkit #1617);
// - any other rotated-out token revokes the whole family: oauth.refresh_reused;
// - a failure never burns a token or a family (Keycloak #49213): the rotation commits with the response or not at
//   all. The common case, a live token, takes two statements and no transaction: one read (token, family, grant,
//   merchant) decides every refusal a read can decide, the access token is signed, then one conditional statement
//   rotates the token out and inserts its successor (`rotateWithSuccessor`). Nothing is written before the
//   response exists, and no connection is held while it is signed. A token already rotated out (grace or reuse),
//   or one that a parallel refresh rotated between the read and the write, is decided in one transaction as before.
import { hashesEqual, findMerchant } from "../../credential/index.js";
import { serviceError, type ErrorCode } from "../../errors/index.js";
import { createRefreshQueries, type PresentedTokenRow } from "../queries/refresh-queries.js";
import type { SqlClient } from "../../storage/sql-client.js";
import type { TokenResponse } from "../issuer.js";
import { hashToken, refreshTokenEnvironment, successorOf } from "../refresh-token-secrets.js";
import type { GrantType, Outcome } from "./grant-type.js";

export const grantType = "refresh_token";
export const credential = "refresh_token";
export const parameters = ["refresh_token"] as const;

/**
 * The code for a token of a revoked family or grant: reuse and a replayed code keep saying so; an app or merchant
 * revocation is grant_revoked.
 */
function revokedCode(row: PresentedTokenRow): ErrorCode | undefined {
  if (row.family_revoked_at !== null) {
    if (row.revoked_reason === "refresh_reused") return "oauth.refresh_reused";
    if (row.revoked_reason === "code_replayed") return "oauth.code_replayed";
    return "oauth.grant_revoked";
  }
  if (row.grant_revoked_at !== null) return "oauth.grant_revoked";
  return undefined;
}

type Result = { response: TokenResponse; familyId: number; replay: boolean };

export const handle: GrantType["handle"] = async (request, client, context, dpopJkt) => {
  const { sql, clock, config, issuer, domain, successorKey, logger } = context;
  const presented = request.refreshToken;
  // A malformed token or one of the other environment is never looked up.
  if (refreshTokenEnvironment(presented) !== client.environment) throw serviceError(domain, "oauth.refresh_invalid");
  const key = await issuer.signingKey();
  const hash = hashToken(presented);
  const successor = successorOf(successorKey, presented);
  const successorHash = hashToken(successor);
  const now = new Date(clock.now());

  const read = await createRefreshQueries(sql).findWithMerchant(hash);
  if (!read || read.client_id !== client.clientId) throw serviceError(domain, "oauth.refresh_invalid");
  const revokedAtRead = revokedCode(read);
  if (revokedAtRead) throw serviceError(domain, revokedAtRead);
  // A family bound to a DPoP key refreshes only with a proof of that key (RFC 9449 section 5); the key never changes.
  if (read.dpop_jkt !== null && read.dpop_jkt !== dpopJkt) throw serviceError(domain, "oauth.dpop_key_mismatch");
  if (!read.merchant_active || !read.merchant_region) throw serviceError(domain, "developer.merchant_inactive");
  if (read.rotated_at === null) {
    if (read.expires_at.getTime() <= now.getTime()) throw serviceError(domain, "oauth.refresh_expired");
    const target = { companyId: read.company_id, region: read.merchant_region };
    const accessToken = await issuer.mintAccessToken(key, client, target, dpopJkt);
    const expiresAt = new Date(now.getTime() + config.lifetimes.refreshToken * 1000);
    const rotated = await createRefreshQueries(sql).rotateWithSuccessor(hash, successorHash, now, expiresAt);
    if (rotated) {
      logger.info("refresh token rotated", { clientId: client.clientId, familyId: rotated.family_id });
      return issuer.response(accessToken, client, target, successor, dpopJkt);
    }
    // Rotated (or revoked, or its merchant deactivated) since the read: the transaction below decides, as it would have.
  }

  let reused: number | undefined;

  const outcome = await sql.begin(async (tx: SqlClient): Promise<Outcome<Result>> => {
    const tokens = createRefreshQueries(tx);
    let row = await tokens.find(hash);
    if (!row || row.client_id !== client.clientId) return { ok: false, code: "oauth.refresh_invalid" };
    const revoked = revokedCode(row);
    if (revoked) return { ok: false, code: revoked };
    const merchant = await findMerchant(tx, row.company_id);
    if (!merchant?.active) return { ok: false, code: "developer.merchant_inactive" };
    const target = { companyId: merchant.company_id, region: merchant.region };
    const answer = async (replay: boolean) => ({
      response: issuer.response(
        await issuer.mintAccessToken(key, client, target, dpopJkt),
        client,
        target,
        successor,
        dpopJkt,
      ),
      familyId: row!.family_id,
      replay,
    });

    if (row.rotated_at === null) {
      if (row.expires_at.getTime() <= now.getTime()) return { ok: false, code: "oauth.refresh_expired" };
      const rotated = await tokens.rotate(hash, successorHash, now);
      if (rotated) {
        await tokens.insertToken({
          hash: successorHash,
          familyId: rotated.family_id,
          generation: rotated.generation + 1,
          now,
          expiresAt: new Date(now.getTime() + config.lifetimes.refreshToken * 1000),
        });
        return { ok: true, value: await answer(false) };
      }
      // A parallel refresh rotated it first (its transaction committed before our UPDATE went on): read it again.
      row = (await tokens.find(hash))!;
      const revokedMeanwhile = revokedCode(row);
      if (revokedMeanwhile) return { ok: false, code: revokedMeanwhile };
      if (row.rotated_at === null) return { ok: false, code: "oauth.refresh_expired" };
    }

    // Rotated out. Grace: only the token rotated out last (its successor is the one we derive), only inside the
    // window, only while that successor is live; the share lock keeps it from rotating while we hand it out again.
    const inGrace = now.getTime() < row.rotated_at!.getTime() + config.lifetimes.refreshGrace * 1000;
    const successorMatches = row.successor_hash !== null && hashesEqual(row.successor_hash, successorHash);
    if (inGrace && successorMatches && (await tokens.holdLive(successorHash, now)))
      return { ok: true, value: await answer(true) };
    // Reuse: the family ends for good, and that write commits (it is the point of detection).
    await tokens.revokeFamily(row.family_id, now, "refresh_reused");
    reused = row.family_id;
    return { ok: false, code: "oauth.refresh_reused" };
  });

  if (reused !== undefined) {
    context.metrics?.refreshReuseDetections.inc();
    context.metrics?.familyRevocations.inc({ reason: "refresh_reused" });
  }
  if (reused !== undefined)
    logger.warn("refresh token reuse: family revoked", { clientId: client.clientId, familyId: reused });
  if (!outcome.ok) throw serviceError(domain, outcome.code);
  logger.info(outcome.value.replay ? "refresh replayed inside the grace window" : "refresh token rotated", {
    clientId: client.clientId,
    familyId: outcome.value.familyId,
  });
  return outcome.value.response;
};

export const refreshToken: GrantType = { grantType, parameters, credential, handle };
