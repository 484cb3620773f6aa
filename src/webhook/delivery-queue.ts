// The delivery queue: pg-boss (docs/decisions.md, "Events and webhooks (the webhook owner)": why pg-boss) in the control database's
// schema `webhook_queue`, through our own postgres.js client: on the embedded PGlite (one connection behind a
// loopback socket) exactly as on a PostgreSQL pool. A job is one attempt of one delivery; it is enqueued in the
// transaction that makes it due (the relay's fan-out, a failed attempt's retry, a resend), fetched by exactly one
// worker of any process (SKIP LOCKED), and grouped by endpoint so that no endpoint holds more than
// WEBHOOK_ENDPOINT_CONCURRENCY attempts at once across every worker (fair scheduling). A process's slots are shared
// between apps by attempt-dispatcher.ts (no app holds more than WEBHOOK_APP_CONCURRENCY of them).
import { PgBoss, type Db as IDatabase } from "pg-boss";
import type postgres from "postgres";
import type { SqlClient } from "../storage/sql-client.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import {
  startAttemptDispatcher,
  type AttemptDispatcher,
  type DispatcherDeps,
  type FetchedAttempt,
} from "./attempt-dispatcher.js";
import { inBatches } from "./batches.js";
import { timeOrderedIds } from "./job-ids.js";

export const deliveryQueueName = "webhook-delivery";
export const queueSchema = "webhook_queue";
const startAttempts = 5;
/**
 * How often an idle process asks for due jobs. A first attempt does not wait for a poll: the relay that enqueued it
 * wakes this process's dispatcher at once (wake), as does every attempt that ends (its slot is free). The poll finds
 * retries coming due and work enqueued by other processes (a resend on a front that delivers nothing): one query a
 * second, as the one polling worker (the sentinel) of the sixteen the dispatcher replaced.
 */
const pollSeconds = 1;
/**
 * How long a freed slot waits for others before the next fetch while attempts still run (attempt-dispatcher.ts): a
 * burst drains in fetches of a few jobs, not one per attempt ended (issue 43), for at most this much delay.
 */
const gatherMs = 3;
/** How long a stop waits for the attempts running (each is bounded by WEBHOOK_TIMEOUT_SECONDS). */
const stopTimeoutMs = 20_000;
/** What a delivery queue's stop may take by its own bounds: the dispatcher's wait, then pg-boss's (src/app: its shutdown step's bound). */
export const deliveryStopBoundMs = 2 * stopTimeoutMs + 5_000;

/** One attempt of one delivery. */
export interface AttemptJob {
  deliveryId: string;
  attempt: number;
}

/** An attempt to enqueue: its job, the endpoint it goes to (its group), and when it is due (absent: now). */
export interface QueuedAttempt {
  job: AttemptJob;
  endpointId: string;
  startAfter?: Date;
}

/**
 * pg-boss's parameterised statements that run prepared: the first `maxPreparedTexts` distinct texts. postgres.js's
 * `unsafe` runs unprepared by default, so PostgreSQL parsed and planned pg-boss's fetch, completion and insert on
 * every call: a statement log of bench:webhooks counted one parse per fetch (1,633 fetches, 0.4 ms each on the
 * backend) and per completion (issue 43). Their texts repeat (queue names, a LIMIT up to the batch size), but a
 * prepared statement lives as long as its connection, so the set is bounded: past it, a new text runs as before.
 */
const preparedTexts = new Set<string>();
const maxPreparedTexts = 64;

function preparable(text: string): boolean {
  if (preparedTexts.has(text)) return true;
  if (preparedTexts.size >= maxPreparedTexts) return false;
  preparedTexts.add(text);
  return true;
}

/**
 * pg-boss's database interface over postgres.js. Parameterised statements run as they are; a parameterless text
 * may hold several statements with its own BEGIN … COMMIT (pg-boss's locked maintenance), which postgres.js runs
 * only on a reserved connection (on a pool it refuses a bare BEGIN, rightly: the next statement could land on
 * another connection).
 */
export function pgBossDatabase(sql: SqlClient, pool: boolean): IDatabase {
  return {
    async executeSql(text, values) {
      if (values && values.length > 0)
        return {
          rows: [
            ...(await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare: preparable(text) })),
          ],
        };
      if (!pool) return { rows: flatten(await sql.unsafe(text)) };
      const reserved = await reserveWithin(sql as postgres.Sql, reserveWaitMs);
      try {
        return { rows: flatten(await reserved.unsafe(text)) };
      } catch (error) {
        // A statement failed inside the text's own BEGIN: the connection goes back to the pool in an aborted
        // transaction unless it is rolled back here (a ROLLBACK outside a transaction only warns).
        await reserved.unsafe("rollback").catch(() => {});
        throw error;
      } finally {
        reserved.release();
      }
    },
  };
}

/**
 * How long a pg-boss statement waits for a connection of its own. postgres.js queues a reserve() that finds no open
 * connection until one opens, and after an outage no other statement may come to open one: pg-boss's flow poll
 * waited there for ever, so its stop never ended and kept the process alive (CI's outage tests). Given up, the
 * statement fails and pg-boss tries again at its next poll. Shorter than the queues' shutdown steps (src/app/:
 * console mail, the grace plus 20 s), so a stop waiting on one still ends in its step.
 */
const reserveWaitMs = 10_000;

/** `sql.reserve()` that gives up after `ms`; a connection it gets later is released at once. */
async function reserveWithin(sql: postgres.Sql, ms: number): Promise<postgres.ReservedSql> {
  const reserving = sql.reserve();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no database connection within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([reserving, late]);
  } catch (error) {
    reserving.then(
      (reserved) => reserved.release(),
      () => {},
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A multi-statement result is an array of results: their rows, in order (as node-postgres's are unwrapped). */
function flatten(result: readonly unknown[]): unknown[] {
  return result.length > 0 && Array.isArray(result[0]) ? (result as unknown[][]).flat() : [...result];
}

export interface WorkBounds {
  slots: number;
  appSlots: number;
  endpointSlots: number;
}

/** Which app an endpoint (a job's group) belongs to, and an app's endpoints: the control database's. */
export type Tenancy = Pick<DispatcherDeps<FetchedAttempt>, "appsOf" | "endpointsOf">;

/** A fetched pg-boss job: settled by its id and retry count (pg-boss's attempt fence). */
interface FetchedJob extends FetchedAttempt {
  job: AttemptJob;
  id: string;
  retryCount: number;
}

export interface DeliveryQueue {
  /**
   * Enqueues attempts on `tx` (the transaction that makes them due), each grouped by its endpoint: one statement
   * for all of them (a relay's fan-out of a batch of events).
   */
  enqueue(tx: SqlClient, attempts: readonly QueuedAttempt[]): Promise<void>;
  /**
   * Runs `handler` for due attempts, `slots` at once in this process, at most `appSlots` of them for one app's
   * endpoints, and at most `endpointSlots` for one endpoint across every process.
   */
  work(handler: (job: AttemptJob) => Promise<void>, bounds: WorkBounds, tenancy: Tenancy): Promise<void>;
  /** Looks for due attempts at once (after a local commit enqueued `jobs`), instead of at the next poll. */
  wake(jobs: number): void;
  stop(): Promise<void>;
}

export async function startDeliveryQueue(options: {
  sql: postgres.Sql;
  embedded: boolean;
  logger: Logger;
  /** Stamps the job ids (job-ids.ts), which keep one endpoint's attempts in the order they were made. */
  clock: Pick<Clock, "now">;
}): Promise<DeliveryQueue> {
  const boss = new PgBoss({
    db: pgBossDatabase(options.sql, !options.embedded),
    schema: queueSchema,
    backend: options.embedded ? "pglite" : "postgres",
    // No cron schedules of ours; maintenance (expiry of stuck jobs, retention) stays on.
    schedule: false,
    // pg-boss's own spans off (issue 41): the dispatcher fetches every second, and pg-boss makes a span of every
    // fetch, found or empty; each attempt has a span of ours instead (attempt-span.ts), linked to its request.
    openTelemetry: { enabled: false },
  });
  boss.on("error", (error: unknown) => options.logger.error("delivery queue error", { error }));
  // Processes starting together on a fresh database all find pg-boss not installed and all run its install; the
  // first commits and the others fail on what it created (a schema, a type). A retry finds it installed and goes
  // on, so a start is tried up to five times (1, 2, 4, 8 s apart; pg-boss's own start({ attempts })).
  await boss.start({ attempts: startAttempts });
  // A job that stays active past expireInSeconds (its worker died mid-attempt) is retried by pg-boss: the attempt
  // claim (delivery-attempts.ts) lets that retry send the attempt again, so it is delivered at least once.
  await boss.createQueue(deliveryQueueName, {
    retryLimit: 5,
    retryDelay: 1,
    expireInSeconds: 60,
    deleteAfterSeconds: 86_400,
  });
  let dispatcher: AttemptDispatcher | undefined;
  const jobId = timeOrderedIds(options.clock);
  return {
    async enqueue(tx, attempts) {
      if (attempts.length === 0) return;
      // pg-boss's insert: the queue's retry, expiry and retention settings apply as they do to send().
      await boss.insert(
        deliveryQueueName,
        attempts.map((attempt) => ({
          id: jobId(),
          data: attempt.job,
          group: { id: attempt.endpointId },
          ...(attempt.startAfter ? { startAfter: attempt.startAfter } : {}),
        })),
        { db: pgBossDatabase(tx, false) },
      );
    },
    async work(handler, bounds, tenancy) {
      const table = (await boss.getQueue(deliveryQueueName))?.table ?? "job";
      if (!/^[a-z0-9_]+$/.test(table)) throw new Error(`unexpected pg-boss job table ${table}`);
      /**
       * pg-boss's own restore (what its localGroupConcurrency does with the jobs it fetched past a group's bound),
       * which 12.38 keeps private: the job is created again with started_on cleared, so its next fetch counts no
       * retry, and keeps its created_on, so its place in line. Fenced to the fetch that took it.
       */
      // Jobs settled while a completion is on its way go together in the next (issue 43). A job whose completion is
      // lost with its process stays active until pg-boss expires and retries it, and its attempt, already recorded,
      // is not sent again (delivery-attempts.ts: the claim finds the delivery settled).
      const complete = inBatches<FetchedJob>((jobs) =>
        boss.complete(
          deliveryQueueName,
          jobs.map((job) => ({ id: job.id, retryCount: job.retryCount })),
        ),
      );
      const handBack = async (fetched: FetchedJob) => {
        await options.sql.unsafe(
          `update ${queueSchema}.${table} set state = 'created', started_on = null, heartbeat_on = null
           where name = $1 and id = $2 and state = 'active' and retry_count = $3`,
          [deliveryQueueName, fetched.id, fetched.retryCount],
        );
      };
      dispatcher = startAttemptDispatcher<FetchedJob>({
        slots: bounds.slots,
        appSlots: bounds.appSlots,
        pollMs: pollSeconds * 1000,
        gatherMs,
        async fetch(skipEndpoints, limit) {
          const jobs = await boss.fetch<AttemptJob>(deliveryQueueName, {
            batchSize: limit,
            groupConcurrency: bounds.endpointSlots,
            ...(skipEndpoints.length > 0 ? { ignoreGroups: [...skipEndpoints] } : {}),
          });
          return jobs.map((job) => ({
            id: job.id,
            retryCount: job.retryCount,
            job: job.data,
            endpointId: job.groupId ?? "",
          }));
        },
        handBack: (fetched) => handBack(fetched),
        async settle(fetched, error) {
          if (error === undefined) return complete(fetched);
          await boss.fail(
            deliveryQueueName,
            { id: fetched.id, retryCount: fetched.retryCount },
            { message: String(error) },
          );
        },
        ...tenancy,
        run: handler,
        onError: (error) => options.logger.error("delivery queue error", { error }),
      });
    },
    wake: () => dispatcher?.wake(),
    async stop() {
      await dispatcher?.stop(stopTimeoutMs);
      await boss.stop({ graceful: true, timeout: stopTimeoutMs });
    },
  };
}
