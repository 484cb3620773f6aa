// Queries of control.pushed_authorization_requests (RFC 9126). A request_uri is stored only as its SHA-256. Each
// state change is one conditional UPDATE carrying every check (same client, unconsumed, unexpired), so a request
// pushed by another client, used up or expired is never read, and of parallel decisions exactly one consumes it.
// Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";

/** The pushed parameters, by name. */
export type PushedParameters = Record<string, string>;

/** The pushed-request queries over `sql` (the pool, or a transaction's `sql`). */
export function createPushedRequestQueries(sql: SqlClient) {
  return {
    async insert(request: {
      hash: Uint8Array;
      clientId: string;
      parameters: PushedParameters;
      now: Date;
      expiresAt: Date;
    }): Promise<void> {
      await sql`
        insert into control.pushed_authorization_requests
          (request_uri_hash, client_id, parameters, created_at, expires_at)
        values (${request.hash}, ${request.clientId}, ${sql.json(request.parameters)}, ${request.now},
                ${request.expiresAt})`;
    },
    /**
     * The parameters of a live request of `clientId`; the first visit sets opened_at and moves expires_at to
     * `openedUntil` (later visits, a reload, change nothing). Undefined when unknown, another client's, used up or
     * expired: the caller cannot tell which, and neither can whoever holds a stolen request_uri.
     */
    async open(
      hash: Uint8Array,
      clientId: string,
      now: Date,
      openedUntil: Date,
    ): Promise<PushedParameters | undefined> {
      const [row] = await sql<{ parameters: PushedParameters }[]>`
        update control.pushed_authorization_requests
        set expires_at = case when opened_at is null then ${openedUntil} else expires_at end,
            opened_at = coalesce(opened_at, ${now})
        where request_uri_hash = ${hash} and client_id = ${clientId} and consumed_at is null and expires_at > ${now}
        returning parameters`;
      return row?.parameters;
    },
    /** Uses the request up when it is still live; false when it is not (another decision came first). */
    async consume(hash: Uint8Array, clientId: string, now: Date): Promise<boolean> {
      const rows = await sql`
        update control.pushed_authorization_requests set consumed_at = ${now}
        where request_uri_hash = ${hash} and client_id = ${clientId} and consumed_at is null and expires_at > ${now}
        returning 1`;
      return rows.length === 1;
    },
  };
}
