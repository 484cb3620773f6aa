// GrantService: a merchant's connections (grants) to apps: list them, and disconnect an app (the grant and every
// refresh family under it are revoked for good). The consent site's connected-apps page uses the same module.
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { createConnections } from "../oauth/connections.js";
import type { ServiceContext } from "./dependencies.js";

export interface GrantServiceDeps {
  /** The control database. */
  sql: postgres.Sql;
}

export function createGrantService(context: ServiceContext, deps: GrantServiceDeps): ServiceImpl<typeof GrantService> {
  const connections = createConnections({ sql: deps.sql, clock: context.clock, logger: context.logger });
  return {
    async listGrants(request) {
      const rows = await connections.list(Number(request.companyId));
      return {
        grants: rows.map((row) => ({
          grantId: String(row.id),
          appId: row.app_id,
          companyId: BigInt(row.company_id),
          environment: row.environment,
          createdAt: row.created_at.toISOString(),
          appName: row.app_name,
          organizationName: row.organization_name,
          product: row.product,
        })),
      };
    },
    async revokeGrant(request) {
      return { revoked: await connections.disconnect(Number(request.companyId), request.appId) };
    },
  };
}
