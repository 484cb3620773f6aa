// src/console/sign-in-lockout.ts over HTTP against the real app: each attempt is counted before its password is
// checked, so 50 parallel wrong passwords from one address get exactly five 401s and 429s with Retry-After for the
// rest; the pair's lock lasts CONSOLE_LOCKOUT_SECONDS from the failure that set it, the right password included;
// from other addresses the email is slowed, never locked; successes never count; the per-address ceiling counts
// failures over any emails until its window ends. Time moves on the manual clock;
// each run uses fresh emails and addresses (the test apps trust 127.0.0.1 as a proxy), so runs sharing one Redis never share a counter.
import { advancing } from "../support/advancing.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createSignInLockout } from "../../src/console/sign-in-lockout.js";
import { readServiceError } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { createLogger } from "../../src/runtime/logger.js";
import { flakyStore } from "../support/storage.js";
import { randomAddress } from "../support/consent.js";
import { consoleCall, expectError, mailedLink, tokenOf } from "../support/console.js";
import type { Answer } from "../support/sandbox.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Lockout = suite("console/sign-in-lockout");
// 20 minutes into the next real hour: the manual clock is ahead of real time, so no Redis window it names expires
// during the run.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
const windowMs = 15 * 60_000;
let test: TestApp;
let serial = 0;
const password = "correct horse battery staple";

Lockout.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" } });
});
Lockout.after(async () => {
  await test.stop();
});

const newEmail = () => `lockout.${process.pid}.${Date.now()}.${++serial}@partner.test`;
const api = (method: string, path: string, body: unknown, address = randomAddress()): Promise<Answer> =>
  consoleCall(test.base, method, path, body, undefined, address);
const signIn = (email: string, pass: string, address?: string) =>
  api("POST", "/v1/console/session/sign-in", { email, password: pass }, address);

async function verifiedAccount(): Promise<string> {
  const email = newEmail();
  assert.is((await api("POST", "/v1/console/account/sign-up", { email, password })).status, 200);
  assert.is(
    (await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) })).status,
    200,
  );
  return email;
}

function expectLocked(answer: Answer, retryAfter: number) {
  expectError(answer, 429, "developer.too_many_attempts", { retryAfter });
  assert.is(answer.headers.get("retry-after"), String(retryAfter));
}

/** Whole seconds to the end of the current 15-minute window (the per-address ceiling's Retry-After). */
const toWindowEnd = () => Math.ceil(((Math.floor(clock.now() / windowMs) + 1) * windowMs - clock.now()) / 1000);

Lockout(
  "50 parallel wrong passwords from one address: five 401s, 45 429s with Retry-After; that pair locked 15 minutes from the failure, the right password included",
  async () => {
    const email = await verifiedAccount();
    const address = randomAddress();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => signIn(email, "wrong password, clearly", address)),
    );
    const failed = answers.filter((answer) => answer.status === 401);
    const refused = answers.filter((answer) => answer.status !== 401);
    assert.is(failed.length, 5, `statuses: ${answers.map((answer) => answer.status).join(",")}`);
    for (const answer of failed) expectError(answer, 401, "developer.sign_in_failed");
    assert.is(refused.length, 45);
    for (const answer of refused) expectLocked(answer, 900);

    expectLocked(await signIn(email, password, address), 900);
    // The lock outlives the fixed window it was set in (that one ended at the half hour).
    clock.advance(600_000);
    expectLocked(await signIn(email, password, address), 300);
    clock.advance(300_000 - 1);
    expectLocked(await signIn(email, password, address), 1);
    clock.advance(1);
    assert.is((await signIn(email, password, address)).status, 200);
  },
);

Lockout(
  "a stranger's failures lock the stranger's address only: the owner, from elsewhere, signs in slowed (1 s, 2 s, 4 s, capped at 8 s), never refused",
  async () => {
    const email = await verifiedAccount();
    const stranger = randomAddress();
    for (let i = 0; i < 5; i++)
      expectError(await signIn(email, "wrong password, clearly", stranger), 401, "developer.sign_in_failed");
    expectLocked(await signIn(email, password, stranger), 900);
    // The email has five failures: the owner's next attempt waits 1 s on the clock, then signs in.
    const own = randomAddress();
    const first = await advancing(clock, signIn(email, password, own));
    assert.is(first.value.status, 200);
    assert.ok(first.movedMs >= 1000, `slowed (${first.movedMs} ms)`);
    assert.ok(test.logs.some((line) => line.includes('"console sign-in slowed"') && line.includes('"ms":1000')));
    // More strangers, from addresses of their own: each waits longer; none is refused.
    for (let i = 0; i < 4; i++) {
      const wrong = await advancing(clock, signIn(email, "wrong password, clearly", randomAddress()));
      expectError(wrong.value, 401, "developer.sign_in_failed");
    }
    assert.ok(test.logs.some((line) => line.includes('"console sign-in slowed"') && line.includes('"ms":8000')));
    // Nine failures now: the owner waits the cap, 8 s, and signs in; the success counts for nothing.
    const owner = await advancing(clock, signIn(email, password, own));
    assert.is(owner.value.status, 200);
    assert.ok(owner.movedMs >= 8000, `slowed by the cap (${owner.movedMs} ms)`);
    // The cap: no wait longer than 8 s was ever asked for.
    const waits = test.logs
      .filter((line) => line.includes('"console sign-in slowed"'))
      .map((line) => JSON.parse(line).ms as number);
    assert.ok(Math.max(...waits) === 8000, `waits: ${waits.join(", ")}`);
    clock.advance(windowMs);
  },
);

Lockout("successes never count: four failures and any number of successes, then the fifth failure locks", async () => {
  const email = await verifiedAccount();
  const address = randomAddress();
  for (let i = 0; i < 4; i++)
    expectError(await signIn(email, "wrong password, clearly", address), 401, "developer.sign_in_failed");
  for (let i = 0; i < 6; i++) assert.is((await signIn(email, password, address)).status, 200, `success ${i + 1}`);
  expectError(await signIn(email, "wrong password, clearly", address), 401, "developer.sign_in_failed");
  expectLocked(await signIn(email, password, address), 900);
  // An unknown email locks alike: the lock says nothing about who has an account.
  const unknown = newEmail();
  const other = randomAddress();
  for (let i = 0; i < 5; i++)
    expectError(await signIn(unknown, "wrong password, clearly", other), 401, "developer.sign_in_failed");
  expectLocked(await signIn(unknown, "wrong password, clearly", other), 900);
  clock.advance(900_000);
});

Lockout(
  "per address: 20 failures over any emails, then 429 until the window ends; successes do not count; other addresses unaffected",
  async () => {
    const email = await verifiedAccount();
    const address = randomAddress();
    for (let i = 0; i < 19; i++)
      expectError(await signIn(newEmail(), "wrong password, clearly", address), 401, "developer.sign_in_failed");
    for (let i = 0; i < 3; i++) assert.is((await signIn(email, password, address)).status, 200);
    expectError(await signIn(newEmail(), "wrong password, clearly", address), 401, "developer.sign_in_failed");
    expectLocked(await signIn(newEmail(), "wrong password, clearly", address), toWindowEnd());
    // The right password from that address waits too; from another address the account signs in.
    expectLocked(await signIn(email, password, address), toWindowEnd());
    assert.is((await signIn(email, password, randomAddress())).status, 200);
    // Refused attempts were not counted as failures: the account itself is not locked.
    clock.advance(toWindowEnd() * 1000);
    assert.is((await signIn(email, password, address)).status, 200);
  },
);

Lockout.run();

// The lockout itself (createSignInLockout) on a store that fails like an unreachable Redis: nothing opens.
const Outage = suite("console/sign-in-lockout while the store fails");
const domain = "partnerapi.v1.ConsoleService";

function lockoutOn(at: number) {
  const outageClock = createManualClock(at);
  const { store, state } = flakyStore(outageClock);
  const lines: string[] = [];
  const lockout = createSignInLockout({
    kv: store,
    clock: outageClock,
    logger: createLogger({ write: (line) => lines.push(line) }),
    domain,
    limit: 5,
    addressLimit: 20,
    windowSeconds: 900,
  });
  return { lockout, state, clock: outageClock, lines };
}

/** The retryAfter of the developer.too_many_attempts `begin` throws, or undefined when it admits. */
async function refusedFor(
  lockout: ReturnType<typeof createSignInLockout>,
  email: string,
  address: string,
): Promise<number | undefined> {
  try {
    await lockout.begin(email, address);
    return undefined;
  } catch (error) {
    const read = readServiceError(error);
    assert.is(read.code, "developer.too_many_attempts");
    return Number(read.params.retryAfter);
  }
}

Outage(
  "Redis away: five failures, then the lock (Retry-After 900), the right password included; held 900 s from the failure across the window's end",
  async () => {
    // The fifth failure comes 10 s before the fixed window ends: the lock must not end with the window.
    const windowEnd = Math.ceil(Date.now() / windowMs) * windowMs + windowMs;
    const { lockout, state, clock: at } = lockoutOn(windowEnd - 10_000);
    state.down = true;
    for (let i = 0; i < 5; i++) await (await lockout.begin("a@partner.test", "addr-a")).failed();
    assert.is(await refusedFor(lockout, "a@partner.test", "addr-a"), 900, "locked for the full period");
    at.advance(20_000);
    assert.is(
      await refusedFor(lockout, "a@partner.test", "addr-a"),
      880,
      "the next window: still locked, from the failure",
    );
    at.advance(879_000);
    assert.is(await refusedFor(lockout, "a@partner.test", "addr-a"), 1);
    at.advance(1_000);
    // Unlocked, and not slowed: the email's failures were counted in the window before this one.
    const attempt = await lockout.begin("a@partner.test", "addr-a");
    await attempt.succeeded();
  },
);

Outage(
  "a lock set while Redis is away holds in this process after Redis returns; one set with Redis holds while it is away",
  async () => {
    const { lockout, state, clock: at, lines } = lockoutOn(Math.ceil(Date.now() / windowMs) * windowMs + 60_000);
    state.down = true;
    for (let i = 0; i < 5; i++) await (await lockout.begin("b@partner.test", "addr-a")).failed();
    state.down = false;
    at.advance(60_000);
    assert.is(await refusedFor(lockout, "b@partner.test", "addr-a"), 840, "Redis never saw the lock; this process did");
    assert.ok(lines.some((line) => line.includes("console sign-in lock kept in this process only")));

    for (let i = 0; i < 5; i++) await (await lockout.begin("c@partner.test", "addr-a")).failed();
    state.down = true;
    at.advance(100_000);
    assert.is(
      await refusedFor(lockout, "c@partner.test", "addr-a"),
      800,
      "the lock outlives the outage of the store that holds it",
    );
  },
);

Outage("Redis away: 50 parallel wrong passwords from one address, exactly five reach the password check", async () => {
  const { lockout, state } = lockoutOn(Math.ceil(Date.now() / windowMs) * windowMs + 60_000);
  state.down = true;
  const outcomes = await Promise.all(
    Array.from({ length: 50 }, async () => {
      try {
        const attempt = await lockout.begin("d@partner.test", "addr-a");
        await attempt.failed();
        return "checked";
      } catch (error) {
        return readServiceError(error).code;
      }
    }),
  );
  assert.is(outcomes.filter((outcome) => outcome === "checked").length, 5);
  assert.is(outcomes.filter((outcome) => outcome === "developer.too_many_attempts").length, 45);
});

Outage.run();
