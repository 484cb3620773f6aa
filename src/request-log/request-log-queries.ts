// Queries of the partner request log (control.partner_requests, partner_usage_minutes, partner_last_calls): the
// recorder's batch writes and trims, and the console's and consent site's reads. SQL lives here and nowhere else.
import type { SqlClient } from "../storage/sql-client.js";

export type LoggedEnvironment = "SANDBOX" | "PRODUCTION";

/** One partner call as the log keeps it. */
export interface PartnerCallRow {
  app_id: string;
  environment: LoggedEnvironment;
  at: Date;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  company_id: number | null;
  correlation_id: string;
  latency_ms: number;
  /** The rendered error body of a refused call; null for a success (its body is never kept). */
  error_body: string | null;
}

/**
 * A batch of partner calls as the recorder keeps it until its flush: one array per column, `at` in ms since the
 * epoch. A call is eleven pushes, not an object and a Date kept for up to a flush interval (the heap's young
 * generation copies such survivors and then promotes them), and the flush hands the arrays to `unnest` as they are.
 */
export interface PartnerCallColumns {
  app_id: string[];
  environment: LoggedEnvironment[];
  at: number[];
  method: string[];
  path: string[];
  status: number[];
  error_code: Array<string | null>;
  company_id: Array<number | null>;
  correlation_id: string[];
  latency_ms: number[];
  error_body: Array<string | null>;
}

export function emptyCallColumns(): PartnerCallColumns {
  return {
    app_id: [],
    environment: [],
    at: [],
    method: [],
    path: [],
    status: [],
    error_code: [],
    company_id: [],
    correlation_id: [],
    latency_ms: [],
    error_body: [],
  };
}

export interface LoggedCall extends Omit<PartnerCallRow, "error_body"> {
  id: number;
}

export interface UsageMinuteRow {
  minute: Date;
  requests: number;
  limited: number;
}

/**
 * Which calls a reader wants, newest first: a status class ("4xx") or one status ("429"), a merchant, a time range
 * (from inclusive, to exclusive, ms since the epoch), a path's start, a method, a correlation id's start.
 */
export interface LogFilter {
  appId: string;
  environment: LoggedEnvironment;
  status?: string;
  companyId?: number;
  fromMs?: number;
  toMs?: number;
  pathPrefix?: string;
  method?: string;
  correlationId?: string;
  limit: number;
}

/** `text` as the start of a LIKE pattern: its own %, _ and \ matched as themselves. */
function startsWith(text: string): string {
  return `${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

const listColumns =
  "id, app_id, environment, at, method, path, status, error_code, company_id, correlation_id, latency_ms";

export function createRequestLogQueries(sql: SqlClient) {
  return {
    /**
     * One statement for the whole batch, its text the same whatever the batch's size: columns as arrays through
     * unnest. A multi-row VALUES has one text per row count, so PostgreSQL parsed and planned a new statement of up
     * to 11,000 parameters on nearly every flush, and each connection kept one prepared statement per count seen.
     */
    async insertCalls(calls: PartnerCallColumns): Promise<void> {
      if (calls.app_id.length === 0) return;
      // `at` travels as ms since the epoch; to_timestamp keeps microseconds, so the ms are exact.
      await sql`
        insert into control.partner_requests
          (app_id, environment, at, method, path, status, error_code, company_id, correlation_id, latency_ms, error_body)
        select app_id, environment, to_timestamp(at_ms / 1000.0), method, path, status, error_code, company_id,
               correlation_id, latency_ms, error_body
        from unnest(
          ${calls.app_id}::text[], ${calls.environment}::text[], ${calls.at}::float8[], ${calls.method}::text[],
          ${calls.path}::text[], ${calls.status}::smallint[], ${calls.error_code}::text[],
          ${calls.company_id}::bigint[], ${calls.correlation_id}::text[], ${calls.latency_ms}::real[],
          ${calls.error_body}::text[])
          as call (app_id, environment, at_ms, method, path, status, error_code, company_id, correlation_id,
                   latency_ms, error_body)`;
    },

    /**
     * Keeps the newest `keep` calls of each app and environment named, in one statement: per pair, the id of the
     * first call past the newest `keep` (one index range scan), and the calls at or below it and above the pair's
     * `after` go. `after` is where this process's previous trim of the pair stopped (0: from the start): the rows
     * below it are deleted already, and a range from 0 would walk their dead index entries again on every flush
     * until vacuum (at 4,600 calls a second that was 110 µs of PostgreSQL CPU per call). Answers each pair's cutoff,
     * its next `after`.
     */
    async trim(
      pairs: ReadonlyArray<{ app_id: string; environment: LoggedEnvironment; after: number; capped?: boolean }>,
      keep: number,
    ): Promise<Array<{ app_id: string; environment: LoggedEnvironment; cutoff: number }>> {
      if (pairs.length === 0) return [];
      // A `capped` pair had more than `keep` calls in this batch and only its newest `keep` were inserted
      // (recorder.ts, newestOfEachPair): its next `after` is just below the oldest of them, where its trim would
      // have stopped had the older ones been inserted and deleted here.
      return sql<Array<{ app_id: string; environment: LoggedEnvironment; cutoff: number }>>`
        with c as (
          select t.app_id, t.environment, t.after, t.capped,
            (select q.id from control.partner_requests q where q.app_id = t.app_id and q.environment = t.environment
             order by q.id desc offset ${keep} limit 1) as cutoff,
            case when t.capped then
              (select q.id - 1 from control.partner_requests q where q.app_id = t.app_id and q.environment = t.environment
               order by q.id desc offset ${keep - 1} limit 1) end as kept_from
          from json_to_recordset((${JSON.stringify(pairs)}::text)::json)
            as t(app_id text, environment text, after bigint, capped boolean)
        ), gone as (
          delete from control.partner_requests p using c
          where p.app_id = c.app_id and p.environment = c.environment and p.id <= c.cutoff and p.id > c.after
        )
        select app_id, environment, coalesce(kept_from, cutoff) as cutoff from c
        where coalesce(kept_from, cutoff) is not null`;
    },

    /** Adds a batch's per-minute counts to the stored ones (one statement text whatever the batch: unnest). */
    async addUsage(
      rows: ReadonlyArray<{
        app_id: string;
        environment: LoggedEnvironment;
        minute: Date;
        requests: number;
        limited: number;
      }>,
    ): Promise<void> {
      if (rows.length === 0) return;
      await sql`
        insert into control.partner_usage_minutes (app_id, environment, minute, requests, limited)
        select * from unnest(
          ${rows.map((row) => row.app_id)}::text[], ${rows.map((row) => row.environment)}::text[],
          ${rows.map((row) => row.minute.toISOString())}::timestamptz[], ${rows.map((row) => row.requests)}::integer[],
          ${rows.map((row) => row.limited)}::integer[])
        on conflict (app_id, environment, minute) do update
          set requests = partner_usage_minutes.requests + excluded.requests, limited = partner_usage_minutes.limited + excluded.limited`;
    },

    /** Forgets every minute older than `before` (a small table: apps × 1,500 minutes at most). */
    async trimUsage(before: Date): Promise<void> {
      await sql`delete from control.partner_usage_minutes where minute < ${before}`;
    },

    async touchLastCalls(rows: ReadonlyArray<{ app_id: string; company_id: number; at: Date }>): Promise<void> {
      if (rows.length === 0) return;
      await sql`
        insert into control.partner_last_calls (app_id, company_id, at)
        select * from unnest(
          ${rows.map((row) => row.app_id)}::text[], ${rows.map((row) => row.company_id)}::bigint[],
          ${rows.map((row) => row.at.toISOString())}::timestamptz[])
        on conflict (app_id, company_id) do update set at = greatest(partner_last_calls.at, excluded.at)`;
    },

    async list(filter: LogFilter): Promise<LoggedCall[]> {
      const status = filter.status ?? "";
      const classOf = /^[245]xx$/.test(status) ? Number(status[0]) : undefined;
      const exact = /^\d{3}$/.test(status) ? Number(status) : undefined;
      return sql<LoggedCall[]>`
        select ${sql.unsafe(listColumns)} from control.partner_requests
        where app_id = ${filter.appId} and environment = ${filter.environment}
          ${classOf !== undefined ? sql`and status >= ${classOf * 100} and status < ${classOf * 100 + 100}` : sql``}
          ${exact !== undefined ? sql`and status = ${exact}` : sql``}
          ${filter.companyId ? sql`and company_id = ${filter.companyId}` : sql``}
          ${filter.fromMs ? sql`and at >= ${new Date(filter.fromMs)}` : sql``}
          ${filter.toMs ? sql`and at < ${new Date(filter.toMs)}` : sql``}
          ${filter.pathPrefix ? sql`and path like ${startsWith(filter.pathPrefix)}` : sql``}
          ${filter.method ? sql`and method = ${filter.method}` : sql``}
          ${filter.correlationId ? sql`and correlation_id like ${startsWith(filter.correlationId)}` : sql``}
        order by id desc limit ${filter.limit}`;
    },

    async get(appId: string, id: number): Promise<(LoggedCall & { error_body: string | null }) | undefined> {
      const [row] = await sql<(LoggedCall & { error_body: string | null })[]>`
        select ${sql.unsafe(listColumns)}, error_body from control.partner_requests where app_id = ${appId} and id = ${id}`;
      return row;
    },

    async usage(appId: string, environment: LoggedEnvironment, from: Date): Promise<UsageMinuteRow[]> {
      return sql<UsageMinuteRow[]>`
        select minute, requests, limited from control.partner_usage_minutes
        where app_id = ${appId} and environment = ${environment} and minute >= ${from} order by minute`;
    },

    /** When each app last called this merchant. */
    async lastCalls(companyId: number): Promise<Map<string, Date>> {
      const rows = await sql<
        { app_id: string; at: Date }[]
      >`select app_id, at from control.partner_last_calls where company_id = ${companyId}`;
      return new Map(rows.map((row) => [row.app_id, row.at]));
    },
  };
}
