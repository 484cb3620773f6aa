// GrantService: a merchant's connections (grants) to apps: list them, and disconnect an app (the grant and every
// refresh family under it are revoked for good). The consent site's connected-apps page uses the same module.
// ADSR access requests (./access-requests.ts): the console creates them; the merchant's owner approves, declines
// or withdraws (the consent site calls the same module in process; these RPCs check the owner the same way).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import { GrantService, type AccessRequestSchema } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { createAccessRequests, type AccessRequest, type AccessRequests } from "./access-requests.js";
import { serviceError } from "../errors/index.js";
import { createConnections } from "./connections.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Region } from "../config/regions.js";
import type { ServiceContext } from "../runtime/service-context.js";

export interface GrantServiceDeps {
  /** The control database. */
  sql: postgres.Sql;
  /** A region's database when this process has it: requested stores are checked against it. */
  regionSql?: (region: Region) => SqlClient | undefined;
}

/** A decimal id of the wire, or 0 (which no row has) when it is not one. */
const idOf = (value: string): number => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0);

/** An access request as the GrantService and the ConsoleService answer it. */
export function describeAccessRequest(row: AccessRequest): MessageInitShape<typeof AccessRequestSchema> {
  return {
    accessRequestId: String(row.id),
    appId: row.app_id,
    companyId: BigInt(row.company_id),
    storeIds: row.store_ids.map(BigInt),
    approvedStoreIds: (row.approved_store_ids ?? []).map(BigInt),
    state: row.state,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    decidedAt: row.decided_at?.toISOString(),
    withdrawnAt: row.withdrawn_at?.toISOString(),
  };
}

export type GrantServiceImpl = ServiceImpl<typeof GrantService>;

/** One grant owner: the access requests' plain interface (which the console calls) and the GrantService over it. */
export interface GrantOwner {
  accessRequests: AccessRequests;
  service: GrantServiceImpl;
}

const domain = GrantService.typeName;

export function createGrantOwner(context: ServiceContext, deps: GrantServiceDeps): GrantOwner {
  const accessRequests = createAccessRequests({
    sql: deps.sql,
    config: context.config,
    clock: context.clock,
    logger: context.logger,
    regionSql: deps.regionSql,
    domain,
  });
  return { accessRequests, service: createGrantHandlers(context, deps, accessRequests) };
}

/** The GrantService alone. */
export function createGrantService(context: ServiceContext, deps: GrantServiceDeps): GrantServiceImpl {
  return createGrantOwner(context, deps).service;
}

function createGrantHandlers(
  context: ServiceContext,
  deps: GrantServiceDeps,
  requests: AccessRequests,
): GrantServiceImpl {
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

    async createAccessRequest(request) {
      const row = await requests.create({
        appId: request.appId,
        companyId: Number(request.companyId),
        storeIds: request.storeIds.map(Number),
      });
      return { accessRequest: describeAccessRequest(row) };
    },
    async getAccessRequest(request) {
      return { accessRequest: describeAccessRequest(await requests.get(idOf(request.accessRequestId))) };
    },
    async listAccessRequests(request) {
      if (Boolean(request.appId) === (request.companyId !== 0n)) {
        throw serviceError(domain, "developer.invalid_request", { fields: "app_id, company_id (exactly one)" });
      }
      const rows = request.appId
        ? await requests.listForApp(request.appId)
        : await requests.listForCompany(Number(request.companyId));
      return { accessRequests: rows.map(describeAccessRequest) };
    },
    async approveAccessRequest(request) {
      const row = await requests.approve(
        idOf(request.accessRequestId),
        idOf(request.userId),
        request.storeIds.map(Number),
      );
      return { accessRequest: describeAccessRequest(row) };
    },
    async declineAccessRequest(request) {
      return {
        accessRequest: describeAccessRequest(
          await requests.decline(idOf(request.accessRequestId), idOf(request.userId)),
        ),
      };
    },
    async withdrawAccessRequest(request) {
      return {
        accessRequest: describeAccessRequest(
          await requests.withdraw(idOf(request.accessRequestId), idOf(request.userId)),
        ),
      };
    },
  };
}
