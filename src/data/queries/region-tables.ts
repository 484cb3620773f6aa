// What the region query modules share: schema-qualified table names, so a DataService of one region can only ever
// address that region's schema, and reading which named constraint a write broke.
import type { SqlClient } from "../../storage/sql-client.js";

/** The schema-qualified identifier of `table` (e.g. region_in.items) as a postgres.js fragment. */
export function regionTable(sql: SqlClient, schema: string, table: string) {
  return sql(`${schema}.${table}`);
}

/** The name of the constraint a Postgres error was raised by (unique_violation 23505, foreign_key_violation 23503). */
export function violatedConstraint(error: unknown, sqlState: "23505" | "23503"): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, constraint_name: constraint } = error as { code?: unknown; constraint_name?: unknown };
  return code === sqlState && typeof constraint === "string" ? constraint : undefined;
}
