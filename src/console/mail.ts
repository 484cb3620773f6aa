// How the console sends mail (verification, password reset, invitations). MAIL_TRANSPORT=log (the default and,
// for now, the only transport) writes each mail to the log, link included, so a developer running locally can
// follow it; an SMTP transport behind the same interface comes later (docs/decisions.md, "Console").
import type { Logger } from "../runtime/logger.js";

/** One mail: the recipient, a subject, a short text and the one link it carries. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  link: string;
}

export interface MailTransport {
  send(mail: Mail): Promise<void>;
}

/**
 * Writes every mail to the log at info level as `console mail` with `to`, `subject` and `link`. The link is a
 * secret of its recipient: use this transport only where the log is as private as the mailbox (local runs, tests).
 */
export function createLogMailTransport(logger: Logger): MailTransport {
  logger.warn("console mail goes to the log (MAIL_TRANSPORT=log): links in it are secrets, use it only locally");
  return {
    async send(mail) {
      logger.info("console mail", { to: mail.to, subject: mail.subject, text: mail.text, link: mail.link });
    },
  };
}
