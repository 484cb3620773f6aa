// How the console sends mail (verification, password reset, invitations). MAIL_TRANSPORT=log (the default) writes
// each mail to the log, link included, so a developer running locally can follow it; an smtp:// or smtps:// URL
// sends through nodemailer behind the same interface (docs/decisions.md, "Console"). Requests never call a
// transport themselves: mail goes through the outbox (mail-outbox.ts), a durable queue, off the request path.
import nodemailer from "nodemailer";
import type { Config } from "../config/config.js";
import type { Locale } from "../errors/index.js";
import type { Logger } from "../runtime/logger.js";

/** One mail: the recipient, a subject, a short text and the one link it carries. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  link: string;
  /**
   * The Message-ID header (RFC 5322 section 3.6.4), `<job id@console host>`: the same for every try of one queued
   * mail, so a receiving system can drop the copy a retry after a crash mid-send may deliver.
   */
  messageId?: string;
}

/**
 * What a queued mail is for: what the outbox stores (mail-queue.ts), never its link nor its words. The mail is
 * composed from it when the job runs (mail-composer.ts); a link's token is derived from the job's id
 * (mail-outbox.ts, linkToken), so no secret sits in the queue's table (docs/decisions.md).
 */
export type MailIntent =
  | { kind: "email verification"; to: string; accountId: number; locale: Locale }
  | { kind: "sign-up notice"; to: string; locale?: Locale }
  | { kind: "password reset"; to: string; locale?: Locale }
  | { kind: "organization invitation"; to: string; inviter: string; inviterLocale: Locale }
  | { kind: "webhook endpoint disabled"; to: string; appId: string; appName: string; url: string; days: number };

/**
 * The words of mail written in its recipient's language: the owner holds no words of its own, app.ts hands it the
 * sites' catalogues (src/web/mail-texts.ts), so a mail and the pages say the same things the same way.
 */
export interface ConsoleMailTexts {
  invitation(
    locale: Locale,
    facts: { organization: string; inviter: string; role: "ADMIN" | "DEVELOPER" | "VIEWER"; expiresAt: Date },
  ): { subject: string; text: string };
  /** A verification link, a password-reset link, or the notice to an address that already has an account. */
  account(locale: Locale, kind: "verify" | "reset" | "taken"): { subject: string; text: string };
  /** The notice to a member that an app's webhook endpoint was disabled after days of failures. */
  endpointDisabled(
    locale: Locale,
    facts: { app: string; url: string; days: number },
  ): { subject: string; text: string };
}

export interface MailTransport {
  send(mail: Mail): Promise<void>;
}

/** The transport MAIL_TRANSPORT names: `log`, or SMTP at the URL it holds. */
export function createMailTransport(config: Pick<Config, "mail">, logger: Logger): MailTransport {
  return config.mail.transport === "log"
    ? createLogMailTransport(logger)
    : createSmtpMailTransport({ url: config.mail.transport, from: config.mail.from }, logger);
}

/**
 * Writes every mail to the log at info level as `console mail` with `to`, `subject` and `link`. The link is a
 * secret of its recipient: use this transport only where the log is as private as the mailbox (local runs, tests).
 */
export function createLogMailTransport(logger: Logger): MailTransport {
  logger.warn("console mail goes to the log (MAIL_TRANSPORT=log): links in it are secrets, use it only locally");
  return {
    async send(mail) {
      logger.info("console mail", {
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        link: mail.link,
        messageId: mail.messageId,
      });
    },
  };
}

/**
 * Sends each mail over SMTP (nodemailer) from `from`, the link on a line of its own after the text. Neither the
 * link nor the body ever reaches the log, nor the URL (it may hold credentials). A failure to send rejects with an
 * error holding only the SMTP error's code and message; the outbox (mail-outbox.ts) retries it and logs the last
 * failure, off the request path, so no answer tells whether mail went out.
 */
export function createSmtpMailTransport(options: { url: string; from: string }, logger: Logger): MailTransport {
  const transporter = nodemailer.createTransport(options.url);
  const server = new URL(options.url);
  logger.info("console mail goes over SMTP", {
    host: server.hostname,
    port: server.port || undefined,
    secure: server.protocol === "smtps:",
  });
  return {
    async send(mail) {
      try {
        await transporter.sendMail({
          from: options.from,
          to: mail.to,
          subject: mail.subject,
          ...(mail.messageId ? { messageId: mail.messageId } : {}),
          text: `${mail.text}\n\n${mail.link}\n`,
        });
      } catch (error) {
        const failure = error as { code?: unknown; message?: unknown };
        throw Object.assign(new Error(String(failure.message)), { code: failure.code });
      }
    },
  };
}
