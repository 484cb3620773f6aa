// What other owners may ask of a region's stores, in plain values (the grant owner checks an access request's
// stores before it records it); the SQL stays in ./queries/.
import type { Region } from "../config/regions.js";
import { regionSchema } from "../storage/schemas.js";
import type { SqlClient } from "../storage/sql-client.js";
import { createStoreQueries } from "./queries/store-queries.js";

/** Whether every one of `storeIds` is a store of the company, in `region`'s database. */
export async function companyHasStores(
  sql: SqlClient,
  region: Region,
  companyId: number,
  storeIds: readonly number[],
): Promise<boolean> {
  return (
    (await createStoreQueries(sql, regionSchema(region)).countAmong(companyId, storeIds)) === new Set(storeIds).size
  );
}
