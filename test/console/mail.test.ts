// The SMTP mail transport against a real SMTP server (smtp-server, in process on port 0): what arrives, what the
// log never holds, and that a failure to send rejects with nothing of the mail in it (the outbox retries and logs
// it: mail-outbox.test.ts). Plus the MAIL_TRANSPORT validation.
import type { AddressInfo } from "node:net";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { SMTPServer } from "smtp-server";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { createMailTransport } from "../../src/console/mail.js";
import { createLogger } from "../../src/runtime/logger.js";

const Smtp = suite("console/mail");

interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

/** Starts an SMTP server on 127.0.0.1, port 0, that keeps every message it is given. */
async function startSmtpServer() {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { port, received, close };
}

/** The decoded text of a single-part message (7bit or quoted-printable), and its headers unfolded. */
function parse(raw: string) {
  const split = raw.indexOf("\r\n\r\n");
  const headerText = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of headerText.split("\r\n")) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.slice(split + 4);
  if (headers.get("content-transfer-encoding")?.toLowerCase() === "quoted-printable") {
    body = body
      .replace(/=\r\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return { headers, body };
}

function capturedLogger() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ write: (line) => lines.push(line) }) };
}

const link = "http://127.0.0.1:8080/console/verify-email?token=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8";
const verification = {
  to: "new.developer@partner.test",
  subject: "Verify your email address",
  text: "Open this link to verify your developer account.",
  link,
};

Smtp(
  "MAIL_TRANSPORT=smtp:// sends the verification mail over SMTP; the log never holds the link or the body",
  async () => {
    const smtp = await startSmtpServer();
    try {
      const { lines, logger } = capturedLogger();
      const config = loadConfig({ MAIL_TRANSPORT: `smtp://127.0.0.1:${smtp.port}` });
      const transport = createMailTransport(config, logger);
      await transport.send(verification);

      assert.is(smtp.received.length, 1);
      const [mail] = smtp.received;
      assert.equal(mail!.to, ["new.developer@partner.test"]);
      assert.is(mail!.from, "no-reply@localhost");
      const { headers, body } = parse(mail!.raw);
      assert.is(headers.get("to"), "new.developer@partner.test");
      assert.is(headers.get("subject"), "Verify your email address");
      assert.match(headers.get("from") ?? "", "Partner API");
      assert.ok(body.includes(link), "the body holds the link");
      assert.ok(body.includes(verification.text), "the body holds the text");

      const log = lines.join("\n");
      assert.not.match(log, "token=");
      assert.not.match(log, verification.text);
      assert.not.match(log, "console mail goes to the log");
    } finally {
      await smtp.close();
    }
  },
);

Smtp(
  "a failure to send rejects with the SMTP error's code and message only, for the outbox to retry; nothing is logged",
  async () => {
    const smtp = await startSmtpServer();
    await smtp.close(); // nothing listens on this port any more
    const { lines, logger } = capturedLogger();
    const transport = createMailTransport(
      { mail: { transport: `smtp://127.0.0.1:${smtp.port}`, from: "Partner API <no-reply@localhost>" } },
      logger,
    );
    const failure = await transport.send(verification).then(
      (): Error & { code?: unknown } => assert.unreachable("must reject") as never,
      (error: unknown) => error as Error & { code?: unknown },
    );
    assert.is(failure.code, "ESOCKET");
    assert.match(failure.message, "ECONNREFUSED");
    assert.not.match(failure.message, "token=");
    const log = lines.join("\n");
    assert.not.match(log, "token=");
    assert.not.match(log, verification.text);
    assert.not.match(log, "console mail not sent");
  },
);

Smtp(
  "MAIL_TRANSPORT accepts log and smtp(s) URLs, defaults to log, and refuses anything else naming the variable",
  () => {
    assert.is(loadConfig({}).mail.transport, "log");
    assert.is(loadConfig({}).mail.from, "Partner API <no-reply@localhost>");
    assert.is(
      loadConfig({ MAIL_TRANSPORT: "smtps://user:pass@mail.example.com:465" }).mail.transport,
      "smtps://user:pass@mail.example.com:465",
    );
    for (const bad of ["ftp://x", "smtp", "sendmail", "smtp://"]) {
      try {
        loadConfig({ MAIL_TRANSPORT: bad });
        assert.unreachable(`${bad} must be refused`);
      } catch (error) {
        assert.instance(error, ConfigError);
        assert.match((error as Error).message, "MAIL_TRANSPORT");
      }
    }
  },
);

Smtp.run();
