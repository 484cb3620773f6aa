// src/console/mail-outbox.ts: mail leaves off the request path. In isolation: retries with backoff, the last failure
// logged without the link or body, nothing sent when there is nothing to say, bounded, drained on close within the
// grace and the rest logged. Over HTTP against the real app: the password-reset answer for a known email arrives
// while the transport still holds its mail, and the mail goes out when released; an unknown email answers the same
// and gets none.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import type { Mail, MailTransport } from "../../src/console/mail.js";
import { createMailOutbox } from "../../src/console/mail-outbox.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { createLogger } from "../../src/runtime/logger.js";
import { randomAddress } from "../support/consent.js";
import { consoleCall, tokenOf } from "../support/console.js";
import { answerOf } from "../support/sandbox.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Outbox = suite("console/mail-outbox");

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

Outbox("a failing send is retried with backoff and delivered once it works; nothing is logged", async () => {
  const { entries, logger } = capturedLogger();
  const delivered: Mail[] = [];
  let tries = 0;
  const transport: MailTransport = {
    async send(mail) {
      if (++tries < 3) throw Object.assign(new Error("451 try again later"), { code: "EENVELOPE" });
      delivered.push(mail);
    },
  };
  const outbox = createMailOutbox({ transport, logger, backoffMs: [0, 0] });
  outbox.enqueue("password reset", "dev@partner.test", async () => mailTo("dev@partner.test"));
  await outbox.idle();
  assert.is(tries, 3);
  assert.equal(delivered, [mailTo("dev@partner.test")]);
  assert.equal(entries(), []);
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
  const outbox = createMailOutbox({ transport, logger, backoffMs: [0, 0] });
  outbox.enqueue("password reset", "dev@partner.test", async () => mailTo("dev@partner.test"));
  await outbox.idle();
  assert.is(tries, 3);
  const failures = entries().filter((entry) => entry["msg"] === "console mail not sent");
  assert.is(failures.length, 1);
  assert.is(failures[0]!["level"], "error");
  assert.is(failures[0]!["what"], "password reset");
  assert.is(failures[0]!["to"], "dev@partner.test");
  assert.is(failures[0]!["subject"], "Reset your password");
  assert.is(failures[0]!["tries"], 3);
  assert.equal(failures[0]!["error"], { errorCode: "ESOCKET", message: "connect ECONNREFUSED 127.0.0.1:25" });
  assert.not.match(lines.join("\n"), "token=");
  assert.not.match(lines.join("\n"), "choose a new password");
});

Outbox("work that finds nobody to mail sends nothing; work that fails to compose is retried, then logged", async () => {
  const { entries, logger } = capturedLogger();
  const held = heldTransport();
  const outbox = createMailOutbox({ transport: held.transport, logger, backoffMs: [0] });
  outbox.enqueue("password reset", "nobody@partner.test", async () => undefined);
  let composed = 0;
  outbox.enqueue("password reset", "dev@partner.test", async () => {
    composed++;
    throw new Error("database unavailable");
  });
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
    const outbox = createMailOutbox({ transport, logger, concurrency: 4, backoffMs: [] });
    // The first mail to dev@ takes longest to compose (it reads the account and stores a link); without the order
    // kept, the notice asked for after it would reach the mailbox first.
    let releaseVerification: () => void = () => {};
    const verificationComposing = new Promise<void>((resolve) => (releaseVerification = resolve));
    let noticeComposed = false;
    outbox.enqueue("email verification", "dev@partner.test", async () => {
      await verificationComposing;
      return { ...mailTo("dev@partner.test"), subject: "Verify your email" };
    });
    outbox.enqueue("sign-up notice", "dev@partner.test", async () => {
      noticeComposed = true;
      return { ...mailTo("dev@partner.test"), subject: "Someone signed up with your email" };
    });
    outbox.enqueue("invitation", "other@partner.test", async () => mailTo("other@partner.test"));
    // Another address is sent while dev@'s first mail is still being composed, and dev@'s second is not started.
    while (delivered.length === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(delivered, ["other@partner.test Reset your password"]);
    assert.is(noticeComposed, false);
    releaseVerification();
    await outbox.idle();
    assert.equal(delivered, [
      "other@partner.test Reset your password",
      "dev@partner.test Verify your email",
      "dev@partner.test Someone signed up with your email",
    ]);
  },
);

Outbox("bounded: beyond its capacity a mail is dropped and logged, never queued", async () => {
  const { entries, logger } = capturedLogger();
  const held = heldTransport();
  held.hold();
  const outbox = createMailOutbox({ transport: held.transport, logger, capacity: 2, concurrency: 1, backoffMs: [] });
  for (const to of ["a@partner.test", "b@partner.test", "c@partner.test"])
    outbox.enqueue("invitation", to, async () => mailTo(to));
  const dropped = entries().filter((entry) => entry["msg"] === "console mail dropped: the outbox is full");
  assert.equal(
    dropped.map((entry) => [entry["what"], entry["capacity"]]),
    [["invitation", 2]],
  );
  assert.is((await held.pending()).to, "a@partner.test");
  held.release();
  await outbox.idle();
  assert.equal(
    held.delivered.map((mail) => mail.to),
    ["a@partner.test", "b@partner.test"],
  );
});

Outbox(
  "close drains what is queued; past the grace the rest is logged as unsent, and later work is dropped",
  async () => {
    const { entries, logger } = capturedLogger();
    const held = heldTransport();
    const drained = createMailOutbox({ transport: held.transport, logger });
    for (const to of ["a@partner.test", "b@partner.test", "c@partner.test", "d@partner.test", "e@partner.test"])
      drained.enqueue("invitation", to, async () => mailTo(to));
    await drained.close(10_000);
    assert.is(held.delivered.length, 5);
    assert.equal(entries(), []);

    held.hold();
    const stuck = createMailOutbox({ transport: held.transport, logger, concurrency: 1 });
    stuck.enqueue("invitation", "f@partner.test", async () => mailTo("f@partner.test"));
    stuck.enqueue("invitation", "g@partner.test", async () => mailTo("g@partner.test"));
    await held.pending();
    await stuck.close(1);
    assert.equal(
      entries().map((entry) => [entry["msg"], entry["unsent"]]),
      [["console mail outbox closed with mail unsent", 2]],
    );
    stuck.enqueue("invitation", "h@partner.test", async () => mailTo("h@partner.test"));
    assert.is(entries().at(-1)!["msg"], "console mail dropped: the outbox is closed");
    held.release();
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
