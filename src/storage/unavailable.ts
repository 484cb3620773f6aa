// The one place that tells a database that is unavailable (stopped, restarting, unreachable, out of connections,
// not answering in time) from a query that failed on its own. The front and the internal port's error interceptor
// both ask it, so an outage answers 503 server.database_unavailable with Retry-After, never a 500 (issue 15).

/** Retry-After of server.database_unavailable: a restarted PostgreSQL answers again within seconds. */
export const databaseRetryAfterSeconds = 5;

/** Socket errors: the server's port is closed, the peer reset or vanished, or its name does not resolve. */
const socketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Codes that say the network is down only when a connect failed with them: a route that drops everything (a
 * blackhole or prohibit route, as bench:chaos's partition sets) fails connect() with EINVAL, an interface gone with
 * ENETDOWN or EADDRNOTAVAIL. From another call EINVAL is a bug of ours, so the syscall must be the connect.
 */
const connectCodes = new Set(["EINVAL", "ENETDOWN", "EADDRNOTAVAIL", "EHOSTDOWN"]);

/** postgres.js's own connection errors (node_modules/postgres/src/errors.js). */
const clientCodes = new Set(["CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT"]);

/**
 * SQLSTATEs (PostgreSQL appendix A) that say the server cannot serve now, not that the statement is wrong:
 * 57P01 admin_shutdown (a fast stop), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting or stopping),
 * 53300 too_many_connections, 57014 query_canceled (our statement_timeout), and class 08, connection exception.
 * 25006 read_only_sql_transaction: the service never opens a read-only transaction, so a write refused as read-only
 * reached a server still in recovery, a standby being promoted that Patroni already reports as the primary
 * (HAProxy routes to it on that check): bench:chaos's PostgreSQL kill drew three 500s from it. Nothing was written,
 * and the same session writes once the promotion ends.
 */
const serverStates = new Set(["57P01", "57P02", "57P03", "53300", "57014", "25006"]);

/** True when `error` (or an error it wraps, through `cause` or an AggregateError) says the database is unavailable. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || error === null || typeof error !== "object") return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (socketCodes.has(code) || clientCodes.has(code) || serverStates.has(code)) return true;
    if (connectCodes.has(code) && (error as { syscall?: unknown }).syscall === "connect") return true;
    // Only a PostgresError carries a five-character SQLSTATE; class 08 is a connection exception.
    if ((error as { name?: unknown }).name === "PostgresError" && code.startsWith("08")) return true;
  }
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1)))
    return true;
  return "cause" in error && isDatabaseUnavailable((error as { cause?: unknown }).cause, depth + 1);
}
