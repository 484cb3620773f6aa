// src/console/mail-outbox.ts over its durable queue (mail-queue.ts: pg-boss in the test database). In isolation:
// retries with backoff under one Message-ID, the last failure logged without the link or body, nothing sent when
// there is nothing to say, one mailbox's mails in order while others do not wait, a job that exists only if its
// transaction committed, and close leaving what it could not send queued for the next outbox. Over HTTP against
// the real app: the password-reset answer for a known email arrives while the transport still holds its mail, and
// the mail goes out when released; an unknown email answers the same and gets none. A kill -9: mail-crash.test.ts.
import { randomBytes } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import type { Mail, MailIntent, MailTransport } from "../../src/console/mail.js";
import { createMailOutbox, type ComposeMail, type MailOutbox } from "../../src/console/mail-outbox.js";
import { startMailQueue } from "../../src/console/mail-queue.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { createLogger } from "../../src/runtime/logger.js";
import { randomAddress } from "../support/consent.js";
import { consoleCall, tokenOf } from "../support/console.js";
import { answerOf } from "../support/sandbox.js";
import { useTestDatabase } from "../support/storage.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Outbox = suite("console/mail-outbox");
const database = useTestDatabase(Outbox);
const kek = randomBytes(32);

const link = "http://127.0.0.1:8080/console/reset-password?token=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8";
const mailTo = (to: string): Mail => ({
  to,
  subject: "Reset your password",
  text: "Open this link to choose a new password.",
  link,
});

function capturedLogger() {
  const lines: string[] = [];
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { lines, entries, logger: createLogger({ write: (line) => lines.push(line) }) };
}

/**
 * A transport that records what it delivers; while held, each send waits until `release()` (`pending` resolves at
 * the first send that waits).
 */
function heldTransport() {
  const delivered: Mail[] = [];
  let held = false;
  let releaseAll: () => void = () => {};
  let released = Promise.resolve();
  let notePending: (mail: Mail) => void = () => {};
  let pending = new Promise<Mail>((resolve) => (notePending = resolve));
  const transport: MailTransport = {
    async send(mail) {
      if (held) {
        notePending(mail);
        await released;
      }
      delivered.push(mail);
    },
  };
  return {
    transport,
    delivered,
    hold() {
      held = true;
      released = new Promise<void>((resolve) => (releaseAll = resolve));
      pending = new Promise<Mail>((resolve) => (notePending = resolve));
    },
    release() {
      held = false;
      releaseAll();
    },
    pending: () => pending,
  };
}

/** Mails composed by the test: every intent becomes mailTo(its recipient), with the job's link token as link. */
const plainCompose: ComposeMail = async (intent, token) => ({ ...mailTo(intent.to), link: `${link}&job=${token}` });
const notice = (to: string): MailIntent => ({ kind: "sign-up notice", to });
/** A unique address per test run: the queue's table is shared with the other tests' jobs. */
const address = (name: string) => `${name}.${process.pid}.${Date.now()}@partner.test`;

/** An outbox on the test database's queue, started with `compose`; closed by `outboxes.closeAll()`. */
const outboxes: MailOutbox[] = [];
async function startOutbox(
  options: { transport: MailTransport; logger: ReturnType<typeof createLogger> } & {
    compose?: ComposeMail;
    backoffMs?: number[];
    concurrency?: number;
  },
) {
  const db = database();
  const queue = await startMailQueue({ sql: db.sql, embedded: db.embedded, logger: options.logger });
  const outbox = createMailOutbox({
    queue,
    transport: options.transport,
    logger: options.logger,
    kek,
    messageIdDomain: "console.partner.test",
    ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  outboxes.push(outbox);
  await outbox.start(options.compose ?? plainCompose);
  return outbox;
}
Outbox.after.each(async () => {
  for (const outbox of outboxes.splice(0)) await outbox.close(1);
});

Outbox(
  "a failing send is retried with backoff under one Message-ID, and delivered once it works; nothing is logged",
  async () => {
    const { entries, logger } = capturedLogger();
    const delivered: Mail[] = [];
    const messageIds: Array<string | undefined> = [];
    const transport: MailTransport = {
      async send(mail) {
        messageIds.push(mail.messageId);
        if (messageIds.length < 3) throw Object.assign(new Error("451 try again later"), { code: "EENVELOPE" });
        delivered.push(mail);
      },
    };
    const outbox = await startOutbox({ transport, logger, backoffMs: [0, 0] });
    const to = address("retried");
    const jobId = outbox.newJobId();
    await outbox.enqueue(database().sql, notice(to), jobId);
    await outbox.idle();
    assert.equal(messageIds, [
      `<${jobId}@console.partner.test>`,
      `<${jobId}@console.partner.test>`,
      `<${jobId}@console.partner.test>`,
    ]);
    assert.equal(delivered, [
      { ...mailTo(to), link: `${link}&job=${outbox.linkToken(jobId)}`, messageId: `<${jobId}@console.partner.test>` },
    ]);
    assert.equal(entries(), []);
  },
);

Outbox("a link's token is the job's own: the same on every run, another job's or another key's differs", async () => {
  const { logger } = capturedLogger();
  const outbox = await startOutbox({ transport: { send: async () => {} }, logger });
  const jobId = outbox.newJobId();
  const token = outbox.linkToken(jobId);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.is(outbox.linkToken(jobId), token);
  assert.is.not(outbox.linkToken(outbox.newJobId()), token);
  const queue = await startMailQueue({ sql: database().sql, embedded: database().embedded, logger });
  const otherKey = createMailOutbox({
    queue,
    transport: { send: async () => {} },
    logger,
    kek: randomBytes(32),
    messageIdDomain: "x",
  });
  outboxes.push(otherKey);
  assert.is.not(otherKey.linkToken(jobId), token);
});

Outbox("a send that keeps failing is logged once after the last try, without the link or the body", async () => {
  const { lines, entries, logger } = capturedLogger();
  let tries = 0;
  const transport: MailTransport = {
    async send() {
      tries++;
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:25"), { code: "ESOCKET" });
    },
  };
  const outbox = await startOutbox({ transport, logger, backoffMs: [0, 0] });
  const to = address("failing");
  await outbox.enqueue(database().sql, { kind: "password reset", to });
  await outbox.idle();
  assert.is(tries, 3);
  const failures = entries().filter((entry) => entry["msg"] === "console mail not sent");
  assert.is(failures.length, 1);
  assert.is(failures[0]!["level"], "error");
  assert.is(failures[0]!["what"], "password reset");
  assert.is(failures[0]!["to"], to);
  assert.is(failures[0]!["subject"], "Reset your password");
  assert.is(failures[0]!["tries"], 3);
  assert.equal(failures[0]!["error"], { errorCode: "ESOCKET", message: "connect ECONNREFUSED 127.0.0.1:25" });
  assert.not.match(lines.join("\n"), "token=");
  assert.not.match(lines.join("\n"), "choose a new password");
});

Outbox("work that finds nobody to mail sends nothing; work that fails to compose is retried, then logged", async () => {
  const { entries, logger } = capturedLogger();
  const held = heldTransport();
  let composed = 0;
  const nobody = address("nobody");
  const compose: ComposeMail = async (intent) => {
    if (intent.to === nobody) return undefined;
    composed++;
    throw new Error("database unavailable");
  };
  const outbox = await startOutbox({ transport: held.transport, logger, compose, backoffMs: [0] });
  await outbox.enqueue(database().sql, notice(nobody));
  await outbox.enqueue(database().sql, notice(address("uncomposable")));
  await outbox.idle();
  assert.equal(held.delivered, []);
  assert.is(composed, 2);
  const failures = entries().filter((entry) => entry["msg"] === "console mail not sent");
  assert.is(failures.length, 1);
  assert.is(failures[0]!["to"], undefined);
});

Outbox(
  "mails to one address leave in the order asked, one at a time; other addresses do not wait for them",
  async () => {
    const { logger } = capturedLogger();
    const delivered: string[] = [];
    const transport: MailTransport = {
      async send(mail) {
        delivered.push(`${mail.to} ${mail.subject}`);
      },
    };
    const dev = address("dev");
    const other = address("other");
    // The first mail to dev@ takes longest to compose (it reads the account and stores a link); without the order
    // kept, the notice asked for after it would reach the mailbox first.
    let releaseVerification: () => void = () => {};
    const verificationComposing = new Promise<void>((resolve) => (releaseVerification = resolve));
    let noticeComposed = false;
    const compose: ComposeMail = async (intent) => {
      if (intent.kind === "email verification") {
        await verificationComposing;
        return { ...mailTo(intent.to), subject: "Verify your email" };
      }
      if (intent.to === dev) noticeComposed = true;
      return {
        ...mailTo(intent.to),
        subject: intent.to === dev ? "Someone signed up with your email" : "Reset your password",
      };
    };
    const outbox = await startOutbox({ transport, logger, compose, concurrency: 4, backoffMs: [] });
    await database().sql.begin(async (tx) => {
      await outbox.enqueue(tx, { kind: "email verification", to: dev, accountId: 1, locale: "en" });
      await outbox.enqueue(tx, notice(dev));
      await outbox.enqueue(tx, notice(other));
    });
    // Another address is sent while dev@'s first mail is still being composed, and dev@'s second is not started.
    while (delivered.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(delivered, [`${other} Reset your password`]);
    assert.is(noticeComposed, false);
    releaseVerification();
    await outbox.idle();
    assert.equal(delivered, [
      `${other} Reset your password`,
      `${dev} Verify your email`,
      `${dev} Someone signed up with your email`,
    ]);
  },
);

Outbox("a job exists only if the transaction that asked for it commits", async () => {
  const { logger } = capturedLogger();
  const held = heldTransport();
  const outbox = await startOutbox({ transport: held.transport, logger });
  const rolledBack = address("rolled-back");
  const committed = address("committed");
  await database()
    .sql.begin(async (tx) => {
      await outbox.enqueue(tx, notice(rolledBack));
      throw new Error("the change failed");
    })
    .catch(() => {});
  await database().sql.begin((tx) => outbox.enqueue(tx, notice(committed)));
  await outbox.idle();
  assert.equal(
    held.delivered.map((mail) => mail.to),
    [committed],
  );
});

Outbox(
  "close waits for the running mail; past the grace what is left stays queued and the next outbox sends it",
  async () => {
    const { entries, logger } = capturedLogger();
    const held = heldTransport();
    held.hold();
    const stuck = await startOutbox({ transport: held.transport, logger, concurrency: 1 });
    const first = address("first");
    const second = address("second");
    await stuck.enqueue(database().sql, notice(first));
    await stuck.enqueue(database().sql, notice(second));
    assert.is((await held.pending()).to, first);
    await stuck.close(1);
    outboxes.splice(outboxes.indexOf(stuck), 1);
    assert.equal(held.delivered, []);
    // The held send is let go into a closed outbox: its job goes back to the queue rather than ending unsent.
    const delivered: string[] = [];
    const next = await startOutbox({ transport: { send: async (mail) => void delivered.push(mail.to) }, logger });
    held.release();
    await next.idle();
    assert.equal(
      delivered.filter((to) => to === second),
      [second],
    );
    assert.ok(delivered.includes(first) || held.delivered.some((mail) => mail.to === first));
    assert.equal(
      entries().filter((entry) => entry["msg"] === "console mail not sent"),
      [],
    );
  },
);

// Over HTTP: the real app with a transport the test holds.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
const password = "correct horse battery staple";
let app: TestApp | undefined;
const held = heldTransport();

Outbox.after(async () => {
  held.release();
  await app?.stop();
});

Outbox(
  "the reset answer for a known email arrives while the mail is held; released, the mail goes out and its link works",
  async () => {
    app = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" }, mailTransport: held.transport });
    const test = app;
    const api = (path: string, body: unknown) => consoleCall(test.base, "POST", path, body, undefined, randomAddress());
    const email = `outbox.${process.pid}.${Date.now()}@partner.test`;
    assert.is((await api("/v1/console/account/sign-up", { email, password })).status, 200);
    await test.app.mail.idle();
    assert.is(
      (await api("/v1/console/account/verify-email", { token: tokenOf(held.delivered.at(-1)!.link) })).status,
      200,
    );

    held.hold();
    // The signal only turns a hang (an answer that waits for the mail) into a failure; no time is asserted.
    const response = await fetch(`${test.base}/v1/console/account/password-reset`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": randomAddress() },
      body: JSON.stringify({ email }),
      signal: AbortSignal.timeout(20_000),
    });
    const answer = await answerOf(response);
    assert.is(answer.status, 200);
    assert.equal(answer.body, {});
    const waiting = await held.pending();
    assert.is(waiting.to, email);
    assert.is(
      held.delivered.filter((mail) => mail.subject === "Reset your password").length,
      0,
      "not sent before the release",
    );
    held.release();
    await test.app.mail.idle();
    const sent = held.delivered.filter((mail) => mail.subject === "Reset your password");
    assert.equal(
      sent.map((mail) => mail.to),
      [email],
    );
    assert.is(
      (
        await api("/v1/console/account/password-reset/confirm", {
          token: tokenOf(sent[0]!.link),
          newPassword: "a brand new passphrase here",
        })
      ).status,
      200,
    );

    // An unknown email: the same answer, and no mail.
    const before = held.delivered.length;
    const unknown = await api("/v1/console/account/password-reset", {
      email: `nobody.${process.pid}.${Date.now()}@partner.test`,
    });
    assert.is(unknown.status, answer.status);
    assert.equal(unknown.body, answer.body);
    await test.app.mail.idle();
    assert.is(held.delivered.length, before);
  },
);

Outbox.run();
