// src/console/limits.ts over HTTP against the real app: sign-up, password reset, invitations and sandbox merchant
// provisioning are counted per target (email, organization) and per source address before any work; over a
// ceiling they answer 429 developer.rate_limited with Retry-After (seconds to the end of the fixed hour or UTC day).
// A refused reset answers the same for a known and an unknown email. Time moves on the manual clock; each run uses
// fresh emails, organizations and addresses (the test apps trust 127.0.0.1 as a proxy), so runs sharing one Redis never share a counter.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { randomAddress } from "../support/consent.js";
import { consoleCall, expectError, mailedLink, tokenOf } from "../support/console.js";
import type { Answer } from "../support/sandbox.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Limits = suite("console/limits");
// 20 minutes into the next real hour: the manual clock is ahead of real time, so no Redis window it names expires
// during the run.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
let test: TestApp;
let serial = 0;
const password = "correct horse battery staple";
// A small sandbox ceiling (the knob) keeps the provisioning loop short; the others run at their defaults.
const provisionLimit = 3;

Limits.before(async () => {
  test = await startTestApp({
    clock,
    redis: true,
    env: { TRUST_PROXY: "127.0.0.1", CONSOLE_SANDBOX_PROVISION_LIMIT: String(provisionLimit) },
  });
});
Limits.after(async () => {
  await test.stop();
});

const newEmail = (who = "dev") => `${who}.${process.pid}.${Date.now()}.${++serial}@limits.test`;
const api = (
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  address = randomAddress(),
): Promise<Answer> => consoleCall(test.base, method, path, body, token, address);
const signUp = (email: string, address?: string) =>
  api("POST", "/v1/console/account/sign-up", { email, password }, undefined, address);
const reset = (email: string, address?: string) =>
  api("POST", "/v1/console/account/password-reset", { email }, undefined, address);

/** Whole seconds to the end of the current fixed window of `windowMs` on the manual clock. */
const toEnd = (windowMs: number) =>
  Math.ceil(((Math.floor(clock.now() / windowMs) + 1) * windowMs - clock.now()) / 1000);
const hour = 3_600_000;
const day = 24 * hour;

function expectLimited(answer: Answer, retryAfter: number) {
  expectError(answer, 429, "developer.rate_limited", { retryAfter });
  assert.is(answer.headers.get("retry-after"), String(retryAfter));
}

async function mailsTo(email: string) {
  await test.app.mail.idle();
  return test.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry["msg"] === "console mail" && entry["to"] === email);
}

async function signedIn() {
  const email = newEmail();
  assert.is((await signUp(email)).status, 200);
  assert.is(
    (await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) })).status,
    200,
  );
  const session = (await api("POST", "/v1/console/session/sign-in", { email, password })).body["session"] as Record<
    string,
    string
  >;
  return { email, token: session["accessToken"]! };
}

async function organization(token: string) {
  const made = await api("POST", "/v1/console/organizations", { name: `Org ${++serial}` }, token);
  assert.is(made.status, 200, JSON.stringify(made.body));
  return Number((made.body["organization"] as Record<string, number>)["organizationId"]);
}

Limits(
  "sign-up: 3 per email per hour (notices to a taken address included), 10 per address per hour, counted before the scrypt",
  async () => {
    const email = newEmail();
    for (let i = 0; i < 3; i++) assert.equal((await signUp(email)).body, {});
    expectLimited(await signUp(email), toEnd(hour));
    // One verification link and two notices reached the address, no more.
    assert.equal(
      (await mailsTo(email)).map((mail) => mail["subject"]),
      ["Verify your email address", "You already have a developer account", "You already have a developer account"],
    );

    const address = randomAddress();
    for (let i = 0; i < 10; i++) assert.is((await signUp(newEmail(), address)).status, 200, `sign-up ${i + 1}`);
    const refused = newEmail();
    expectLimited(await signUp(refused, address), toEnd(hour));
    // Refused before any work: no account, no mail.
    assert.is(
      (await test.app.control.sql`select 1 from control.developer_accounts where email = ${refused}`).length,
      0,
    );
    assert.equal(await mailsTo(refused), []);
    assert.is((await signUp(refused)).status, 200, "another address");
    clock.advance(toEnd(hour) * 1000);
    assert.is((await signUp(newEmail(), address)).status, 200, "the next hour");
  },
);

Limits(
  "password reset: 5 per email per hour, a known and an unknown email alike; 20 per address per hour",
  async () => {
    const known = (await signedIn()).email;
    const unknown = newEmail("nobody");
    for (let i = 0; i < 5; i++) {
      const [forKnown, forUnknown] = [await reset(known), await reset(unknown)];
      assert.is(forKnown.status, 200);
      assert.equal(forKnown.body, {});
      assert.equal(forUnknown.body, forKnown.body);
    }
    const refusedKnown = await reset(known);
    const refusedUnknown = await reset(unknown);
    expectLimited(refusedKnown, toEnd(hour));
    expectLimited(refusedUnknown, toEnd(hour));
    assert.is((await mailsTo(known)).filter((mail) => mail["subject"] === "Reset your password").length, 5);
    assert.equal(await mailsTo(unknown), []);

    const address = randomAddress();
    for (let i = 0; i < 20; i++) assert.is((await reset(newEmail("nobody"), address)).status, 200, `reset ${i + 1}`);
    expectLimited(await reset(known, address), toEnd(hour));
    assert.is((await reset(newEmail("nobody"), randomAddress())).status, 200, "another address");
  },
);

Limits("invitations: 5 per invited email per day over every organization, 50 per organization per day", async () => {
  const owner = await signedIn();
  const organizations: number[] = [];
  for (let i = 0; i < 6; i++) organizations.push(await organization(owner.token));
  const [first, second] = organizations as [number, number];
  const invite = (organizationId: number, email: string) =>
    api("POST", `/v1/console/organizations/${organizationId}/invitations`, { email, role: "DEVELOPER" }, owner.token);
  // One pending invitation per email and organization (a second is developer.invitation_pending), so the email's
  // five a day are counted over five organizations, and the sixth is refused by the count.
  const target = newEmail("invitee");
  for (const organizationId of organizations.slice(0, 5)) assert.is((await invite(organizationId, target)).status, 200);
  expectLimited(await invite(organizations[5]!, target), toEnd(day));
  assert.is((await mailsTo(target)).length, 5);

  // The first organization has sent 1; 49 more reach its 50, the next is refused; the second one still invites.
  for (let i = 0; i < 49; i++) assert.is((await invite(first, newEmail("invitee"))).status, 200, `invitation ${i + 2}`);
  expectLimited(await invite(first, newEmail("invitee")), toEnd(day));
  assert.is((await invite(second, newEmail("invitee"))).status, 200);
  // Bad input is still a 400 in the developer envelope, not a count.
  expectError(await invite(first, "not an email"), 400, "developer.invalid_request", { fields: "email" }, [
    { field: "email", rule: "must be an email address" },
  ]);
});

Limits(
  "sandbox: deactivate-then-provision cannot loop; CONSOLE_SANDBOX_PROVISION_LIMIT per organization per day",
  async () => {
    const owner = await signedIn();
    const organizationId = await organization(owner.token);
    const base = `/v1/console/organizations/${organizationId}/sandbox-merchants`;
    for (let i = 0; i < provisionLimit; i++) {
      const made = await api("POST", base, { country: "GB" }, owner.token);
      assert.is(made.status, 200, JSON.stringify(made.body));
      const companyId = (made.body["merchant"] as Record<string, number>)["companyId"];
      assert.is((await api("POST", `${base}/${companyId}/active`, { active: false }, owner.token)).status, 200);
    }
    // No merchant is active, so the three-active ceiling does not stop it; the daily count does.
    expectLimited(await api("POST", base, { country: "GB" }, owner.token), toEnd(day));
    const other = await organization(owner.token);
    assert.is(
      (await api("POST", `/v1/console/organizations/${other}/sandbox-merchants`, { country: "GB" }, owner.token))
        .status,
      200,
    );
    clock.advance(toEnd(day) * 1000);
    const next = (await api("POST", "/v1/console/session/sign-in", { email: owner.email, password })).body[
      "session"
    ] as Record<string, string>;
    assert.is((await api("POST", base, { country: "GB" }, next["accessToken"])).status, 200, "the next day");
  },
);

Limits.run();
