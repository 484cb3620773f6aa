// POST /v1/oauth/revoke (RFC 7009): once the client authenticates (from an address its IP allowlist admits) the
// answer is always `{ok: true}`, whatever the
// token (unknown, malformed, already revoked, another client's, an access token), so nothing can be probed. A
// live refresh token of this very client revokes its grant and every family under it, for good.
import { revokeGrant } from "../grant/index.js";
import { createRefreshQueries } from "./queries/refresh-queries.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import type postgres from "postgres";
import { clientAddressAllowed, type VerifyClient } from "./client-verifier.js";
import { hashToken, refreshTokenEnvironment } from "./refresh-token-secrets.js";
import { serviceError } from "../errors/index.js";

export interface RevocationDeps {
  sql: postgres.Sql;
  clock: Clock;
  logger: Logger;
  verifyClient: VerifyClient;
  domain: string;
  /** Counts the families a revocation ends (app_revoked); absent: not counted. */
  metrics?: Metrics;
}

export function createRevocation(deps: RevocationDeps) {
  return {
    /** `clientAddress`: the caller's address as the front saw it, for the credential's IP allowlist. */
    async revoke(
      request: { token: string; clientId: string; clientSecret: string },
      clientAddress: string,
    ): Promise<{ ok: true }> {
      // 1. Authenticate the client, from an address its allowlist admits (the only failures a caller can see).
      if (!request.clientId || !request.clientSecret) {
        const fields = [!request.clientId && "client_id", !request.clientSecret && "client_secret"]
          .filter(Boolean)
          .join(", ");
        throw serviceError(deps.domain, "oauth.invalid_request", { fields });
      }
      const client = await deps.verifyClient(request.clientId, request.clientSecret);
      if (!clientAddressAllowed(client, clientAddress)) throw serviceError(deps.domain, "oauth.ip_denied");
      // 2. Only a well-formed refresh token of the client's environment is looked up.
      if (refreshTokenEnvironment(request.token) !== client.environment) return { ok: true };
      const now = new Date(deps.clock.now());
      // 3. A live token of this client: its grant and every family under it end, in one transaction.
      const revoked = await deps.sql.begin(async (tx: SqlClient) => {
        const row = await createRefreshQueries(tx).find(hashToken(request.token));
        const live =
          row !== undefined &&
          row.client_id === client.clientId &&
          row.rotated_at === null &&
          row.expires_at.getTime() > now.getTime() &&
          row.family_revoked_at === null &&
          row.grant_revoked_at === null;
        if (!live) return undefined;
        await createRefreshQueries(tx).revokeFamiliesOfGrant(row.grant_id, now, "app_revoked");
        await revokeGrant(tx, row.grant_id, now);
        return { familyId: row.family_id, grantId: row.grant_id, companyId: row.company_id };
      });
      if (revoked) deps.metrics?.familyRevocations.inc({ reason: "app_revoked" });
      if (revoked) deps.logger.info("grant revoked by the app", { clientId: client.clientId, ...revoked });
      return { ok: true };
    },
  };
}
