// The console's mail as a process runs it: the durable queue (mail-queue.ts), the outbox over it (mail-outbox.ts)
// and this process's workers composing (mail-composer.ts) and sending. The processes that serve the console (all
// roles, front) send: whichever of them asked for a mail, any may send it. A webhook worker only queues (an endpoint
// disabled): it may run where no route reaches the mail server (docs/deployment.md, networks).
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createMailComposer } from "./mail-composer.js";
import { createMailOutbox, type MailOutbox } from "./mail-outbox.js";
import { startMailQueue } from "./mail-queue.js";
import { createMailTransport, type ConsoleMailTexts, type MailTransport } from "./mail.js";

export async function startConsoleMail(options: {
  config: Pick<Config, "mail" | "lifetimes" | "urls">;
  logger: Logger;
  clock: Clock;
  control: { sql: postgres.Sql; embedded: boolean };
  /** The key-encryption key: the links' tokens are derived from it. */
  kek: Buffer;
  mailTexts: ConsoleMailTexts;
  /** Default: the one MAIL_TRANSPORT names. */
  transport?: MailTransport;
  /** Whether this process sends (runs workers) or only queues. */
  send: boolean;
}): Promise<MailOutbox> {
  const { config, logger, control } = options;
  const queue = await startMailQueue({ sql: control.sql, embedded: control.embedded, logger });
  const outbox = createMailOutbox({
    queue,
    transport: options.transport ?? createMailTransport(config, logger),
    logger,
    kek: options.kek,
    messageIdDomain: new URL(config.urls.console).hostname,
  });
  if (!options.send) return outbox;
  try {
    await outbox.start(
      createMailComposer({ sql: control.sql, config, clock: options.clock, mailTexts: options.mailTexts }),
    );
  } catch (error) {
    await outbox.close(0);
    throw error;
  }
  return outbox;
}
