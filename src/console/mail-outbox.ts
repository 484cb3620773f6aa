// The console's outbox: mail leaves off the request path, from a durable queue (mail-queue.ts: pg-boss in the
// control database). A request stores the mail's intent, in the transaction of the change that asks for it where
// there is one, and answers at once, so an answer never tells by its timing whether a mail went out (password reset
// for a known or an unknown email). A worker of any process composes the mail when its job runs (which may read the
// account and store a link) and sends it, retried a few times with backoff, failures logged without the link or
// body. A crash loses nothing: the job of a killed process runs again elsewhere, composing the same link. Mails to
// one address leave in the order they were asked for, so the newest mail in a mailbox carries the newest link.
// docs/decisions.md, "Console" and "Console mail on the durable queue".
import { createHmac, hkdfSync, randomUUID } from "node:crypto";
import type { Logger } from "../runtime/logger.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Mail, MailIntent, MailTransport } from "./mail.js";
import type { MailJob, MailQueue } from "./mail-queue.js";
import { inLinkedSpan, sampledTraceparent } from "../runtime/spans.js";

/** Makes the mail `intent` asks for, or nothing (an unknown email, say); `linkToken` is the job's own. */
export type ComposeMail = (intent: MailIntent, linkToken: string) => Promise<Mail | undefined>;

export interface MailOutbox {
  /** A new job's id, for a caller that stores the link's hash itself (an invitation) before enqueueing. */
  newJobId(): string;
  /** The token of the link job `jobId`'s mail carries: the same on every run of the job, known to nobody else. */
  linkToken(jobId: string): string;
  /**
   * Stores `intent` as a job on `tx`: the transaction of the change that asks for the mail (the job exists if and
   * only if the change committed), or the pool. Rejects only when the database does.
   */
  enqueue(tx: SqlClient, intent: MailIntent, jobId?: string): Promise<void>;
  /** Starts this process's workers: they compose with `compose` and send. */
  start(compose: ComposeMail): Promise<void>;
  /** Resolves when no job is waiting or running, in any process (tests). */
  idle(): Promise<void>;
  /** Takes no more jobs and waits up to `graceMs` for the running ones; the rest stay queued for the next start. */
  close(graceMs: number): Promise<void>;
}

export interface MailOutboxOptions {
  queue: MailQueue;
  transport: MailTransport;
  logger: Logger;
  /** The key-encryption key: links' tokens are derived from it (a key of their own, RFC 5869), never stored. */
  kek: Buffer;
  /** The right side of every Message-ID: the console's host name. */
  messageIdDomain: string;
  /** Mails composed and sent at once by this process. */
  concurrency?: number;
  /** Waits before the second, third, ... try, in milliseconds; one try more than there are waits. */
  backoffMs?: readonly number[];
}

/** A few at once: an SMTP server sees parallel connections, not a flood of them. */
export const defaultOutboxConcurrency = 4;
/** Three tries, 1 s then 5 s apart: a server restarting or greylisting is over it; longer is for a real MTA. */
export const defaultOutboxBackoffMs: readonly number[] = [1_000, 5_000];
/** How often idle() asks the queue whether it is empty. */
const idlePollMs = 25;

const reasonOf = (error: unknown) => {
  const failure = error as { code?: unknown; message?: unknown };
  return {
    errorCode: failure?.code === undefined ? undefined : String(failure.code),
    message: String(failure?.message ?? error),
  };
};

const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve();
    setTimeout(resolve, ms).unref(); // a wait never holds the process open
  });

export function createMailOutbox(options: MailOutboxOptions): MailOutbox {
  const { queue, transport, logger } = options;
  const concurrency = options.concurrency ?? defaultOutboxConcurrency;
  const backoffMs = options.backoffMs ?? defaultOutboxBackoffMs;
  // A key for links alone, apart from the KEK's sealing of signing keys (RFC 5869 section 3.2, "info").
  const linkKey = Buffer.from(hkdfSync("sha256", options.kek, Buffer.alloc(0), "partnerapi console mail links", 32));
  const linkToken = (jobId: string) => createHmac("sha256", linkKey).update(jobId).digest("base64url");
  let compose: ComposeMail | undefined;
  let closed = false;

  /** Composes once (retrying until it works), then sends (retrying), within one budget of tries. */
  async function run(job: MailJob) {
    const intent = job.data;
    let mail: Mail | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!mail) {
          const composed = await compose!(intent, linkToken(job.id));
          if (!composed) return;
          mail = { ...composed, messageId: `<${job.id}@${options.messageIdDomain}>` };
        }
        const sending = mail;
        // A span per send try (issue 41), the root of a trace of its own linked to the request that asked for the
        // mail (a try may come seconds after it, a retry is another try): the kind of mail only, never its recipient
        // or its links.
        await inLinkedSpan(
          {
            name: "mail send",
            kind: "client",
            linkedTo: job.traceparent,
            attributes: { "mail.kind": intent.kind, "mail.try": attempt, "mail.job_id": job.id },
          },
          () => transport.send(sending),
        );
        return;
      } catch (error) {
        // Stopping: the job goes back to the queue (a crash retry of pg-boss's), for another process or the next
        // start, rather than ending as unsent.
        if (closed) throw error;
        if (attempt > backoffMs.length) {
          // Recipient and subject only: the link and the body are the recipient's secrets. The job ends here: a
          // mail that three tries could not send is not tried again (an operator reads it in the log).
          logger.error("console mail not sent", {
            what: intent.kind,
            to: mail?.to,
            subject: mail?.subject,
            tries: attempt,
            error: reasonOf(error),
          });
          return;
        }
        await pause(backoffMs[attempt - 1]!);
      }
    }
  }

  return {
    newJobId: () => randomUUID(),
    linkToken,
    async enqueue(tx, intent, jobId = randomUUID()) {
      if (closed)
        logger.warn("console mail queued while this process stops: another process sends it", { what: intent.kind });
      // The span that asks for the mail, when sampled: each send's span links back to it.
      await queue.send(tx, intent, { id: jobId, group: intent.to, traceparent: sampledTraceparent() });
    },
    async start(composer) {
      compose = composer;
      await queue.work(run, concurrency);
    },
    async idle() {
      while ((await queue.unfinished()) > 0) await pause(idlePollMs);
    },
    async close(graceMs) {
      closed = true;
      await queue.stop(graceMs);
    },
  };
}
