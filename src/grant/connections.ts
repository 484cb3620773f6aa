// A merchant's connections (live grants): listing them and disconnecting an app. Used by GrantService and by the
// consent site's connected-apps page. A disconnect revokes the grant, and with it every refresh family under it, for good;
// the next refresh answers oauth.grant_revoked, and partner calls see the grant gone (partner.grant_missing).
import type postgres from "postgres";
import { createGrantQueries, type ConnectionRow } from "./queries/grant-queries.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";

export function createConnections(deps: { sql: postgres.Sql; clock: Clock; logger: Logger }) {
  return {
    list(companyId: number): Promise<ConnectionRow[]> {
      return createGrantQueries(deps.sql).liveForCompany(companyId);
    },
    async disconnect(companyId: number, appId: string): Promise<boolean> {
      const now = new Date(deps.clock.now());
      const revoked = await deps.sql.begin((tx: SqlClient) => createGrantQueries(tx).revokeLive(appId, companyId, now));
      if (revoked) deps.logger.info("app disconnected by the merchant", { companyId, appId });
      return revoked;
    },
  };
}

export type Connections = ReturnType<typeof createConnections>;
