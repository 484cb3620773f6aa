// What an ADSR production key may read of a merchant: the stores of the app's approved access request (the gateway
// asks on partner calls, and caches the answer for its bound). A pending, declined, withdrawn or expired request
// grants nothing.
import type { SqlClient } from "../storage/sql-client.js";
import { createAccessRequestQueries } from "./queries/access-request-queries.js";

/** The store ids the app's approved request for the company names; undefined when no request is approved. */
export async function approvedStoreIds(
  sql: SqlClient,
  appId: string,
  companyId: number,
): Promise<number[] | undefined> {
  const row = await createAccessRequestQueries(sql).findOpen(appId, companyId);
  return row && row.state === "APPROVED" && row.approved_store_ids ? row.approved_store_ids : undefined;
}
