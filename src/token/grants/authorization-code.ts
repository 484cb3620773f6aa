// grant_type=authorization_code (RFC 6749 section 4.1.3, RFC 7636 section 4.6): exchanges a code for an access
// token and the first refresh token of a new family. The code is consumed by one conditional UPDATE carrying every
// check; the family, the refresh token and the signed response are made in the same transaction, so a failure
// leaves the code unconsumed and nothing half made. A second exchange of a consumed code by its own client answers
// invalid_grant and revokes the family the first exchange started (RFC 6749 section 4.1.2; docs/decisions.md).
import { serviceError } from "../../errors/index.js";
import { consumeCode, findCode, findGrant, s256, type AuthorizationCode } from "../../grant/index.js";
import { findMerchant } from "../../credential/index.js";
import { createRefreshQueries } from "../queries/refresh-queries.js";
import type { SqlClient } from "../../storage/sql-client.js";
import type { TokenResponse } from "../issuer.js";
import { hashToken, newRefreshToken } from "../refresh-token-secrets.js";
import type { GrantType, Outcome } from "./grant-type.js";

export const grantType = "authorization_code";
export const credential = "code";
export const parameters = ["code", "redirect_uri"] as const;

/** Why a code that did not consume failed, told from its row; the order is the spec's table. */
function diagnose(
  row: AuthorizationCode | undefined,
  check: { clientId: string; redirectUri: string; challenge: string | null; now: Date; dpopJkt: string | null },
) {
  if (!row || row.client_id !== check.clientId || row.consumed_at !== null) return "oauth.code_invalid" as const;
  if (row.expires_at.getTime() <= check.now.getTime()) return "oauth.code_expired" as const;
  if (row.redirect_uri !== check.redirectUri) return "oauth.redirect_uri_mismatch" as const;
  if (row.code_challenge !== check.challenge) return "oauth.pkce_failed" as const;
  if (row.dpop_jkt !== null && row.dpop_jkt !== check.dpopJkt) return "oauth.dpop_key_mismatch" as const;
  // Every condition holds now, so a parallel exchange consumed it between the two statements.
  return "oauth.code_invalid" as const;
}

export const handle: GrantType["handle"] = async (request, client, context, dpopJkt) => {
  const { sql, clock, ids, config, issuer, domain } = context;
  const key = await issuer.signingKey();
  const hash = hashToken(request.code);
  const now = new Date(clock.now());
  const check = {
    hash,
    clientId: client.clientId,
    redirectUri: request.redirectUri,
    challenge: request.codeVerifier ? s256(request.codeVerifier) : null,
    now,
    dpopJkt: dpopJkt ?? null,
  };
  let replayed: number | undefined;
  const outcome = await sql.begin(
    async (tx: SqlClient): Promise<Outcome<{ response: TokenResponse; familyId: number; companyId: number }>> => {
      const code = await consumeCode(tx, check);
      if (!code) {
        const row = await findCode(tx, hash);
        // A replay: the code was consumed (by an exchange that committed its family with it) and its own client
        // presents it again. Another client's presentation proves nothing about this connection and ends nothing.
        // The revocation commits with the error answer: it is the point of detection.
        if (row && row.consumed_at !== null && row.client_id === client.clientId) {
          replayed = await createRefreshQueries(tx).revokeFamilyOfCode(hash, now, "code_replayed");
        }
        return { ok: false, code: diagnose(row, check) };
      }
      const grant = code.grant_id === null ? undefined : await findGrant(tx, code.grant_id);
      // A disconnect after the approval: the code died with its grant. Rolling back leaves it unconsumed (and dead).
      if (!grant || grant.revoked_at !== null) throw serviceError(domain, "oauth.grant_revoked");
      const merchant = await findMerchant(tx, code.company_id);
      if (!merchant?.active) throw serviceError(domain, "developer.merchant_inactive");
      const familyId = await createRefreshQueries(tx).insertFamily({
        grantId: grant.id,
        appId: code.app_id,
        companyId: code.company_id,
        clientId: client.clientId,
        codeHash: hash,
        now,
        // A family started with a proof is bound to its key: it refreshes only with a proof of it (RFC 9449 section 5).
        dpopJkt: dpopJkt ?? null,
      });
      const refreshToken = newRefreshToken(ids, client.environment);
      await createRefreshQueries(tx).insertToken({
        hash: hashToken(refreshToken),
        familyId,
        generation: 1,
        now,
        expiresAt: new Date(now.getTime() + config.lifetimes.refreshToken * 1000),
      });
      const target = { companyId: merchant.company_id, region: merchant.region };
      const accessToken = await issuer.mintAccessToken(key, client, target, dpopJkt);
      const response = issuer.response(accessToken, client, target, refreshToken, dpopJkt);
      return { ok: true, value: { response, familyId, companyId: merchant.company_id } };
    },
  );
  if (replayed !== undefined) context.metrics?.familyRevocations.inc({ reason: "code_replayed" });
  if (replayed !== undefined)
    context.logger.warn("authorization code replayed: family revoked", {
      clientId: client.clientId,
      familyId: replayed,
    });
  if (!outcome.ok) throw serviceError(domain, outcome.code);
  context.logger.info("authorization code exchanged", {
    clientId: client.clientId,
    companyId: outcome.value.companyId,
    familyId: outcome.value.familyId,
  });
  return outcome.value.response;
};

export const authorizationCode: GrantType = { grantType, parameters, credential, handle };
