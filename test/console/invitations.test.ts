// Organization invitations over HTTP against the real app: the pending list, a resend (a new link, the old one
// answered as superseded, counted by the invitation limits), a revocation (the link answered as revoked), and the
// mail in the invitee's language (the one their account last used, else the inviter's page language) naming the
// organization, the inviter and the role in words. Time moves on the manual clock.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { invitesPerEmail } from "../../src/console/limits.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { consoleCall, expectError, mailedLink, mailsTo, tokenOf } from "../support/console.js";
import { randomAddress } from "../support/consent.js";
import { answerOf, type Answer } from "../support/sandbox.js";

const Invitations = suite("console/invitations");
// Ahead of real time (as console/service): no window the limits count in is already over in real time.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
let test: TestApp;
let serial = 0;
const password = "correct horse battery staple";

Invitations.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" } });
});
Invitations.after(async () => {
  await test.stop();
});

const newEmail = (who: string) => `${who}.${process.pid}.${++serial}@invite.test`;

/** A console call from an address of its own, in `language` when given (the page language a site call sends). */
async function api(method: string, path: string, body?: unknown, token?: string, language?: string): Promise<Answer> {
  if (!language) return consoleCall(test.base, method, path, body, token, randomAddress());
  const headers: Record<string, string> = { "x-forwarded-for": randomAddress(), "accept-language": language };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers["authorization"] = `Bearer ${token}`;
  return answerOf(
    await fetch(test.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
}

/** A verified account, signed in (in `language` when given): its email and access token. */
async function developer(who: string, language?: string) {
  const email = newEmail(who);
  assert.is((await api("POST", "/v1/console/account/sign-up", { email, password })).status, 200);
  const verified = await api("POST", "/v1/console/account/verify-email", {
    token: tokenOf(await mailedLink(test, email)),
  });
  assert.is(verified.status, 200);
  const signedIn = await api("POST", "/v1/console/session/sign-in", { email, password }, undefined, language);
  assert.is(signedIn.status, 200, JSON.stringify(signedIn.body));
  return { email, token: String((signedIn.body["session"] as Record<string, unknown>)["accessToken"]) };
}

async function organization(token: string, name: string) {
  const made = await api("POST", "/v1/console/organizations", { name }, token);
  assert.is(made.status, 200, JSON.stringify(made.body));
  return Number((made.body["organization"] as Record<string, number>)["organizationId"]);
}

const invite = (organizationId: number, email: string, role: string, token: string, language?: string) =>
  api("POST", `/v1/console/organizations/${organizationId}/invitations`, { email, role }, token, language);

const list = (organizationId: number, token: string) =>
  api("GET", `/v1/console/organizations/${organizationId}/invitations`, undefined, token);

const invitationIdOf = (answer: Answer) =>
  Number((answer.body["invitation"] as Record<string, number>)["invitationId"]);

Invitations("the pending list: email, role, sent, expires, inviter; newest first; accepted ones leave it", async () => {
  const owner = await developer("owner");
  const organizationId = await organization(owner.token, `Pending ${serial}`);
  const first = newEmail("first");
  const sentAt = new Date(clock.now()).toISOString();
  const created = await invite(organizationId, first, "VIEWER", owner.token);
  assert.is(created.status, 200, JSON.stringify(created.body));
  clock.advance(60_000);
  const invitee = await developer("second");
  const second = await invite(organizationId, invitee.email, "ADMIN", owner.token);

  const listed = await list(organizationId, owner.token);
  assert.is(listed.status, 200);
  const expires = (from: string) => new Date(Date.parse(from) + 7 * 24 * 3600_000).toISOString();
  const secondSent = new Date(Date.parse(sentAt) + 60_000).toISOString();
  assert.equal(listed.body, {
    invitations: [
      {
        invitationId: invitationIdOf(second),
        organizationId,
        email: invitee.email,
        role: "ADMIN",
        expiresAt: expires(secondSent),
        createdAt: secondSent,
        invitedByEmail: owner.email,
      },
      {
        invitationId: invitationIdOf(created),
        organizationId,
        email: first,
        role: "VIEWER",
        expiresAt: expires(sentAt),
        createdAt: sentAt,
        invitedByEmail: owner.email,
      },
    ],
  });
  // The create answer says the same of the invitation it made.
  assert.equal(created.body["invitation"], (listed.body["invitations"] as unknown[])[1]);

  // Accepted: no longer pending. Not a member: not told.
  const token = tokenOf(await mailedLink(test, invitee.email));
  assert.is((await api("POST", "/v1/console/invitations/accept", { token }, invitee.token)).status, 200);
  const after = await list(organizationId, invitee.token);
  assert.is(after.status, 200, "an admin (any member) reads the list");
  assert.equal(
    (after.body["invitations"] as Array<Record<string, unknown>>).map((row) => row["email"]),
    [first],
  );
  const outsider = await developer("outsider");
  expectError(await list(organizationId, outsider.token), 403, "developer.not_org_member");
});

Invitations("resend: a new link works, the old one says it was replaced; counted by the limits", async () => {
  const owner = await developer("owner");
  const organizationId = await organization(owner.token, `Resend ${serial}`);
  const invitee = await developer("invitee");
  const created = await invite(organizationId, invitee.email, "DEVELOPER", owner.token);
  const oldToken = tokenOf(await mailedLink(test, invitee.email));
  clock.advance(5 * 60_000); // within the access token's 15 minutes

  const resent = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/invitations/${invitationIdOf(created)}/resend`,
    {},
    owner.token,
  );
  assert.is(resent.status, 200, JSON.stringify(resent.body));
  const invitation = resent.body["invitation"] as Record<string, unknown>;
  assert.ok(invitationIdOf(resent) > invitationIdOf(created), "a new invitation");
  assert.is(invitation["role"], "DEVELOPER");
  // A new expiry, from the resend.
  assert.is(invitation["expiresAt"], new Date(clock.now() + 7 * 24 * 3600_000).toISOString());
  const mails = await mailsTo(test, invitee.email);
  const newToken = tokenOf(mails.at(-1)!.link);
  assert.is.not(newToken, oldToken);
  assert.equal(
    (await list(organizationId, owner.token)).body["invitations"],
    [invitation],
    "only the new one is pending",
  );

  expectError(
    await api("POST", "/v1/console/invitations/accept", { token: oldToken }, invitee.token),
    400,
    "developer.invite_superseded",
  );
  // The old one can be neither resent nor revoked again; an unknown id is not found.
  expectError(
    await api(
      "POST",
      `/v1/console/organizations/${organizationId}/invitations/${invitationIdOf(created)}/resend`,
      {},
      owner.token,
    ),
    409,
    "developer.invitation_not_pending",
  );
  expectError(
    await api("POST", `/v1/console/organizations/${organizationId}/invitations/999999/resend`, {}, owner.token),
    404,
    "developer.invitation_not_found",
  );
  const accepted = await api("POST", "/v1/console/invitations/accept", { token: newToken }, invitee.token);
  assert.is(accepted.status, 200, JSON.stringify(accepted.body));
  assert.is((accepted.body["organization"] as Record<string, string>)["role"], "DEVELOPER");

  // Limits: an invitation and its resends to one email count together, invitesPerEmail a day.
  const target = newEmail("flooded");
  let current = invitationIdOf(await invite(organizationId, target, "VIEWER", owner.token));
  for (let resend = 1; resend < invitesPerEmail; resend++) {
    const again = await api(
      "POST",
      `/v1/console/organizations/${organizationId}/invitations/${current}/resend`,
      {},
      owner.token,
    );
    assert.is(again.status, 200, `resend ${resend}: ${JSON.stringify(again.body)}`);
    current = invitationIdOf(again);
  }
  const refused = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/invitations/${current}/resend`,
    {},
    owner.token,
  );
  assert.is(refused.status, 429, JSON.stringify(refused.body));
  assert.is((refused.body["error"] as Record<string, string>)["code"], "developer.rate_limited");
  assert.is((await mailsTo(test, target)).length, invitesPerEmail, "no mail for the refused resend");
  // Refused before anything was written: the last invitation is still the pending one, its link still works.
  const pending = (await list(organizationId, owner.token)).body["invitations"] as Array<Record<string, unknown>>;
  assert.equal(
    pending.filter((row) => row["email"] === target).map((row) => row["invitationId"]),
    [current],
  );
});

Invitations("revoke: the link says it was withdrawn; only owners and admins may", async () => {
  const owner = await developer("owner");
  const organizationId = await organization(owner.token, `Revoke ${serial}`);
  const viewer = await developer("viewer");
  await invite(organizationId, viewer.email, "VIEWER", owner.token);
  assert.is(
    (
      await api(
        "POST",
        "/v1/console/invitations/accept",
        { token: tokenOf(await mailedLink(test, viewer.email)) },
        viewer.token,
      )
    ).status,
    200,
  );
  const invitee = await developer("invitee");
  const created = await invite(organizationId, invitee.email, "ADMIN", owner.token);
  const token = tokenOf(await mailedLink(test, invitee.email));
  const path = `/v1/console/organizations/${organizationId}/invitations/${invitationIdOf(created)}`;

  expectError(await api("DELETE", path, undefined, viewer.token), 403, "developer.insufficient_org_role");
  const revoked = await api("DELETE", path, undefined, owner.token);
  assert.is(revoked.status, 200, JSON.stringify(revoked.body));
  assert.equal(revoked.body, {});
  expectError(
    await api("POST", "/v1/console/invitations/accept", { token }, invitee.token),
    400,
    "developer.invite_revoked",
  );
  assert.equal((await list(organizationId, owner.token)).body["invitations"], []);
  expectError(await api("DELETE", path, undefined, owner.token), 409, "developer.invitation_not_pending");
  expectError(await api("POST", `${path}/resend`, {}, owner.token), 409, "developer.invitation_not_pending");
});

Invitations(
  "preview: what the link invites to, for the invited account only; refused as accepting would be",
  async () => {
    const owner = await developer("owner");
    const name = `Preview ${serial}`;
    const organizationId = await organization(owner.token, name);
    const invitee = await developer("invitee");
    const sentAt = clock.now();
    const created = await invite(organizationId, invitee.email, "DEVELOPER", owner.token);
    const token = tokenOf(await mailedLink(test, invitee.email));
    const preview = (as: string) => api("POST", "/v1/console/invitations/preview", { token }, as);

    const shown = await preview(invitee.token);
    assert.is(shown.status, 200, JSON.stringify(shown.body));
    assert.equal(shown.body, {
      invitation: {
        invitationId: invitationIdOf(created),
        organizationId,
        email: invitee.email,
        role: "DEVELOPER",
        expiresAt: new Date(sentAt + 7 * 24 * 3600_000).toISOString(),
        createdAt: new Date(sentAt).toISOString(),
        invitedByEmail: owner.email,
      },
      organizationName: name,
    });
    // It changes nothing: still pending, and it can be previewed again.
    assert.is(((await list(organizationId, owner.token)).body["invitations"] as unknown[]).length, 1);
    assert.is((await preview(invitee.token)).status, 200);

    const outsider = await developer("outsider");
    expectError(await preview(outsider.token), 403, "developer.invite_email_mismatch");
    expectError(
      await api("POST", "/v1/console/invitations/preview", { token: "not-a-token" }, invitee.token),
      400,
      "developer.invite_invalid",
    );
    expectError(await api("POST", "/v1/console/invitations/preview", { token }), 401, "developer.unauthenticated");
    assert.is((await api("POST", "/v1/console/invitations/accept", { token }, invitee.token)).status, 200);
    expectError(await preview(invitee.token), 400, "developer.invite_invalid");
  },
);

Invitations("the mail: the inviter's language for a newcomer, the invitee's own when known", async () => {
  const owner = await developer("owner");
  const name = `متجر الأمل ${serial}`;
  const organizationId = await organization(owner.token, name);

  // No account: the page language of the inviter (Arabic).
  const newcomer = newEmail("newcomer");
  assert.is((await invite(organizationId, newcomer, "ADMIN", owner.token, "ar")).status, 200);
  const arabic = (await mailsTo(test, newcomer)).at(-1)!;
  assert.is(arabic.subject, `دعاك \u2068${owner.email}\u2069 إلى \u2068${name}\u2069 على \u2066LP Partners\u2069`);
  assert.ok(arabic.text.includes(name), arabic.text);
  assert.ok(arabic.text.includes(owner.email), arabic.text);
  assert.ok(arabic.text.includes("بدور مسؤول"), arabic.text);
  assert.match(arabic.link, /\/invitations\/accept\?token=[A-Za-z0-9_-]{43}$/);

  // An account that last signed in in Hindi: Hindi, though the inviter's page is Arabic.
  const hindi = await developer("hindi", "hi");
  assert.is((await invite(organizationId, hindi.email, "VIEWER", owner.token, "ar")).status, 200);
  const mail = (await mailsTo(test, hindi.email)).at(-1)!;
  assert.is(mail.subject, `\u2068${owner.email}\u2069 ने आपको LP Partners पर \u2068${name}\u2069 में आमंत्रित किया है`);
  assert.ok(mail.text.includes(name), mail.text);
  assert.ok(mail.text.includes(owner.email), mail.text);
  assert.ok(mail.text.includes("दर्शक की भूमिका"), mail.text);

  // An inviter who names no language: English, the role in words.
  const english = newEmail("english");
  assert.is((await invite(organizationId, english, "DEVELOPER", owner.token)).status, 200);
  const plain = (await mailsTo(test, english)).at(-1)!;
  assert.is(plain.subject, `\u2068${owner.email}\u2069 invited you to \u2068${name}\u2069 on LP Partners`);
  assert.ok(plain.text.includes(`with the role Developer`), plain.text);
  assert.ok(plain.text.includes("UTC"), "the expiry says its time zone");
});

Invitations.run();
