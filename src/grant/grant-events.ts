// The events of grants and access requests (grant.created, grant.revoked, access_request.*), recorded in the
// control database's outbox in the transaction of the change (src/events/outbox.ts). `data` is what a partner
// needs to act: the company, the app, and the resource's state.
import { recordEvent } from "../events/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { AccessRequestRow } from "./queries/access-request-queries.js";

export type GrantChange = "merchant_connected" | "merchant_disconnected" | "app_revoked";

export async function recordGrantEvent(
  tx: SqlClient,
  grant: {
    id: number;
    appId: string;
    companyId: number;
    environment: "SANDBOX" | "PRODUCTION";
    createdAt: Date;
    revokedAt: Date | null;
  },
  reason: GrantChange,
  at: Date,
): Promise<void> {
  await recordEvent(tx, {
    type: grant.revokedAt ? "grant.revoked" : "grant.created",
    companyId: grant.companyId,
    audience: { kind: "app", appId: grant.appId, environment: grant.environment },
    data: {
      companyId: grant.companyId,
      grant: {
        id: grant.id,
        appId: grant.appId,
        environment: grant.environment.toLowerCase(),
        createdAt: grant.createdAt.toISOString(),
        revokedAt: grant.revokedAt ? grant.revokedAt.toISOString() : null,
        reason,
      },
    },
    occurredAt: at,
  });
}

const accessRequestEvent = {
  APPROVED: "access_request.approved",
  DECLINED: "access_request.declined",
  WITHDRAWN: "access_request.withdrawn",
  EXPIRED: "access_request.expired",
} as const;

/** Access requests are for production keys only (src/grant/access-requests.ts), so their events go to production endpoints. */
export async function recordAccessRequestEvent(
  tx: SqlClient,
  row: AccessRequestRow,
  state: keyof typeof accessRequestEvent,
  at: Date,
): Promise<void> {
  await recordEvent(tx, {
    type: accessRequestEvent[state],
    companyId: row.company_id,
    audience: { kind: "app", appId: row.app_id, environment: "PRODUCTION" },
    data: {
      companyId: row.company_id,
      accessRequest: {
        id: row.id,
        appId: row.app_id,
        state,
        storeIds: row.store_ids,
        approvedStoreIds: row.approved_store_ids,
        createdAt: row.created_at.toISOString(),
        expiresAt: row.expires_at.toISOString(),
        decidedAt: row.decided_at ? row.decided_at.toISOString() : null,
        withdrawnAt: row.withdrawn_at ? row.withdrawn_at.toISOString() : null,
      },
    },
    occurredAt: at,
  });
}
