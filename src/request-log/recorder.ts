// The partner request log's writer, kept off the request path: the front hands each answered partner call to
// `record`, which only appends to memory (a push onto each column and two counter bumps); a timer flushes the batch
// to the control database every FLUSH interval in one transaction. Bounded: at most `maxBuffered` calls wait; past that,
// calls are dropped from the log (counted, warned once a flush) while the per-minute usage and the last-call times
// stay exact (they are counters, bounded by apps × minutes, not by calls). A failed flush drops its batch with a
// warning: the log is an aid, never a reason to slow or fail a partner call. A process killed without close() drops
// what it had not committed: the buffer and the batch in flight, about two flush intervals (at most 2 × maxBuffered
// calls), as the spec's "last 1,000 calls" allows. docs/decisions.md, "Partner request log".
import type postgres from "postgres";
import type { Logger } from "../runtime/logger.js";
import type { Clock } from "../runtime/clock.js";
import type { SqlClient } from "../storage/sql-client.js";
import {
  createRequestLogQueries,
  emptyCallColumns,
  type LoggedEnvironment,
  type PartnerCallColumns,
} from "./request-log-queries.js";

/** What the front knows of an answered partner call whose app is known. */
export interface PartnerCallRecord {
  appId: string;
  environment: LoggedEnvironment;
  /** When it was answered (the injected clock), ms since the epoch. */
  at: number;
  method: string;
  path: string;
  status: number;
  errorCode?: string;
  companyId?: number;
  correlationId: string;
  latencyMs: number;
  /** The error body the partner received; only for a refused call (never a success's body, never a secret). */
  errorBody?: object;
  /**
   * False for a call outside the per-app limit (the token endpoints' calls of an app, identified by the client id it
   * sent): in the log, not in the usage chart's requests a minute, which are measured against that limit.
   */
  countsInUsage?: boolean;
}

export interface RequestRecorder {
  /** Takes a call into the buffer; never waits, never throws. */
  record(call: PartnerCallRecord): void;
  /** Writes what is buffered now (the timer does this; a reader in the same process may, to see its own calls). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export interface RequestRecorderOptions {
  sql: postgres.Sql;
  clock: Clock;
  logger: Logger;
  /** How often the buffer is written (REQUEST_LOG_FLUSH_MS). */
  flushIntervalMs: number;
  /** Calls kept per app and environment (the console shows "the last 1,000"). */
  keepPerApp?: number;
  /** Calls that may wait for a flush; more are dropped from the log, not from the usage counts. */
  maxBuffered?: number;
}

/** The spec of the issue: the last 1,000 partner calls per app and environment. */
export const keptCallsPerApp = 1000;
/**
 * How often a pair's trim starts again from the first id rather than from where this process's last trim stopped:
 * calls another process inserted below that point (its transaction committed after this one's trim) go within it.
 */
const fullTrimEveryMs = 10 * 60_000;
/** A trim's `after` when it starts from the first id: below any id, those written with `overriding system value` too. */
const fromTheStart = -Number.MAX_SAFE_INTEGER;
/** The usage chart's window is 24 hours; an hour more is kept so a chart drawn at a minute's edge is whole. */
const usageKeptMs = 25 * 3600_000;
/** A stored path is cut here (a route's path is short; a long one is a client's mistake, not worth the space). */
const maxPathLength = 300;
/** An error body is at most this long (our envelopes are a few hundred bytes; a field list can be longer). */
const maxErrorBodyLength = 8_000;

/**
 * The batch without the calls its own trim would delete in the same transaction: of a pair (app, environment) with
 * more than `keep` calls in the batch, only its newest `keep` (the batch is in call order, and ids are given in that
 * order, so the older ones would fall below the pair's cutoff whatever other processes insert). What the table holds
 * after the commit is the same; PostgreSQL inserts and deletes at most `keep` rows of a pair per flush instead of
 * every call (issue 43: at thousands of calls a second from one app, most of the log's cost).
 */
function newestOfEachPair(
  batch: PartnerCallColumns,
  keep: number,
): { batch: PartnerCallColumns; capped: ReadonlySet<string> } {
  const size = batch.app_id.length;
  const none = new Set<string>();
  if (size <= keep) return { batch, capped: none };
  const left = new Map<string, number>();
  for (let index = 0; index < size; index++) {
    const pair = `${batch.app_id[index]}\u0000${batch.environment[index]}`;
    left.set(pair, (left.get(pair) ?? 0) + 1);
  }
  const capped = new Set([...left].filter(([, count]) => count > keep).map(([pair]) => pair));
  if (capped.size === 0) return { batch, capped };
  const kept = emptyCallColumns();
  const columns = Object.keys(kept) as Array<keyof PartnerCallColumns>;
  for (let index = 0; index < size; index++) {
    const pair = `${batch.app_id[index]}\u0000${batch.environment[index]}`;
    const later = left.get(pair)! - 1;
    left.set(pair, later);
    // `later` calls of the pair come after this one in the batch: it is among the newest `keep` when fewer than keep do.
    if (later >= keep) continue;
    for (const column of columns) (kept[column] as unknown[]).push(batch[column][index]);
  }
  return { batch: kept, capped };
}

export function createRequestRecorder(options: RequestRecorderOptions): RequestRecorder {
  const { sql, clock, logger, flushIntervalMs } = options;
  const keep = options.keepPerApp ?? keptCallsPerApp;
  const maxBuffered = options.maxBuffered ?? 5_000;
  let calls = emptyCallColumns();
  /** app \0 env \0 minute → [requests, 429s] */
  let usage = new Map<string, [number, number]>();
  /** app \0 company → latest ms */
  let lastCalls = new Map<string, number>();
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();
  let lastUsageTrim = 0;
  /** app \0 env → the cutoff of this process's last trim of the pair (calls at or below it are deleted). */
  let trimmedUpTo = new Map<string, number>();
  let lastFullTrim = clock.now();

  const countUsage = (call: PartnerCallRecord): void => {
    const minute = call.at - (call.at % 60_000);
    const usageKey = `${call.appId}\u0000${call.environment}\u0000${minute}`;
    const counts = usage.get(usageKey);
    const limited = call.status === 429 ? 1 : 0;
    if (counts) {
      counts[0] += 1;
      counts[1] += limited;
    } else usage.set(usageKey, [1, limited]);
  };

  const record = (call: PartnerCallRecord): void => {
    if (call.countsInUsage !== false) countUsage(call);
    if (call.companyId !== undefined) {
      const callKey = `${call.appId}\u0000${call.companyId}`;
      if ((lastCalls.get(callKey) ?? 0) < call.at) lastCalls.set(callKey, call.at);
    }
    if (calls.app_id.length >= maxBuffered) {
      dropped += 1;
      return;
    }
    calls.app_id.push(call.appId);
    calls.environment.push(call.environment);
    calls.at.push(call.at);
    calls.method.push(call.method.slice(0, 16));
    calls.path.push(call.path.slice(0, maxPathLength));
    calls.status.push(call.status);
    calls.error_code.push(call.errorCode ?? null);
    calls.company_id.push(call.companyId ?? null);
    calls.correlation_id.push(call.correlationId);
    calls.latency_ms.push(call.latencyMs);
    // Serialised at flush time would keep a reference to the live object; the body is small and final here.
    calls.error_body.push(call.errorBody ? JSON.stringify(call.errorBody).slice(0, maxErrorBodyLength) : null);
  };

  const write = async (): Promise<void> => {
    if (calls.app_id.length === 0 && usage.size === 0 && lastCalls.size === 0) return;
    const { batch, capped } = newestOfEachPair(calls, keep);
    const written = calls.app_id.length;
    const minutes = usage;
    const touched = lastCalls;
    const lost = dropped;
    calls = emptyCallColumns();
    usage = new Map();
    lastCalls = new Map();
    dropped = 0;
    if (lost > 0)
      logger.warn("partner request log: buffer full, calls left out of the log", { dropped: lost, maxBuffered });
    const usageRows = [...minutes].map(([key, [requests, limited]]) => {
      const [app_id, environment, minute] = key.split("\u0000") as [string, LoggedEnvironment, string];
      return { app_id, environment, minute: new Date(Number(minute)), requests, limited };
    });
    const lastCallRows = [...touched].map(([key, at]) => {
      const [app_id, company] = key.split("\u0000") as [string, string];
      return { app_id, company_id: Number(company), at: new Date(at) };
    });
    // Every pair with calls in the log's batch or in the usage counts (a call outside the usage, a token endpoint's,
    // still fills its pair's log, which the trim keeps at `keep`).
    const pairs = new Map<string, { app_id: string; environment: LoggedEnvironment }>();
    for (const row of usageRows) pairs.set(`${row.app_id}\u0000${row.environment}`, row);
    for (let index = 0; index < batch.app_id.length; index++) {
      const row = { app_id: batch.app_id[index]!, environment: batch.environment[index]! };
      pairs.set(`${row.app_id}\u0000${row.environment}`, row);
    }
    const now = clock.now();
    const before = new Date(now - usageKeptMs);
    let cutoffs: Array<{ app_id: string; environment: string; cutoff: number }> = [];
    try {
      await sql.begin(async (tx: SqlClient) => {
        const queries = createRequestLogQueries(tx);
        // One statement: its columns travel as eleven array parameters, whatever the batch's size.
        await queries.insertCalls(batch);
        await queries.addUsage(usageRows);
        await queries.touchLastCalls(lastCallRows);
        if (now - lastFullTrim >= fullTrimEveryMs) {
          trimmedUpTo = new Map();
          lastFullTrim = now;
        }
        cutoffs = await queries.trim(
          [...pairs.entries()].map(([pair, row]) => ({
            app_id: row.app_id,
            environment: row.environment,
            after: trimmedUpTo.get(pair) ?? fromTheStart,
            capped: capped.has(pair),
          })),
          keep,
        );
        // The usage table loses its old minutes once a minute at most.
        if (now - lastUsageTrim >= 60_000) {
          await queries.trimUsage(before);
          lastUsageTrim = now;
        }
      });
      // Only once the transaction has committed: a rolled-back trim deleted nothing.
      for (const row of cutoffs) trimmedUpTo.set(`${row.app_id}\u0000${row.environment}`, Number(row.cutoff));
    } catch (cause) {
      logger.warn("partner request log: a batch could not be written and is dropped", {
        calls: written,
        error: cause,
      });
    }
  };

  // One flush at a time, in order; a flush asked during another runs after it.
  const flush = (): Promise<void> => (writing = writing.then(write, write));
  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref();

  return {
    record,
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
