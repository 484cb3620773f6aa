// Opens the one postgres.js client of the process: a pool on a real server when a URL is given, otherwise the
// embedded PGlite default behind a local socket. Query code takes `sql` as a parameter and never knows which.
import postgres from "postgres";
import type { Logger } from "../runtime/logger.js";
import { startEmbeddedPostgres } from "./embedded-postgres.js";

/** The database handle every query module receives its `sql` from. */
export interface Database {
  sql: postgres.Sql;
  /** True when this is the in-process PGlite (one connection; no pool parallelism). */
  embedded: boolean;
  /** Ends the pool, then (embedded) the socket server and PGlite. */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A postgres:// URL; absent means the embedded PGlite default. */
  url?: string;
  /** Where the embedded database keeps its files (`<dataDir>/pg`), or ":memory:". Unused with a URL. */
  dataDir: string;
  logger: Logger;
  /** Pool size on a real server (default 10). Ignored when embedded, which always uses one connection. */
  poolSize?: number;
}

/** Postgres type oid of int8 (bigint). */
const int8Oid = 20;

/**
 * bigint columns (ids, company ids, amounts in minor units) come back as JavaScript numbers, not the strings
 * postgres.js returns by default, nor JS BigInt, which JSON.stringify rejects and `===` against numbers misses.
 * Every value we store is far below 2^53; a larger one is a bug, so we throw rather than silently round.
 * We keep the bigint column type (rather than integer) because company ids and money totals may exceed 2^31.
 */
const int8AsNumber = {
  to: int8Oid,
  from: [int8Oid],
  serialize: (value: number | bigint) => String(value),
  parse: (text: string) => {
    const value = Number(text);
    if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} does not fit a JavaScript number`);
    return value;
  },
};

/** Opens the database: a pool on `url`, or the embedded PGlite when there is none. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) {
    const sql = createClient(options.url, options.poolSize ?? 10, options.logger);
    return { sql, embedded: false, close: () => sql.end({ timeout: 5 }) };
  }
  const server = await startEmbeddedPostgres({ dataDir: options.dataDir, logger: options.logger, maxConnections: 1 });
  // One connection: PGlite serialises queries anyway, and statements from several connections interleave badly.
  const sql = createClient(server.url, 1, options.logger);
  return {
    sql,
    embedded: true,
    close: async () => {
      await sql.end({ timeout: 5 });
      await server.close();
    },
  };
}

function createClient(url: string, max: number, logger: Logger): postgres.Sql {
  return postgres(url, {
    max,
    types: { int8: int8AsNumber },
    // NOTICE lines (e.g. "relation already exists, skipping") are expected; keep them out of stdout.
    onnotice: (notice) => logger.debug("postgres notice", { message: notice.message }),
    connection: { application_name: "partner-api" },
  }) as unknown as postgres.Sql;
}
