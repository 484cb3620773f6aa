// The console's outbox: mail leaves off the request path. A request queues the work that makes a mail (which may
// read the account and store a link) and answers at once, so an answer never tells by its timing whether a mail
// went out (password reset for a known or an unknown email). Bounded, retried a few times with backoff, failures
// logged without the link or body; drained on shutdown within the grace period. Mails to one address leave in the
// order they were asked for, so the newest mail in a mailbox carries the newest link. docs/decisions.md, "Console".
import type { Logger } from "../runtime/logger.js";
import type { Mail, MailTransport } from "./mail.js";

/** Work the outbox runs off the request path: makes the mail to send, or nothing (an unknown email, say). */
export type ComposeMail = () => Promise<Mail | undefined>;

export interface MailOutbox {
  /**
   * Queues `compose` (what it is for in `what`, for the log) of a mail to `to`; never waits, never throws. Work for
   * one address runs one at a time, in the order queued; work for different addresses runs side by side.
   */
  enqueue(what: string, to: string, compose: ComposeMail): void;
  /** Resolves when nothing is queued or being sent. */
  idle(): Promise<void>;
  /** Takes no more work and waits up to `graceMs` for what is queued; what is left then is logged and dropped. */
  close(graceMs: number): Promise<void>;
}

export interface MailOutboxOptions {
  transport: MailTransport;
  logger: Logger;
  /** Mails queued at most; beyond it new ones are dropped and logged (memory stays bounded under a flood). */
  capacity?: number;
  /** Mails composed and sent at once. */
  concurrency?: number;
  /** Waits before the second, third, ... try, in milliseconds; one try more than there are waits. */
  backoffMs?: readonly number[];
}

/** A burst far above what the console's limits let through in a minute, still a few megabytes at most. */
export const defaultOutboxCapacity = 1000;
/** A few at once: an SMTP server sees parallel connections, not a flood of them. */
export const defaultOutboxConcurrency = 4;
/** Three tries, 1 s then 5 s apart: a server restarting or greylisting is over it; longer is for a real MTA. */
export const defaultOutboxBackoffMs: readonly number[] = [1_000, 5_000];

interface Job {
  what: string;
  /** The recipient, as the caller normalised it: the key that keeps one mailbox's mails in order. */
  to: string;
  compose: ComposeMail;
}

export function createMailOutbox(options: MailOutboxOptions): MailOutbox {
  const { transport, logger } = options;
  const capacity = options.capacity ?? defaultOutboxCapacity;
  const concurrency = options.concurrency ?? defaultOutboxConcurrency;
  const backoffMs = options.backoffMs ?? defaultOutboxBackoffMs;
  const queue: Job[] = [];
  /** Recipients with work running (composing, sending or waiting to retry): their next job waits its turn. */
  const busy = new Set<string>();
  let running = 0;
  let closed = false;
  let abandoned = false;
  let idleWaiters: Array<() => void> = [];

  const settle = () => {
    if (queue.length > 0 || running > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      setTimeout(resolve, ms).unref(); // a wait never holds the process open
    });
  const reasonOf = (error: unknown) => {
    const failure = error as { code?: unknown; message?: unknown };
    return {
      errorCode: failure?.code === undefined ? undefined : String(failure.code),
      message: String(failure?.message ?? error),
    };
  };

  /** Composes once (retrying until it works), then sends (retrying), within one budget of tries. */
  async function run(job: Job) {
    let mail: Mail | undefined;
    let composed = false;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!composed) {
          mail = await job.compose();
          composed = true;
          if (!mail) return;
        }
        await transport.send(mail!);
        return;
      } catch (error) {
        const last = attempt > backoffMs.length || abandoned;
        if (last) {
          // Recipient and subject only: the link and the body are the recipient's secrets.
          logger.error("console mail not sent", {
            what: job.what,
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

  /** The oldest queued job whose recipient has nothing running, taken off the queue. */
  function nextReady(): Job | undefined {
    const index = queue.findIndex((job) => !busy.has(job.to));
    return index < 0 ? undefined : queue.splice(index, 1)[0];
  }

  function pump() {
    while (running < concurrency && !abandoned) {
      const job = nextReady();
      if (!job) break;
      running++;
      busy.add(job.to);
      void run(job)
        .catch((error: unknown) => logger.error("console mail not sent", { what: job.what, error: reasonOf(error) }))
        .finally(() => {
          running--;
          busy.delete(job.to);
          pump();
          settle();
        });
    }
    settle();
  }

  const idle = () =>
    queue.length === 0 && running === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));

  return {
    enqueue(what, to, compose) {
      if (closed) {
        logger.error("console mail dropped: the outbox is closed", { what });
        return;
      }
      if (queue.length >= capacity) {
        logger.error("console mail dropped: the outbox is full", { what, capacity });
        return;
      }
      queue.push({ what, to, compose });
      // Started on the next turn: the request that queued it answers first.
      setImmediate(pump);
    },
    idle,
    async close(graceMs) {
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<"grace over">((resolve) => {
        timer = setTimeout(() => resolve("grace over"), graceMs);
      });
      const outcome = await Promise.race([idle().then(() => "drained" as const), graceOver]);
      clearTimeout(timer);
      if (outcome === "drained") return;
      abandoned = true;
      const dropped = queue.length + running;
      queue.length = 0;
      logger.error("console mail outbox closed with mail unsent", { unsent: dropped });
    },
  };
}
