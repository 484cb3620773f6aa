// Opens the one postgres.js client of the process: a pool on a real server when a URL is given, otherwise the
// embedded PGlite default behind a local socket. Query code takes `sql` as a parameter and never knows which.
// Every wait on the server is bounded (docs/decisions.md, "Storage": PostgreSQL outage), so a stopped or
// unreachable database fails a call within seconds (503 server.database_unavailable) instead of hanging it.
import postgres from "postgres";
import type { Logger } from "../runtime/logger.js";
import { storageSpansOn } from "../runtime/tracing.js";
import { startEmbeddedPostgres } from "./embedded-postgres.js";
import { openWatchedSocket } from "./reply-deadline.js";
import { tracedSql, type SqlSpanTarget } from "./traced-sql.js";

/** The database handle every query module receives its `sql` from. */
export interface Database {
  sql: postgres.Sql;
  /** True when this is the in-process PGlite (one connection; no pool parallelism). */
  embedded: boolean;
  /** Ends the pool, then (embedded) the socket server and PGlite. */
  close(): Promise<void>;
  /** Whether the server answers a trivial query within `timeoutMs` (readiness, /readyz). Never throws. */
  ping(timeoutMs: number): Promise<boolean>;
  /**
   * Calls `onNotify` with the payload of each NOTIFY on `channel`, delivered when its transaction commits (LISTEN).
   * A latency hint only: a notification sent while the listening connection was down is lost, so whoever listens
   * also polls, and calls `rearm` when a poll finds what no notification announced.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<Listening>;
}

/** A LISTEN in place. */
export interface Listening {
  /** LISTENs again (after a reconnect may have lost it). */
  rearm(): Promise<void>;
}

/** The bounds on waiting for the server; DATABASE_CONNECT_TIMEOUT_SECONDS and DATABASE_QUERY_TIMEOUT_SECONDS. */
export interface DatabaseTimeouts {
  /** A connection attempt (TCP, TLS, startup) gives up after this long (postgres.js `connect_timeout`). */
  connectSeconds: number;
  /**
   * A statement is cancelled by the server after this long (`statement_timeout`, SQLSTATE 57014), and a transaction
   * left idle by its client is ended after twice as long (`idle_in_transaction_session_timeout`). The client gives up
   * on a connection that has not answered for one second more (src/storage/reply-deadline.ts), which covers a server
   * or a path that stops answering with the connection still open.
   */
  querySeconds: number;
}

/** How much longer than statement_timeout the client waits: the server's cancellation must have time to arrive. */
const replyMarginMs = 1_000;

export const defaultDatabaseTimeouts: DatabaseTimeouts = { connectSeconds: 2, querySeconds: 5 };

/**
 * The pause before a new connection attempt after failed ones, in seconds: doubling from 50 ms, jittered, at most
 * one second. postgres.js's own grows to 20 s (3^n / 100) over an outage and is paid by the first query after it,
 * which is what made calls hang 10 to 15 seconds and recovery take as long; a refused connect costs the server
 * nothing, so retrying within a second is cheap.
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1) * (0.5 + Math.random() / 2);
}

/** Keep-alive probes start after this many idle seconds, so a silently dropped peer is noticed sooner than 60 s. */
const keepAliveSeconds = 10;

export interface OpenDatabaseOptions {
  /** A postgres:// URL; absent means the embedded PGlite default. */
  url?: string;
  /** Where the embedded database keeps its files (`<dataDir>/pg`), or ":memory:". Unused with a URL. */
  dataDir: string;
  logger: Logger;
  /** Pool size on a real server (default 10). Ignored when embedded, which always uses one connection. */
  poolSize?: number;
  /** Default: defaultDatabaseTimeouts. */
  timeouts?: DatabaseTimeouts;
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

/**
 * postgres.js reads the server's array types (`fetch_types`) on every new connection, before its first query. A
 * connection killed during that read (a restart under traffic) leaves the read's promise to reject unhandled, which
 * ends the process (porsager/postgres#1223, open in 3.4.9). We use only built-in array types (bigint[]), which
 * never change, so the first connection reads them into the pool's shared parsers and no later one reads again.
 */
async function readArrayTypesOnce(sql: postgres.Sql): Promise<void> {
  await sql`select 1`;
  (sql.options as { fetch_types: boolean }).fetch_types = false;
}

/** Opens the database: a pool on `url`, or the embedded PGlite when there is none. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const timeouts = options.timeouts ?? defaultDatabaseTimeouts;
  if (options.url) {
    const sql = createClient(options.url, options.poolSize ?? 10, options.logger, timeouts, true);
    await readArrayTypesOnce(sql).catch(async (error: unknown) => {
      await sql.end({ timeout: 0 });
      throw error;
    });
    const { hostname, port, pathname } = new URL(options.url);
    return {
      sql: withStatementSpans(sql, {
        database: decodeURIComponent(pathname.slice(1)) || "postgres",
        host: hostname,
        port: Number(port || 5432),
      }),
      embedded: false,
      close: () => sql.end({ timeout: 5 }),
      ping: (timeoutMs) => ping(sql, timeoutMs),
      // postgres.js LISTENs on a connection of its own and LISTENs again when that connection closes, but gives the
      // channel up when that first try fails (the server still down): rearm starts it anew.
      async listen(channel, onNotify) {
        let current = await sql.listen(channel, onNotify);
        return {
          async rearm() {
            await current.unlisten().catch(() => {});
            current = await sql.listen(channel, onNotify);
          },
        };
      },
    };
  }
  const server = await startEmbeddedPostgres({ dataDir: options.dataDir, logger: options.logger, maxConnections: 1 });
  // One connection: PGlite serialises queries anyway, and statements from several connections interleave badly.
  // No reply deadline on the socket: the embedded database runs in this process over loopback, so no network can
  // go silent between them, and a slow answer only means this process is busy (a migration on a loaded machine
  // took longer than the deadline and failed the start). statement_timeout still bounds every statement.
  // PGlite is one session: its one connection LISTENs, and the notifications come on it (postgres.js hands a
  // NotificationResponse on any connection to `onnotify`, an option its own listen uses and its types omit).
  const listeners = new Map<string, Set<(payload: string) => void>>();
  const sql = createClient(server.url, 1, options.logger, timeouts, false, (channel, payload) => {
    for (const onNotify of listeners.get(channel) ?? []) onNotify(payload);
  });
  await readArrayTypesOnce(sql);
  const listenOn = (channel: string) => sql.unsafe(`listen "${channel.replace(/"/g, '""')}"`).then(() => {});
  let closing: Promise<void> | undefined;
  return {
    sql: withStatementSpans(sql, { database: "postgres" }),
    embedded: true,
    // Once however often called, as sql.end() is.
    close: () =>
      (closing ??= (async () => {
        await sql.end({ timeout: 5 });
        await server.close();
      })()),
    ping: (timeoutMs) => ping(sql, timeoutMs, () => closing === undefined),
    async listen(channel, onNotify) {
      listeners.set(channel, (listeners.get(channel) ?? new Set()).add(onNotify));
      await listenOn(channel);
      return { rearm: () => listenOn(channel) };
    },
  };
}

/** `sql`, its statements in spans when TRACE_STORAGE_SPANS=1 asked for them (./traced-sql.ts); else `sql` itself. */
function withStatementSpans(sql: postgres.Sql, target: SqlSpanTarget): postgres.Sql {
  return storageSpansOn() ? tracedSql(sql, target) : sql;
}

/**
 * `select 1` raced against a timer: the query may stay queued in postgres.js, the answer does not wait for it.
 * `whenLate` is the answer when the timer wins: false for a server over the network (silent is down), the embedded
 * database's own state for PGlite (it runs in this process, one query at a time: a late answer means queued behind
 * this process's own work, and a stuck PGlite would have stopped this process answering anything at all; a closed
 * or broken connection still fails the query, and that is down).
 */
async function ping(sql: postgres.Sql, timeoutMs: number, whenLate: () => boolean = () => false): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(whenLate()), timeoutMs);
  });
  const answered = sql`select 1`.then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

function createClient(
  url: string,
  max: number,
  logger: Logger,
  timeouts: DatabaseTimeouts,
  watchReplies: boolean,
  onnotify?: (channel: string, payload: string) => void,
): postgres.Sql {
  return postgres(url, {
    max,
    types: { int8: int8AsNumber },
    connect_timeout: timeouts.connectSeconds,
    backoff: reconnectDelaySeconds,
    keep_alive: keepAliveSeconds,
    ...(onnotify && { onnotify }),
    // NOTICE lines (e.g. "relation already exists, skipping") are expected; keep them out of stdout.
    onnotice: (notice) => logger.debug("postgres notice", { message: notice.message }),
    connection: {
      application_name: "partner-api",
      statement_timeout: timeouts.querySeconds * 1000,
      // A transaction whose client stopped talking (its connection destroyed below while the path was down) must
      // not hold its locks or its half-done writes: the server rolls it back.
      idle_in_transaction_session_timeout: timeouts.querySeconds * 2000,
    },
    // Our own socket, destroyed when a reply is overdue (reply-deadline.ts): postgres.js has no client-side deadline.
    // postgres.js takes a `socket` factory that its type declarations do not list: passed by spread, not cast.
    ...(watchReplies && {
      socket: (options: { host: string[]; port: number[]; path?: string | false }) =>
        openWatchedSocket(options.path ? { path: options.path } : { host: options.host[0]!, port: options.port[0]! }, {
          replyMs: timeouts.querySeconds * 1000 + replyMarginMs,
        }),
    }),
  });
}

/** What /readyz reports: ready when every database answered, else the names of those that did not. */
export interface Readiness {
  ready: boolean;
  down: string[];
}

/** Pings every named database at once, each within `timeoutMs`; a database named twice is pinged once. */
export function readinessOf(
  databases: ReadonlyArray<readonly [string, Database]>,
  timeoutMs: number,
): () => Promise<Readiness> {
  const byDatabase = new Map<Database, string[]>();
  for (const [name, database] of databases) byDatabase.set(database, [...(byDatabase.get(database) ?? []), name]);
  return async () => {
    const answers = await Promise.all(
      [...byDatabase].map(async ([database, names]) => ((await database.ping(timeoutMs)) ? [] : names)),
    );
    const down = answers.flat();
    return { ready: down.length === 0, down };
  };
}
