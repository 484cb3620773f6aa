// The console's mail queue: pg-boss in the control database, in the schema the webhook deliveries use (one pg-boss
// installation per database: an embedded start installs it once), through the same postgres.js adapter, so a mail
// asked for survives a crash or a restart of the process that was to send it (docs/decisions.md, "Console mail on
// the durable queue"). A job is one mail's intent, never its link: the outbox (mail-outbox.ts) composes it when the
// job runs. Beside the intent, the job keeps the sampled traceparent of the request that asked for it (issue 41),
// which each send's span links to, as a webhook outbox row keeps its own. Jobs are grouped by recipient with one
// running per group across every process: one mailbox's mails leave in the order asked, and other mailboxes do not
// wait.
import { PgBoss } from "pg-boss";
import type postgres from "postgres";
import type { Logger } from "../runtime/logger.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { MailIntent } from "./mail.js";
import { pgBossDatabase, queueSchema } from "../webhook/index.js";

export const mailQueueName = "console-mail";
const startAttempts = 5;
/**
 * A worker that stops refreshing its job's heartbeat for this long (its process was killed) loses the job, which
 * runs again at once on any process (pg-boss's minimum: 10 s). The supervisor that notices looks every
 * superviseSeconds, so a killed process's mail leaves at most about 20 s (plus a poll) after the kill.
 */
const heartbeatSeconds = 10;
const superviseSeconds = 10;
/**
 * How often idle workers look for due mail, as the delivery queue's do: one, the sentinel, every second; the others
 * every 30 s, woken by a worker that got a job (where there was one there may be more). An idle process asks its
 * database about 1.1 times a second for mail, not 4.
 */
const sentinelPollSeconds = 1;
const idleWorkerPollSeconds = 30;
/**
 * A job that a live worker holds longer than this runs again elsewhere: far above a mail's three tries with
 * nodemailer's own timeouts, so only a worker stuck for good is overtaken.
 */
const expireSeconds = 900;
/** A job whose worker died this many times over is given up (failed in the queue's table). */
const crashRetries = 3;
/** Finished jobs hold a recipient's address: kept a day for an operator to look into, then deleted. */
const keepFinishedSeconds = 86_400;

export interface MailJob {
  id: string;
  data: MailIntent;
  /** The W3C traceparent of the span that asked for the mail, when traced and sampled (sampledTraceparent). */
  traceparent?: string;
}

/** What a job's data holds: the intent's fields, and the traceparent beside them (absent in jobs queued before it). */
type JobData = MailIntent & { traceparent?: string };

export interface MailQueue {
  /** Stores a job on `tx` (the transaction that asks for the mail, or the pool), `id` chosen by the caller. */
  send(tx: SqlClient, data: MailIntent, options: { id: string; group: string; traceparent?: string }): Promise<void>;
  /** Runs `handler` for due jobs, `concurrency` at once in this process, one per group across every process. */
  work(handler: (job: MailJob) => Promise<void>, concurrency: number): Promise<void>;
  /** How many jobs are waiting or running (tests wait for 0; an operator's view is the table itself). */
  unfinished(): Promise<number>;
  /** Takes no more jobs; waits up to `graceMs` for the running ones. A job still running then stays in the queue. */
  stop(graceMs: number): Promise<void>;
}

export async function startMailQueue(options: {
  sql: postgres.Sql;
  embedded: boolean;
  logger: Logger;
}): Promise<MailQueue> {
  const { sql, logger } = options;
  const boss = new PgBoss({
    db: pgBossDatabase(sql, !options.embedded),
    schema: queueSchema,
    backend: options.embedded ? "pglite" : "postgres",
    schedule: false,
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
    // pg-boss's own spans (a send, and a process span starting a trace of its own per job) would make a second,
    // unlinked trace of every mail: the job carries our traceparent instead (docs/decisions.md, "Traces").
    openTelemetry: { enabled: false },
  });
  boss.on("error", (error: unknown) => logger.error("mail queue error", { error }));
  // As the delivery queue's start: processes starting together on a fresh database race to install pg-boss.
  await boss.start({ attempts: startAttempts });
  await boss.createQueue(mailQueueName, {
    retryLimit: crashRetries,
    // A job taken back from a dead worker is due at once: the oldest of its group, it still leaves first.
    retryDelay: 0,
    heartbeatSeconds,
    expireInSeconds: expireSeconds,
    deleteAfterSeconds: keepFinishedSeconds,
  });
  return {
    async send(tx, data, { id, group, traceparent }) {
      const stored: JobData = traceparent ? { ...data, traceparent } : data;
      await boss.send(mailQueueName, stored, { id, db: pgBossDatabase(tx, false), group: { id: group } });
    },
    async work(handler, concurrency) {
      const workerIds: string[] = [];
      for (let i = 0; i < concurrency; i++) {
        const id = await boss.work(
          mailQueueName,
          {
            groupConcurrency: 1,
            pollingIntervalSeconds: i === 0 ? sentinelPollSeconds : idleWorkerPollSeconds,
          },
          async (jobs) => {
            // The next worker in turn (never this busy one) looks at once.
            if (jobs.length > 0 && workerIds.length > 1) boss.notifyWorker(workerIds[(i + 1) % workerIds.length]!);
            for (const job of jobs) {
              const { traceparent, ...intent } = job.data as JobData;
              await handler({ id: job.id, data: intent as MailIntent, ...(traceparent ? { traceparent } : {}) });
            }
          },
        );
        workerIds.push(id);
      }
    },
    async unfinished() {
      const [row] = await sql<Array<{ count: number }>>`
        select count(*)::int as count from ${sql(queueSchema)}.job
        where name = ${mailQueueName} and state in ('created', 'retry', 'active')`;
      return row?.count ?? 0;
    },
    async stop(graceMs) {
      await boss.stop({ graceful: true, timeout: Math.max(1, graceMs) });
    },
  };
}
