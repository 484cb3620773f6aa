// ADSR access requests: an app asks a live merchant for some of its stores; the merchant's account owner approves
// (all or fewer of them) or declines; an approval can be withdrawn later; a pending request expires after
// ACCESS_REQUEST_TTL_SECONDS. GrantService exposes it as RPCs, the consent site's pages call it in process, and
// the partner gateway asks `access()` what a production API key may read. Transitions: docs/decisions.md,
// "Grants and access requests".
//
//   PENDING --owner approves (all or fewer stores)--> APPROVED --owner withdraws--> WITHDRAWN
//   PENDING --owner declines--> DECLINED
//   PENDING --ACCESS_REQUEST_TTL_SECONDS pass--> EXPIRED   (evaluated at read time on the injected clock)
// DECLINED, WITHDRAWN and EXPIRED are final; the app may then ask again with a new request.
import { recordAccessRequestEvent } from "./grant-events.js";
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import { serviceError } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import {
  createAccessRequestQueries,
  effectiveState,
  type AccessRequestListRow,
  type AccessRequestRow,
  type AccessRequestState,
} from "./queries/access-request-queries.js";
import { findMerchant, findMerchantUser, lockApp } from "../credential/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Region } from "../config/regions.js";
import { companyHasStores } from "../data/index.js";

/** At most this many stores in one request: a bound on the row and on the consent page. */
export const maxRequestedStores = 500;

/** A request as its readers see it: the row, with the state it has now (expiry applied). */
export type AccessRequest = AccessRequestRow & { state: AccessRequestState };
export type ListedAccessRequest = AccessRequestListRow & { state: AccessRequestState };

export interface AccessRequestsDeps {
  /** The control database's pool. */
  sql: postgres.Sql;
  config: Pick<Config, "lifetimes">;
  clock: Clock;
  logger: Logger;
  /**
   * A region's database, when this process has it: requested stores are then checked to be the merchant's own.
   * Without it (the region runs elsewhere) the ids are taken as given; the owner sees them before approving.
   */
  regionSql?: (region: Region) => SqlClient | undefined;
  /** The raising service's full name. */
  domain: string;
}

export interface AccessRequests {
  create(request: { appId: string; companyId: number; storeIds: number[] }): Promise<AccessRequest>;
  get(id: number): Promise<AccessRequest>;
  listForCompany(companyId: number): Promise<ListedAccessRequest[]>;
  listForApp(appId: string): Promise<AccessRequest[]>;
  /** The owner approves; `storeIds` empty means every requested store, otherwise a subset of them. */
  approve(id: number, userId: number, storeIds: number[]): Promise<AccessRequest>;
  decline(id: number, userId: number): Promise<AccessRequest>;
  withdraw(id: number, userId: number): Promise<AccessRequest>;
  /** The stores the app's approved request for the company names; undefined when none is approved now. */
  access(appId: string, companyId: number): Promise<number[] | undefined>;
}

const validId = (value: number) => Number.isSafeInteger(value) && value > 0;

export function createAccessRequests(deps: AccessRequestsDeps): AccessRequests {
  const { sql, config, clock, logger, domain } = deps;
  const now = () => new Date(clock.now());
  const invalid = (fields: string) => serviceError(domain, "developer.invalid_request", { fields });
  const withState = <R extends AccessRequestRow>(row: R, at: Date): R & { state: AccessRequestState } => ({
    ...row,
    state: effectiveState(row, at),
  });

  /** Every requested store exists in the merchant's region (when this process holds that region's database). */
  async function checkStores(region: Region, companyId: number, storeIds: number[]): Promise<void> {
    const regional = deps.regionSql?.(region);
    if (!regional) return;
    if (!(await companyHasStores(regional, region, companyId, storeIds)))
      throw invalid("store_ids (unknown stores of this merchant)");
  }

  /** The signed-in user deciding must be the owner of the request's merchant. */
  async function checkOwner(tx: SqlClient, userId: number, companyId: number): Promise<void> {
    const user = await findMerchantUser(tx, userId);
    if (!user || user.companyId !== companyId || user.role !== "OWNER")
      throw serviceError(domain, "developer.merchant_owner_required");
  }

  /** Locks the request, checks the decider, and runs `change`; a failed conditional update tells the state. */
  async function decide(
    id: number,
    userId: number,
    change: (tx: SqlClient, row: AccessRequestRow, at: Date) => Promise<AccessRequestRow | undefined>,
    refusal: "developer.access_request_not_pending" | "developer.access_request_not_approved",
  ): Promise<AccessRequest> {
    if (!validId(id)) throw serviceError(domain, "developer.access_request_not_found");
    const at = now();
    const changed = await sql.begin(async (tx: SqlClient) => {
      const row = await createAccessRequestQueries(tx).find(id, { lock: true });
      if (!row) throw serviceError(domain, "developer.access_request_not_found");
      await checkOwner(tx, userId, row.company_id);
      const updated = await change(tx, row, at);
      if (!updated) throw serviceError(domain, refusal, { state: effectiveState(row, at) });
      await recordAccessRequestEvent(tx, updated, updated.state as "APPROVED" | "DECLINED" | "WITHDRAWN", at);
      return updated;
    });
    return withState(changed, at);
  }

  return {
    async create(request) {
      const storeIds = [...new Set(request.storeIds)];
      if (storeIds.length === 0 || storeIds.length > maxRequestedStores || !storeIds.every(validId)) {
        throw invalid(`store_ids (1 to ${maxRequestedStores} store ids)`);
      }
      if (!validId(request.companyId)) throw invalid("company_id");
      const at = now();
      // The stores are checked first, outside the transaction: the region's database may be this very pool, and
      // the embedded database has one connection (a query on the pool inside `begin` would wait for itself).
      const target = await findMerchant(sql, request.companyId);
      if (target && !target.demo) await checkStores(target.region, target.company_id, storeIds);
      const created = await sql.begin(async (tx: SqlClient) => {
        // The app's row lock orders this request after any archive or review change running now.
        const app = await lockApp(tx, request.appId);
        if (!app) throw serviceError(domain, "developer.app_not_found");
        if (app.state === "ARCHIVED") throw serviceError(domain, "developer.app_archived");
        if (app.product !== "ADSR") throw invalid("app_id (access requests exist for ADSR apps only)");
        // Access requests are for production keys: sandbox keys reach the organization's sandbox merchants anyway.
        if (app.state !== "APPROVED") throw serviceError(domain, "developer.app_not_approved");
        const merchant = await findMerchant(tx, request.companyId);
        if (!merchant) throw serviceError(domain, "developer.merchant_not_found");
        if (merchant.demo) throw serviceError(domain, "developer.env_mismatch");
        if (!merchant.active) throw serviceError(domain, "developer.merchant_inactive");
        const requests = createAccessRequestQueries(tx);
        for (const expired of await requests.expireStale(app.id, merchant.company_id, at))
          await recordAccessRequestEvent(tx, expired, "EXPIRED", at);
        const row = await requests.insert({
          appId: app.id,
          companyId: merchant.company_id,
          storeIds,
          now: at,
          expiresAt: new Date(at.getTime() + config.lifetimes.accessRequest * 1000),
        });
        if (!row) throw serviceError(domain, "developer.access_request_exists");
        return row;
      });
      logger.info("access request created", {
        accessRequestId: created.id,
        appId: created.app_id,
        companyId: created.company_id,
      });
      return withState(created, at);
    },

    async get(id) {
      const row = validId(id) ? await createAccessRequestQueries(sql).find(id) : undefined;
      if (!row) throw serviceError(domain, "developer.access_request_not_found");
      return withState(row, now());
    },

    async listForCompany(companyId) {
      const at = now();
      return (await createAccessRequestQueries(sql).listForCompany(companyId)).map((row) => withState(row, at));
    },

    async listForApp(appId) {
      const at = now();
      return (await createAccessRequestQueries(sql).listForApp(appId)).map((row) => withState(row, at));
    },

    async approve(id, userId, storeIds) {
      const approved = await decide(
        id,
        userId,
        async (tx, row, at) => {
          const chosen = storeIds.length === 0 ? row.store_ids : [...new Set(storeIds)];
          const requested = new Set(row.store_ids);
          if (!chosen.every((store) => requested.has(store)))
            throw invalid("store_ids (only stores the app requested)");
          return createAccessRequestQueries(tx).approve(row.id, chosen, userId, at);
        },
        "developer.access_request_not_pending",
      );
      logger.info("access request approved", {
        accessRequestId: id,
        userId,
        stores: approved.approved_store_ids?.length,
      });
      return approved;
    },

    async decline(id, userId) {
      const declined = await decide(
        id,
        userId,
        (tx, row, at) => createAccessRequestQueries(tx).decline(row.id, userId, at),
        "developer.access_request_not_pending",
      );
      logger.info("access request declined", { accessRequestId: id, userId });
      return declined;
    },

    async withdraw(id, userId) {
      const withdrawn = await decide(
        id,
        userId,
        (tx, row, at) => createAccessRequestQueries(tx).withdraw(row.id, userId, at),
        "developer.access_request_not_approved",
      );
      logger.info("access request approval withdrawn", { accessRequestId: id, userId });
      return withdrawn;
    },

    async access(appId, companyId) {
      const row = await createAccessRequestQueries(sql).findOpen(appId, companyId);
      if (row?.state !== "APPROVED" || !row.approved_store_ids) return undefined;
      return row.approved_store_ids;
    },
  };
}

/**
 * Marks pending requests past their expiry as EXPIRED, each with its access_request.expired event in the same
 * transaction; the delivery workers run it every minute. The number expired.
 */
export async function expireDueAccessRequests(sql: postgres.Sql, now: Date): Promise<number> {
  return sql.begin(async (tx: SqlClient) => {
    const expired = await createAccessRequestQueries(tx).expireDue(now, 500);
    for (const row of expired) await recordAccessRequestEvent(tx, row, "EXPIRED", now);
    return expired.length;
  });
}
