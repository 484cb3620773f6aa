// The delivery queue: pg-boss (docs/decisions.md, "Events and webhooks (the webhook owner)": why pg-boss) in the control database's
// schema `webhook_queue`, through our own postgres.js client: on the embedded PGlite (one connection behind a
// loopback socket) exactly as on a PostgreSQL pool. A job is one attempt of one delivery; it is enqueued in the
// transaction that makes it due (the relay's fan-out, a failed attempt's retry, a resend), fetched by exactly one
// worker of any process (SKIP LOCKED), and grouped by endpoint so that no endpoint holds more than
// WEBHOOK_ENDPOINT_CONCURRENCY attempts at once across every worker (fair scheduling).
import { PgBoss, type Db as IDatabase } from "pg-boss";
import type postgres from "postgres";
import type { SqlClient } from "../storage/sql-client.js";
import type { Logger } from "../runtime/logger.js";

export const deliveryQueueName = "webhook-delivery";
export const queueSchema = "webhook_queue";
const startAttempts = 5;
/**
 * How often idle workers ask for due jobs. A first attempt does not wait for a poll: the relay that enqueued it wakes
 * this process's workers at once (wake). The poll finds retries coming due and work enqueued by other processes
 * (a resend on a front that delivers nothing). One worker, the sentinel, polls every second; the others poll only
 * every 30 s and are woken instead: by wake(), and by a worker that got a job (so a backlog the sentinel finds
 * spreads over the workers one by one, as pg-boss's own burst mode would). Sixteen workers polling every 2 s cost
 * an idle process's database 8 queries a second (an idle test app: 50 ms of CPU a second, 34 with the sentinel).
 */
const sentinelPollSeconds = 1;
const idleWorkerPollSeconds = 30;

/** One attempt of one delivery. */
export interface AttemptJob {
  deliveryId: string;
  attempt: number;
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
        return { rows: [...(await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[]))] };
      if (!pool) return { rows: flatten(await sql.unsafe(text)) };
      const reserved = await (sql as postgres.Sql).reserve();
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

/** A multi-statement result is an array of results: their rows, in order (as node-postgres's are unwrapped). */
function flatten(result: readonly unknown[]): unknown[] {
  return result.length > 0 && Array.isArray(result[0]) ? (result as unknown[][]).flat() : [...result];
}

export interface DeliveryQueue {
  /** Enqueues an attempt on `tx` (the transaction that makes it due), grouped by its endpoint. */
  enqueue(tx: SqlClient, job: AttemptJob, endpointId: string, startAfter?: Date): Promise<void>;
  /** Runs `handler` for due attempts, `concurrency` at once in this process. */
  work(handler: (job: AttemptJob) => Promise<void>, concurrency: number, endpointConcurrency: number): Promise<void>;
  /** Wakes up to `jobs` of this process's idle workers at once (after a local commit), instead of at their poll. */
  wake(jobs: number): void;
  stop(): Promise<void>;
}

export async function startDeliveryQueue(options: {
  sql: postgres.Sql;
  embedded: boolean;
  logger: Logger;
}): Promise<DeliveryQueue> {
  const boss = new PgBoss({
    db: pgBossDatabase(options.sql, !options.embedded),
    schema: queueSchema,
    backend: options.embedded ? "pglite" : "postgres",
    // No cron schedules of ours; maintenance (expiry of stuck jobs, retention) stays on.
    schedule: false,
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
  const workerIds: string[] = [];
  let nextToWake = 0;
  /** Wakes the next `jobs` workers in turn, so a run of single jobs does not always wake the same (busy) one. */
  const wakeNext = (jobs: number) => {
    for (let i = 0; i < Math.min(jobs, workerIds.length); i++) {
      boss.notifyWorker(workerIds[nextToWake]!);
      nextToWake = (nextToWake + 1) % workerIds.length;
    }
  };
  return {
    async enqueue(tx, job, endpointId, startAfter) {
      await boss.send(deliveryQueueName, job, {
        db: pgBossDatabase(tx, false),
        group: { id: endpointId },
        ...(startAfter ? { startAfter } : {}),
      });
    },
    async work(handler, concurrency, endpointConcurrency) {
      // One worker per registration (rather than pg-boss's localConcurrency, whose workers share one id): wake()
      // can then wake as many as there are new jobs.
      for (let i = 0; i < concurrency; i++) {
        const id = await boss.work<AttemptJob>(
          deliveryQueueName,
          {
            groupConcurrency: endpointConcurrency,
            pollingIntervalSeconds: i === 0 ? sentinelPollSeconds : idleWorkerPollSeconds,
          },
          async (jobs) => {
            // Where there was one due job there may be more: the next worker looks at once.
            if (jobs.length > 0) wakeNext(1);
            for (const job of jobs) await handler(job.data);
          },
        );
        workerIds.push(id);
      }
    },
    wake: (jobs) => wakeNext(jobs),
    async stop() {
      await boss.stop({ graceful: true, timeout: 20_000 });
    },
  };
}
