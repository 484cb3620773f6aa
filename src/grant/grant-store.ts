// Grants as other owners and the edges use them: an app's access to one merchant, checked on every partner call and
// every token, made by an approval or a sandbox mint, ended by a revocation. Plain records and functions, each on
// the `sql` it is given: those that make or end a grant record its event on that `sql`, so they belong inside the
// caller's transaction (the token owner revokes a grant and its refresh families in one).
import type { Merchant } from "../credential/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import { createGrantQueries, type GrantEnvironment, type GrantRow } from "./queries/grant-queries.js";

/** A grant: app, company, environment, when it was made and (once revoked) when it ended. */
export type Grant = GrantRow;
export type { GrantEnvironment };

/** The grant of `grantId`, live or revoked; undefined when there is none. */
export function findGrant(sql: SqlClient, grantId: number): Promise<Grant | undefined> {
  return createGrantQueries(sql).find(grantId);
}

/** The live grant of an app for a company (what partner calls check); undefined when there is none. */
export function findLiveGrant(sql: SqlClient, appId: string, companyId: number): Promise<Grant | undefined> {
  return createGrantQueries(sql).findLive(appId, companyId);
}

/** The live grant of the app for the company, made now (with its grant.created event) if there is none; its id. */
export function ensureLiveGrant(
  sql: SqlClient,
  appId: string,
  companyId: number,
  environment: GrantEnvironment,
  now: Date,
): Promise<number> {
  return createGrantQueries(sql).ensureLive(appId, companyId, environment, now);
}

/** Ends one grant for good (if live), with its grant.revoked event. True when it was live. */
export function revokeGrant(sql: SqlClient, grantId: number, now: Date): Promise<boolean> {
  return createGrantQueries(sql).revoke(grantId, now);
}

/** A merchant and whether the app holds a live grant for it, in one read (a sandbox mint's check). */
export function findMerchantGrantedTo(
  sql: SqlClient,
  companyId: number,
  appId: string,
): Promise<(Merchant & { granted: boolean }) | undefined> {
  return createGrantQueries(sql).merchantForApp(companyId, appId);
}
