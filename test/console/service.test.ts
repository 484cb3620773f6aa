// The developer console over HTTP against the real app: a new partner's whole path from sign-up to a sandbox token
// and /v1/items, every developer code of the spec's account, program and organization tables with its status in
// the developer envelope, session rotation and reuse, and two parallel redemptions of one invitation. Staff
// decisions go through the internal port (gRPC), as operators make them. Time moves on the manual clock.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { grpcTransport } from "../support/internal.js";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { consoleCall, developerError, expectError, mailedLink, tokenOf } from "../support/console.js";
import { randomAddress } from "../support/consent.js";
import type { Answer } from "../support/sandbox.js";

const Console = suite("console/service");
// 20 minutes into the next real hour: the manual clock is ahead of real time, so no Redis window it names (they
// expire at their end on this clock) is already over in real time when the lockout counts in it.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let serial = 0;
const password = "correct horse battery staple";

Console.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { TRUST_PROXY: "127.0.0.1" } });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
});
Console.after(async () => {
  await test.stop();
});

const newEmail = (who = "dev") => `${who}.${process.pid}.${++serial}@partner.test`;

// Each call from an address of its own: the per-address limits (console/limits, console/sign-in-lockout) never bind
// here, and runs sharing one Redis never share a counter.
const api = (method: string, path: string, body?: unknown, token?: string): Promise<Answer> =>
  consoleCall(test.base, method, path, body, token, randomAddress());

async function signUp(email: string) {
  const answer = await api("POST", "/v1/console/account/sign-up", { email, password });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body, {});
}

async function signIn(email: string, pass = password, address = randomAddress()) {
  return consoleCall(test.base, "POST", "/v1/console/session/sign-in", { email, password: pass }, undefined, address);
}

/** A verified, signed-in developer. */
async function developerAccount(who = "dev") {
  const email = newEmail(who);
  await signUp(email);
  assert.is(
    (await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) })).status,
    200,
  );
  const session = (await signIn(email)).body["session"] as Record<string, unknown>;
  const token = String(session["accessToken"]);
  const account = (await api("GET", "/v1/console/account", undefined, token)).body["account"] as Record<
    string,
    unknown
  >;
  return { email, token, refreshToken: String(session["refreshToken"]), accountId: Number(account["accountId"]) };
}

/** Program approved and the active agreement signed. */
async function admitted(who = "dev") {
  const dev = await developerAccount(who);
  const applied = await api(
    "POST",
    "/v1/console/program/applications",
    { companyName: "Acme Ltd", website: "https://acme.test" },
    dev.token,
  );
  const applicationId = BigInt((applied.body["application"] as Record<string, number>)["applicationId"]!);
  await staff.decideProgramApplication({ applicationId, approve: true });
  const agreement = await api("GET", "/v1/console/program/agreement", undefined, dev.token);
  const version = (agreement.body["agreement"] as Record<string, number>)["version"];
  assert.is((await api("POST", "/v1/console/program/agreement/signatures", { version }, dev.token)).status, 200);
  return dev;
}

async function organization(token: string) {
  const made = await api("POST", "/v1/console/organizations", { name: `Org ${++serial}` }, token);
  assert.is(made.status, 200, JSON.stringify(made.body));
  return Number((made.body["organization"] as Record<string, number>)["organizationId"]);
}

Console("a new partner, over HTTP only: sign-up to a sandbox token and /v1/items", async () => {
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  const email = newEmail("partner");
  await signUp(email);
  // The verification link went to the log transport; only its hash is stored.
  const link = await mailedLink(test, email);
  assert.ok(link.startsWith(`${test.console}/verify-email?token=`), link);
  assert.match(link, /\/verify-email\?token=[A-Za-z0-9_-]{43}$/);
  const token = tokenOf(link);
  const stored = await test.app.control.sql`select token_hash from control.developer_links`;
  assert.ok(stored.every((row) => row["token_hash"] !== token));
  assert.equal((await api("POST", "/v1/console/account/verify-email", { token })).body, {});

  const signedIn = await signIn(email);
  assert.is(signedIn.status, 200);
  assert.is(signedIn.headers.get("cache-control"), "no-store");
  const session = signedIn.body["session"] as Record<string, unknown>;
  assert.equal(Object.keys(session).sort(), [
    "accessToken",
    "expiresIn",
    "refreshToken",
    "refreshTokenExpiresIn",
    "tokenType",
  ]);
  assert.is(session["tokenType"], "Bearer");
  assert.is(session["expiresIn"], 900);
  const access = String(session["accessToken"]);
  const claims = JSON.parse(Buffer.from(access.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
  assert.is(claims["aud"], "partnerapi-console");

  const applied = await api(
    "POST",
    "/v1/console/program/applications",
    { companyName: "Partner Co", useCase: "stock sync" },
    access,
  );
  assert.is(applied.status, 200);
  const application = applied.body["application"] as Record<string, unknown>;
  assert.is(application["state"], "PENDING");
  assert.not.ok("decidedAt" in application, 'unset while pending: absent, not ""');
  const decided = await staff.decideProgramApplication({
    applicationId: BigInt(application["applicationId"] as number),
    approve: true,
  });
  assert.is(decided.application?.state, 2);

  const agreement = (await api("GET", "/v1/console/program/agreement", undefined, access)).body["agreement"] as Record<
    string,
    unknown
  >;
  const signed = await api(
    "POST",
    "/v1/console/program/agreement/signatures",
    { version: agreement["version"] },
    access,
  );
  assert.is(signed.status, 200);
  assert.is(signed.body["version"], agreement["version"]);

  const organizationId = await organization(access);
  // One wire (docs/decisions.md): the spec's spellings only; a proto name, a number or the zero value is refused.
  for (const product of ["PRODUCT_FULL", 1, "UNSPECIFIED", "full"]) {
    const refused = await api(
      "POST",
      `/v1/console/organizations/${organizationId}/apps`,
      { name: "Stock sync", product },
      access,
    );
    assert.is(refused.status, 400, String(product));
    assert.equal((refused.body["error"] as Record<string, unknown>)["params"], { fields: "product" });
  }
  const snake = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/apps`,
    { name: "Stock sync", product: "FULL", organization_id: organizationId },
    access,
  );
  assert.equal(
    (snake.body["error"] as Record<string, unknown>)["params"],
    { fields: "organization_id" },
    "snake_case is not the console's spelling",
  );
  const badPath = await api(
    "POST",
    `/v1/console/organizations/0/apps`,
    { name: "Stock sync", product: "FULL" },
    access,
  );
  assert.equal(
    (badPath.body["error"] as Record<string, unknown>)["params"],
    { fields: "organizationId" },
    "a path field is named by its JSON name",
  );
  const app = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/apps`,
    { name: "Stock sync", product: "FULL" },
    access,
  );
  assert.is(app.status, 200, JSON.stringify(app.body));
  const sandbox = app.body["sandbox"] as Record<string, string>;
  assert.match(sandbox["clientId"]!, /^lp_app_sb/);
  assert.match(sandbox["clientSecret"]!, /^lp_sk_sb_/);

  const merchant = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/sandbox-merchants`,
    { country: "GB" },
    access,
  );
  assert.is(merchant.status, 200, JSON.stringify(merchant.body));
  const companyId = (merchant.body["merchant"] as Record<string, number>)["companyId"];
  assert.ok(((merchant.body["owner"] as Record<string, string>)["password"] ?? "").length > 0);

  const minted = await api("POST", "/v1/token", {
    grant_type: "client_credentials",
    client_id: sandbox["clientId"],
    client_secret: sandbox["clientSecret"],
  });
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  const items = await fetch(`${test.base}/v1/items?limit=5`, {
    headers: { authorization: `Bearer ${String(minted.body["access_token"])}` },
  });
  const itemsBody = (await items.json()) as { items: unknown[] };
  assert.is(items.status, 200);
  assert.is(itemsBody.items.length, 5);
  assert.ok(companyId! > 0);
  // Provisioned from the console, the sandbox merchant has the demo's ninety days of sales (issue 18).
  const to = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const report = await fetch(`${test.base}/v1/reports/sales-by-store?from=${from}&to=${to}`, {
    headers: { authorization: `Bearer ${String(minted.body["access_token"])}` },
  });
  const byStore = (await report.json()) as {
    stores: Array<{ totalMinor: number | string; saleCount: number | string }>;
  };
  assert.is(report.status, 200, JSON.stringify(byStore));
  assert.is(byStore.stores.length, 2);
  for (const store of byStore.stores)
    assert.ok(Number(store.totalMinor) > 0 && Number(store.saleCount) >= 30 * 3, JSON.stringify(store));

  // Tokens stay in their lane: the console token is refused on partner routes, the partner token on the console.
  const partnerWithConsole = await fetch(`${test.base}/v1/items`, { headers: { authorization: `Bearer ${access}` } });
  assert.is(partnerWithConsole.status, 401);
  assert.is(((await partnerWithConsole.json()) as { code: string }).code, "partner.token_invalid");
  expectError(
    await api("GET", "/v1/console/account", undefined, String(minted.body["access_token"])),
    401,
    "developer.unauthenticated",
  );
  expectError(await api("GET", "/v1/console/account"), 401, "developer.unauthenticated");
});

Console(
  "accounts: weak password, unverified sign-in, wrong password, lockout that reveals nothing, suspension",
  async () => {
    const weak = await api("POST", "/v1/console/account/sign-up", { email: newEmail(), password: "short" });
    assert.is(weak.status, 400);
    assert.equal(
      weak.body,
      developerError("developer.password_too_weak", { rule: "at least 12 characters" }, [
        { field: "password", rule: "at least 12 characters" },
      ]),
    );

    const email = newEmail();
    await signUp(email);
    expectError(await signIn(email), 403, "developer.email_not_verified");
    // Signing up again with the same address answers the same, and mails a notice rather than a second account.
    await signUp(email);
    assert.is(await mailedLink(test, email), `${test.console}/sign-in`);

    const verified = await developerAccount();
    const unknown = newEmail("nobody");
    const address = randomAddress();
    for (let attempt = 0; attempt < 5; attempt++) {
      expectError(await signIn(verified.email, "wrong password, clearly", address), 401, "developer.sign_in_failed");
      expectError(await signIn(unknown, "wrong password, clearly", address), 401, "developer.sign_in_failed");
    }
    // Locked now from that address, for 15 minutes from the fifth failure, the right password included; an unknown
    // email answers alike (console/sign-in-lockout: from elsewhere the account is slowed, never locked).
    const locked = await signIn(verified.email, password, address);
    expectError(locked, 429, "developer.too_many_attempts", { retryAfter: 900 });
    assert.is(locked.headers.get("retry-after"), "900");
    expectError(await signIn(unknown, password, address), 429, "developer.too_many_attempts", { retryAfter: 900 });
    clock.advance(15 * 60_000);
    assert.is((await signIn(verified.email, password, address)).status, 200);

    const suspended = await developerAccount();
    await staff.setAccountSuspended({ accountId: BigInt(suspended.accountId), suspended: true });
    expectError(await signIn(suspended.email), 403, "developer.account_suspended");
    // Suspension also ends the sessions it had.
    expectError(await api("GET", "/v1/console/account", undefined, suspended.token), 401, "developer.unauthenticated");
  },
);

Console("sessions: refresh rotates; a refresh token presented twice revokes the family", async () => {
  const dev = await developerAccount();
  const first = await api("POST", "/v1/console/session/refresh", { refreshToken: dev.refreshToken });
  assert.is(first.status, 200);
  const rotated = first.body["session"] as Record<string, string>;
  assert.is.not(rotated["refreshToken"], dev.refreshToken);
  expectError(
    await api("POST", "/v1/console/session/refresh", { refreshToken: dev.refreshToken }),
    401,
    "developer.refresh_reuse_detected",
  );
  // The whole family is gone: the newest refresh token and the access tokens of the session.
  expectError(
    await api("POST", "/v1/console/session/refresh", { refreshToken: rotated["refreshToken"] }),
    401,
    "developer.refresh_invalid",
  );
  expectError(
    await api("GET", "/v1/console/account", undefined, rotated["accessToken"]),
    401,
    "developer.unauthenticated",
  );
  // Access tokens expire on the clock.
  const other = await developerAccount();
  clock.advance(901_000);
  expectError(await api("GET", "/v1/console/account", undefined, other.token), 401, "developer.unauthenticated");
});

Console("password reset by mailed link: single use, old sessions end, new password works", async () => {
  const dev = await developerAccount();
  assert.equal((await api("POST", "/v1/console/account/password-reset", { email: dev.email })).body, {});
  assert.equal((await api("POST", "/v1/console/account/password-reset", { email: newEmail("nobody") })).body, {});
  const token = tokenOf(await mailedLink(test, dev.email));
  const next = "a brand new passphrase here";
  assert.is(
    (await api("POST", "/v1/console/account/password-reset/confirm", { token, newPassword: next })).status,
    200,
  );
  expectError(
    await api("POST", "/v1/console/account/password-reset/confirm", { token, newPassword: next }),
    400,
    "developer.link_invalid",
  );
  expectError(await api("GET", "/v1/console/account", undefined, dev.token), 401, "developer.unauthenticated");
  expectError(await signIn(dev.email), 401, "developer.sign_in_failed");
  assert.is((await signIn(dev.email, next)).status, 200);
});

Console(
  "program: nda_required, nda_already_submitted, nda_not_approved, agreement_required, agreement_version_stale",
  async () => {
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/a" });
    const dev = await developerAccount();
    const organizationId = await organization(dev.token);
    const createApp = () =>
      api("POST", `/v1/console/organizations/${organizationId}/apps`, { name: "App", product: "FULL" }, dev.token);
    expectError(await createApp(), 403, "developer.nda_required");
    const applied = await api("POST", "/v1/console/program/applications", { companyName: "Acme" }, dev.token);
    expectError(
      await api("POST", "/v1/console/program/applications", { companyName: "Acme" }, dev.token),
      409,
      "developer.nda_already_submitted",
    );
    expectError(await createApp(), 403, "developer.nda_not_approved");
    const applicationId = BigInt((applied.body["application"] as Record<string, number>)["applicationId"]!);
    await staff.decideProgramApplication({ applicationId, approve: true });
    expectError(await createApp(), 403, "developer.agreement_required");
    const old = (await api("GET", "/v1/console/program/agreement", undefined, dev.token)).body["agreement"] as Record<
      string,
      number
    >;
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/b" });
    expectError(
      await api("POST", "/v1/console/program/agreement/signatures", { version: old["version"] }, dev.token),
      409,
      "developer.agreement_version_stale",
    );
    assert.is(
      (await api("POST", "/v1/console/program/agreement/signatures", { version: old["version"]! + 1 }, dev.token))
        .status,
      200,
    );
    assert.is((await createApp()).status, 200);
  },
);

Console("organizations: roles, not_org_member, insufficient_org_role, owner_immutable, invitations", async () => {
  const owner = await admitted("owner");
  const organizationId = await organization(owner.token);
  const outsider = await developerAccount("outsider");
  expectError(
    await api("GET", `/v1/console/organizations/${organizationId}/members`, undefined, outsider.token),
    403,
    "developer.not_org_member",
  );

  const viewer = await admitted("viewer");
  const invited = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/invitations`,
    { email: viewer.email, role: "VIEWER" },
    owner.token,
  );
  assert.is(invited.status, 200, JSON.stringify(invited.body));
  const viewerToken = tokenOf(await mailedLink(test, viewer.email));
  expectError(
    await api("POST", "/v1/console/invitations/accept", { token: viewerToken }, outsider.token),
    403,
    "developer.invite_email_mismatch",
  );
  const accepted = await api("POST", "/v1/console/invitations/accept", { token: viewerToken }, viewer.token);
  assert.is(accepted.status, 200);
  assert.is((accepted.body["organization"] as Record<string, string>)["role"], "VIEWER");
  expectError(
    await api("POST", "/v1/console/invitations/accept", { token: viewerToken }, viewer.token),
    400,
    "developer.invite_invalid",
  );
  expectError(
    await api("POST", "/v1/console/invitations/accept", { token: "not-a-token" }, viewer.token),
    400,
    "developer.invite_invalid",
  );

  // A viewer reads but does not change.
  assert.is(
    (await api("GET", `/v1/console/organizations/${organizationId}/members`, undefined, viewer.token)).status,
    200,
  );
  expectError(
    await api(
      "POST",
      `/v1/console/organizations/${organizationId}/apps`,
      { name: "App", product: "FULL" },
      viewer.token,
    ),
    403,
    "developer.insufficient_org_role",
  );
  expectError(
    await api("POST", `/v1/console/organizations/${organizationId}/sandbox-merchants`, { country: "GB" }, viewer.token),
    403,
    "developer.insufficient_org_role",
  );

  // The owner cannot be downgraded or removed, by an admin or by themselves.
  await api(
    "PATCH",
    `/v1/console/organizations/${organizationId}/members/${viewer.accountId}`,
    { role: "ADMIN" },
    owner.token,
  );
  expectError(
    await api(
      "PATCH",
      `/v1/console/organizations/${organizationId}/members/${owner.accountId}`,
      { role: "VIEWER" },
      viewer.token,
    ),
    409,
    "developer.owner_immutable",
  );
  expectError(
    await api(
      "DELETE",
      `/v1/console/organizations/${organizationId}/members/${owner.accountId}`,
      undefined,
      owner.token,
    ),
    409,
    "developer.owner_immutable",
  );

  // Invitations expire.
  const late = newEmail("late");
  await api(
    "POST",
    `/v1/console/organizations/${organizationId}/invitations`,
    { email: late, role: "DEVELOPER" },
    owner.token,
  );
  const lateToken = tokenOf(await mailedLink(test, late));
  await signUp(late);
  await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, late)) });
  clock.advance(7 * 24 * 3600_000 + 1000);
  const lateSession = (await signIn(late)).body["session"] as Record<string, string>;
  expectError(
    await api("POST", "/v1/console/invitations/accept", { token: lateToken }, lateSession["accessToken"]),
    400,
    "developer.invite_expired",
  );
});

Console("two parallel redemptions of one invitation: one member added, the other invite_invalid", async () => {
  const owner = await developerAccount("owner");
  const organizationId = await organization(owner.token);
  const invitee = await developerAccount("invitee");
  await api(
    "POST",
    `/v1/console/organizations/${organizationId}/invitations`,
    { email: invitee.email, role: "DEVELOPER" },
    owner.token,
  );
  const token = tokenOf(await mailedLink(test, invitee.email));
  const second = (await signIn(invitee.email)).body["session"] as Record<string, string>;
  const answers = await Promise.all([
    api("POST", "/v1/console/invitations/accept", { token }, invitee.token),
    api("POST", "/v1/console/invitations/accept", { token }, second["accessToken"]),
  ]);
  const statuses = answers.map((answer) => answer.status).sort();
  assert.equal(statuses, [200, 400]);
  const failed = answers.find((answer) => answer.status === 400)!;
  assert.equal(failed.body, developerError("developer.invite_invalid"));
  const members = await api("GET", `/v1/console/organizations/${organizationId}/members`, undefined, owner.token);
  assert.is((members.body["members"] as unknown[]).length, 2);
});

Console("validation failures in the developer envelope with field details", async () => {
  const answer = await api("POST", "/v1/console/account/sign-up", {
    email: "a@b.test",
    password: "long enough password",
    extra: 1,
  });
  assert.is(answer.status, 400);
  assert.is((answer.body["error"] as Record<string, unknown>)["code"], "developer.invalid_request");
  assert.equal((answer.body["error"] as Record<string, unknown>)["details"], [
    { field: "extra", rule: "is not a known field" },
  ]);
});

Console.run();
