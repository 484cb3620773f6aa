// Queries of a region's employees (region_<r>.employees): who a partner's write is attributed to.
import type { SqlClient } from "../../storage/sql-client.js";
import { regionTable } from "./region-tables.js";

/** The employee queries of one region schema, over `sql`. */
export function createEmployeeQueries(sql: SqlClient, schema: string) {
  const employees = regionTable(sql, schema, "employees");
  return {
    /**
     * The employee a partner's writes are attributed to: the company's oldest employee record (the owner's, made
     * with the merchant). Undefined when the company has none.
     */
    async actingEmployeeId(companyId: number): Promise<number | undefined> {
      const [row] = await sql<{ id: number }[]>`
        select id from ${employees} where company_id = ${companyId} order by id limit 1`;
      return row?.id;
    },
  };
}
