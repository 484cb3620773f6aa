// The console's mail survives a kill -9 (issue 37, "Work that must not live in memory"): the program runs as a
// child process against a real SMTP server (smtp-server, in this process); a password reset is asked for while the
// server holds every new mail at MAIL FROM, so the mail cannot leave; the program is killed with SIGKILL mid-send,
// started again on the same database, and the mail arrives, once, with its Message-ID, and its link works. Run on
// the embedded PGlite (its files in DATA_DIR outlive the process) and on TEST_DATABASE_URL's PostgreSQL.
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { openDatabase } from "../../src/storage/postgres.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { startRole, type RoleProcess } from "../support/role-process.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { freePort } from "../support/test-app.js";

const Crash = suite("console/mail-crash");

interface Received {
  to: string[];
  raw: string;
}

/**
 * An SMTP server on 127.0.0.1 that keeps what it accepts. Held, it answers no MAIL FROM (the client waits, the mail
 * is not sent) and reports the first one it holds through `holding`.
 */
async function startSink() {
  const received: Received[] = [];
  let held = false;
  let noteHolding: (from: string) => void = () => {};
  const holding = new Promise<string>((resolve) => (noteHolding = resolve));
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onMailFrom(address, _session, callback) {
      if (!held) return callback();
      noteHolding(address.address); // and never answer: the sender waits until its connection dies
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
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
  /** The mails that match, once there is one; rejects after `withinMs` without (the mail was lost). */
  const waitFor = async (matches: (mail: Received) => boolean, withinMs = 120_000) => {
    const deadline = Date.now() + withinMs;
    while (!received.some(matches)) {
      if (Date.now() > deadline)
        throw new Error(`no such mail within ${withinMs / 1000} s; received: ${received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return received.filter(matches);
  };
  return {
    port,
    received,
    hold: () => (held = true),
    accept: () => (held = false),
    holding,
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const header = (raw: string, name: string) =>
  raw
    .slice(0, raw.indexOf("\r\n\r\n"))
    .replace(/\r\n[ \t]+/g, " ")
    .split("\r\n")
    .find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.slice(name.length + 1)
    .trim();
/** The link on a line of its own in a mail's (7bit or quoted-printable) text. */
const linkOf = (raw: string) => {
  const body = raw
    .slice(raw.indexOf("\r\n\r\n") + 4)
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return body.match(/https?:\/\/\S+token=[A-Za-z0-9_-]+/)![0];
};

Crash(
  "a reset mail asked for before a kill -9 mid-send is sent after the restart, once, and its link works",
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "pa-mail-crash-"));
    const databaseUrl = await freshDatabaseUrl();
    if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
    const sink = await startSink();
    const running: RoleProcess[] = [];
    const env = async () => ({
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      AUTH_PORT: String(await freePort()),
      CONSOLE_PORT: String(await freePort()),
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
      MAIL_TRANSPORT: `smtp://127.0.0.1:${sink.port}`,
      DATABASE_CONNECT_TIMEOUT_SECONDS: "30",
      LOG_LEVEL: "info",
    });
    const start = async () => {
      const roleEnv = await env();
      const program = startRole([], roleEnv);
      running.push(program);
      await program.line("partner API ready", 300_000);
      const call = async (path: string, body: unknown) => {
        const response = await fetch(`http://127.0.0.1:${roleEnv.PORT}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as unknown };
      };
      return { program, call };
    };
    try {
      const email = `crash.${process.pid}.${Date.now()}@partner.test`;
      const first = await start();
      assert.equal(
        await first.call("/v1/console/account/sign-up", { email, password: "correct horse battery staple" }),
        { status: 200, body: {} },
      );
      const [verification] = await sink.waitFor((mail) => mail.to.includes(email));
      assert.match(header(verification!.raw, "Subject")!, /verify/i);

      // The server holds the reset mail at MAIL FROM: it is being sent when the program dies.
      sink.hold();
      assert.equal(await first.call("/v1/console/account/password-reset", { email }), { status: 200, body: {} });
      await sink.holding;
      first.program.child.kill("SIGKILL");
      await first.program.exited;
      assert.is(sink.received.length, 1, "only the verification left before the kill");

      sink.accept();
      const second = await start();
      const [reset] = await sink.waitFor((mail) => mail.to.includes(email) && mail !== verification);
      await second.program.stop(20_000);
      assert.equal(
        sink.received.filter((mail) => mail.to.includes(email)).length,
        2,
        "the verification and the reset, each once",
      );
      // Once: both jobs are finished (nothing left to send it again), and the reset carries its job's Message-ID.
      const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
      const jobs = await database.sql<Array<{ id: string; state: string }>>`
        select id, state from webhook_queue.job where name = 'console-mail' and data->>'to' = ${email}
        order by created_on`;
      await database.close();
      assert.equal(
        jobs.map((job) => job.state),
        ["completed", "completed"],
      );
      assert.is(header(reset!.raw, "Message-ID"), `<${jobs[1]!.id}@127.0.0.1>`);
      assert.match(header(reset!.raw, "Subject")!, /reset/i);
      const token = new URL(linkOf(reset!.raw)).searchParams.get("token")!;

      // The link the restarted program composed opens: a third start takes the new password.
      const third = await start();
      assert.equal(
        await third.call("/v1/console/account/password-reset/confirm", {
          token,
          newPassword: "a brand new passphrase here",
        }),
        { status: 200, body: {} },
      );
      await third.program.stop(20_000);
    } finally {
      for (const program of running) await program.stop(5_000);
      await sink.close();
      if (databaseUrl) await dropDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  { timeoutMs: 900_000 },
);

Crash.run();
