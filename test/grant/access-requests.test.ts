// ADSR access requests against the real app: GrantService RPCs on the internal port (Connect over HTTP/1.1) and the
// owner's pages on the consent site over plain HTTP. One open request per app and merchant (also under parallel
// creation), the owner approves with all or fewer stores or declines, employees cannot decide, the owner withdraws,
// pending requests expire on the injected clock.
import { createClient, type Client } from "@connectrpc/connect";
import { connectTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { readServiceError, type ErrorCode } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import {
  cookieHeader,
  type Credentials,
  credentialServiceOf,
  hiddenValue,
  setCookies,
  startTestApp,
  type TestApp,
} from "../support/test-app.js";
import { newApp, newLiveMerchant, newOrganization, newSandboxMerchant } from "../support/sandbox.js";

const Requests = suite("grant/access-requests");
const clock = createManualClock(Date.now());
const day = 86_400_000;
let test: TestApp;
let credentials: Credentials;
let grants: Client<typeof GrantService>;

Requests.before(async () => {
  test = await startTestApp({ clock, redis: false });
  credentials = credentialServiceOf(test, clock);
  grants = createClient(GrantService, connectTransport(test.app.grpc.port, test.internal.operator));
});
Requests.after(async () => {
  await test.stop();
});

/** An approved ADSR app and a live merchant in us with three stores. */
async function world() {
  const organizationId = await newOrganization(credentials);
  const app = await newApp(credentials, organizationId, Product.ADSR, true);
  const merchant = await newLiveMerchant(credentials, "us");
  const storeIds = await seedMerchantData(test.app.regionDatabases.get("us")!.sql, "us", merchant.companyId, {
    storeCount: 3,
    itemCount: 2,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(clock.now()),
  });
  return { organizationId, app, merchant, storeIds };
}

async function rejects(promise: Promise<unknown>, code: ErrorCode, params: Record<string, string> = {}) {
  try {
    await promise;
  } catch (error) {
    const read = readServiceError(error);
    assert.is(read.code, code);
    assert.equal(read.params, params);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

Requests(
  "create: one open request per app and merchant (ten in parallel: one made, nine access_request_exists)",
  async () => {
    const w = await world();
    const attempts = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        grants.createAccessRequest({
          appId: w.app.appId,
          companyId: BigInt(w.merchant.companyId),
          storeIds: w.storeIds.map(BigInt),
        }),
      ),
    );
    const made = attempts.filter((attempt) => attempt.status === "fulfilled");
    assert.is(made.length, 1);
    for (const attempt of attempts) {
      if (attempt.status === "rejected")
        assert.is(readServiceError(attempt.reason).code, "developer.access_request_exists");
    }
    const created = (made[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof grants.createAccessRequest>>>).value
      .accessRequest!;
    assert.is(created.state, "PENDING");
    assert.equal(created.storeIds, w.storeIds.map(BigInt));
    assert.equal(created.approvedStoreIds, []);
    assert.is(created.expiresAt, new Date(clock.now() + 30 * day).toISOString());
    assert.is(created.decidedAt, undefined);
    const listed = await grants.listAccessRequests({ appId: w.app.appId });
    assert.equal(
      listed.accessRequests.map((row) => row.accessRequestId),
      [created.accessRequestId],
    );
  },
);

Requests(
  "create refuses: non-ADSR app, app not approved, demo or unknown or inactive merchant, unknown stores, archived app",
  async () => {
    const w = await world();
    const ask = (appId: string, companyId: number, storeIds = w.storeIds) =>
      grants.createAccessRequest({ appId, companyId: BigInt(companyId), storeIds: storeIds.map(BigInt) });
    const full = await newApp(credentials, w.organizationId, Product.FULL, true);
    await rejects(ask(full.appId, w.merchant.companyId), "developer.invalid_request", {
      fields: "app_id (access requests exist for ADSR apps only)",
    });
    const draft = await newApp(credentials, w.organizationId, Product.ADSR);
    await rejects(ask(draft.appId, w.merchant.companyId), "developer.app_not_approved");
    const sandbox = await newSandboxMerchant(credentials, w.organizationId);
    await rejects(ask(w.app.appId, sandbox.companyId), "developer.env_mismatch");
    await rejects(ask(w.app.appId, 8_999_999_999_999), "developer.merchant_not_found");
    await rejects(ask(w.app.appId, w.merchant.companyId, [w.storeIds[0]!, 987_654_321]), "developer.invalid_request", {
      fields: "store_ids (unknown stores of this merchant)",
    });
    await rejects(ask(w.app.appId, w.merchant.companyId, []), "developer.invalid_request", {
      fields: "store_ids (1 to 500 store ids)",
    });
    await rejects(ask("app_unknown", w.merchant.companyId), "developer.app_not_found");
    const inactive = await world();
    await credentials.updateMerchantStatus({ companyId: BigInt(inactive.merchant.companyId), active: false });
    await rejects(ask(w.app.appId, inactive.merchant.companyId, inactive.storeIds), "developer.merchant_inactive");
    await credentials.archiveApp({ appId: w.app.appId });
    await rejects(ask(w.app.appId, w.merchant.companyId), "developer.app_archived");
  },
);

Requests(
  "RPC decisions: owner approves fewer stores; employees and other owners cannot; withdraw; decline; states are final",
  async () => {
    const w = await world();
    const other = await newLiveMerchant(credentials, "us");
    const { accessRequest } = await grants.createAccessRequest({
      appId: w.app.appId,
      companyId: BigInt(w.merchant.companyId),
      storeIds: w.storeIds.map(BigInt),
    });
    const id = accessRequest!.accessRequestId;
    await rejects(
      grants.approveAccessRequest({ accessRequestId: id, userId: String(w.merchant.employee.userId) }),
      "developer.merchant_owner_required",
    );
    await rejects(
      grants.approveAccessRequest({ accessRequestId: id, userId: String(other.owner.userId) }),
      "developer.merchant_owner_required",
    );
    await rejects(
      grants.approveAccessRequest({ accessRequestId: "999999999", userId: String(w.merchant.owner.userId) }),
      "developer.access_request_not_found",
    );
    await rejects(
      grants.approveAccessRequest({
        accessRequestId: id,
        userId: String(w.merchant.owner.userId),
        storeIds: [123_456_789n],
      }),
      "developer.invalid_request",
      { fields: "store_ids (only stores the app requested)" },
    );
    await rejects(
      grants.withdrawAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) }),
      "developer.access_request_not_approved",
      { state: "PENDING" },
    );
    clock.advance(1000);
    const approved = (
      await grants.approveAccessRequest({
        accessRequestId: id,
        userId: String(w.merchant.owner.userId),
        storeIds: [BigInt(w.storeIds[1]!)],
      })
    ).accessRequest!;
    assert.is(approved.state, "APPROVED");
    assert.equal(approved.approvedStoreIds, [BigInt(w.storeIds[1]!)]);
    assert.is(approved.decidedAt, new Date(clock.now()).toISOString());
    await rejects(
      grants.declineAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) }),
      "developer.access_request_not_pending",
      { state: "APPROVED" },
    );
    await rejects(
      grants.createAccessRequest({
        appId: w.app.appId,
        companyId: BigInt(w.merchant.companyId),
        storeIds: [BigInt(w.storeIds[0]!)],
      }),
      "developer.access_request_exists",
    );
    const withdrawn = (
      await grants.withdrawAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) })
    ).accessRequest!;
    assert.is(withdrawn.state, "WITHDRAWN");
    assert.is(withdrawn.withdrawnAt, new Date(clock.now()).toISOString());
    await rejects(
      grants.withdrawAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) }),
      "developer.access_request_not_approved",
      { state: "WITHDRAWN" },
    );
    // After withdrawal the app may ask again; the owner declines this time.
    const again = (
      await grants.createAccessRequest({
        appId: w.app.appId,
        companyId: BigInt(w.merchant.companyId),
        storeIds: [BigInt(w.storeIds[0]!)],
      })
    ).accessRequest!;
    const declined = (
      await grants.declineAccessRequest({
        accessRequestId: again.accessRequestId,
        userId: String(w.merchant.owner.userId),
      })
    ).accessRequest!;
    assert.is(declined.state, "DECLINED");
    await rejects(
      grants.approveAccessRequest({ accessRequestId: again.accessRequestId, userId: String(w.merchant.owner.userId) }),
      "developer.access_request_not_pending",
      { state: "DECLINED" },
    );
    const listed = await grants.listAccessRequests({ companyId: BigInt(w.merchant.companyId) });
    assert.equal(
      listed.accessRequests.map((row) => row.state),
      ["DECLINED", "WITHDRAWN"],
    );
    await rejects(grants.listAccessRequests({}), "developer.invalid_request", {
      fields: "app_id, company_id (exactly one)",
    });
  },
);

Requests(
  "expiry on the injected clock: pending until ACCESS_REQUEST_TTL_SECONDS, then EXPIRED; no decision; a new request may follow",
  async () => {
    const w = await world();
    const { accessRequest } = await grants.createAccessRequest({
      appId: w.app.appId,
      companyId: BigInt(w.merchant.companyId),
      storeIds: w.storeIds.map(BigInt),
    });
    const id = accessRequest!.accessRequestId;
    clock.advance(30 * day - 1);
    assert.is((await grants.getAccessRequest({ accessRequestId: id })).accessRequest!.state, "PENDING");
    clock.advance(1);
    assert.is((await grants.getAccessRequest({ accessRequestId: id })).accessRequest!.state, "EXPIRED");
    await rejects(
      grants.approveAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) }),
      "developer.access_request_not_pending",
      { state: "EXPIRED" },
    );
    const next = (
      await grants.createAccessRequest({
        appId: w.app.appId,
        companyId: BigInt(w.merchant.companyId),
        storeIds: w.storeIds.map(BigInt),
      })
    ).accessRequest!;
    assert.is(next.state, "PENDING");
    const rows = await test.app.control.sql`select state from control.access_requests where id = ${Number(id)}`;
    assert.is(rows[0]!["state"], "EXPIRED", "the new request marked the stale one expired");
  },
);

/** Signs in on the consent site at /oauth/access-requests; the session cookies and the page. */
async function signInToRequests(user: { email: string; password: string }) {
  const page = await fetch(`${test.auth}/oauth/access-requests`);
  const cookies = setCookies(page);
  const html = await page.text();
  assert.is(hiddenValue(html, "return_to"), "/oauth/access-requests");
  const form = new URLSearchParams({
    csrf: hiddenValue(html, "csrf"),
    return_to: "/oauth/access-requests",
    email: user.email,
    password: user.password,
  });
  const signedIn = await fetch(`${test.auth}/oauth/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: test.auth },
    body: form,
  });
  assert.is(signedIn.status, 303);
  assert.is(signedIn.headers.get("location"), "/oauth/access-requests");
  for (const [name, value] of setCookies(signedIn)) cookies.set(name, value);
  const list = await fetch(`${test.auth}/oauth/access-requests`, { headers: { cookie: cookieHeader(cookies) } });
  assert.is(list.status, 200);
  return { cookies, html: await list.text() };
}

const postForm = (cookies: Map<string, string>, path: string, form: URLSearchParams) =>
  fetch(`${test.auth}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: test.auth },
    body: form,
  });

Requests(
  "consent site: the owner sees pending requests, approves fewer stores, withdraws; an employee sees no buttons and is refused",
  async () => {
    const w = await world();
    const first = (
      await grants.createAccessRequest({
        appId: w.app.appId,
        companyId: BigInt(w.merchant.companyId),
        storeIds: w.storeIds.map(BigInt),
      })
    ).accessRequest!;
    const employee = await signInToRequests(w.merchant.employee);
    assert.match(employee.html, "Pending access requests");
    assert.not.match(employee.html, ">Approve<");
    assert.match(employee.html, "Only the account owner can approve");
    const forged = await postForm(
      employee.cookies,
      "/oauth/access-requests/decision",
      new URLSearchParams({
        csrf: hiddenValue(employee.html, "csrf"),
        access_request_id: first.accessRequestId,
        decision: "approve",
        store_ids: String(w.storeIds[0]),
      }),
    );
    assert.is(forged.status, 403);

    const owner = await signInToRequests(w.merchant.owner);
    const app = (await credentials.getApp({ appId: w.app.appId })).app!;
    const appName = app.name;
    assert.match(owner.html, `name="access_request_id" value="${first.accessRequestId}"`);
    // Who is asking, as on the consent screen: the developer's pages beside the request, those given only.
    const links = [
      [app.websiteUrl, "Website"],
      [app.privacyPolicyUrl, "Privacy policy"],
      [app.termsUrl, "Terms of service"],
    ].filter(([url]) => url);
    assert.is(links.length, 3, "the test world's ADSR app was given its three links");
    assert.match(
      owner.html,
      `<ul class="app-links asker-links">${links.map(([url, name]) => `<li><a href="${url}" rel="noopener noreferrer">${name}</a></li>`).join("")}</ul>`,
    );
    for (const store of w.storeIds) assert.match(owner.html, `name="store_ids" value="${store}" checked`);
    const csrf = hiddenValue(owner.html, "csrf");
    // Without the CSRF token: refused. Without any store: a 400 asking to choose one.
    const noCsrf = await postForm(
      owner.cookies,
      "/oauth/access-requests/decision",
      new URLSearchParams({ access_request_id: first.accessRequestId, decision: "approve" }),
    );
    assert.is(noCsrf.status, 403);
    const none = await postForm(
      owner.cookies,
      "/oauth/access-requests/decision",
      new URLSearchParams({ csrf, access_request_id: first.accessRequestId, decision: "approve" }),
    );
    assert.is(none.status, 400);
    // The same page, the error at that request's stores (focused), every box left for the owner to choose.
    const inline = await none.text();
    assert.match(
      inline,
      `<p class="field-error" id="stores-error-${first.accessRequestId}" tabindex="-1" autofocus role="alert">Choose at least one store to approve, or decline the request.</p>`,
    );
    assert.match(inline, `<fieldset class="invalid">`);
    for (const store of w.storeIds)
      assert.match(
        inline,
        `name="store_ids" value="${store}" aria-describedby="stores-error-${first.accessRequestId}"`,
      );
    assert.is(
      (await grants.getAccessRequest({ accessRequestId: first.accessRequestId })).accessRequest!.state,
      "PENDING",
    );
    // Stores by name (from the merchant's region), not by number.
    for (const store of w.storeIds) {
      assert.not.match(owner.html, `>Store ${store}</label>`);
      assert.match(owner.html, new RegExp(`<label for="store-${first.accessRequestId}-${store}">[^<]+</label>`));
    }
    const form = new URLSearchParams({ csrf, access_request_id: first.accessRequestId, decision: "approve" });
    form.append("store_ids", String(w.storeIds[0]));
    form.append("store_ids", String(w.storeIds[2]));
    const approved = await postForm(owner.cookies, "/oauth/access-requests/decision", form);
    assert.is(approved.status, 200);
    assert.match(
      await approved.text(),
      `<div class="alert ok" id="done" role="status" tabindex="-1" autofocus><p>${appName} can now read the stores you chose.</p></div>`,
    );
    const state = (await grants.getAccessRequest({ accessRequestId: first.accessRequestId })).accessRequest!;
    assert.is(state.state, "APPROVED");
    assert.equal(state.approvedStoreIds, [BigInt(w.storeIds[0]!), BigInt(w.storeIds[2]!)]);
    // Deciding again: the page shows the code with its status.
    const twice = await postForm(
      owner.cookies,
      "/oauth/access-requests/decision",
      new URLSearchParams({ csrf, access_request_id: first.accessRequestId, decision: "decline" }),
    );
    assert.is(twice.status, 409);
    assert.match(await twice.text(), "developer.access_request_not_pending");

    const page = await (
      await fetch(`${test.auth}/oauth/access-requests`, { headers: { cookie: cookieHeader(owner.cookies) } })
    ).text();
    assert.match(page, "Approved access requests");
    assert.match(page, `Withdraw`);
    // First the consequence (nothing changes), then the withdrawal from the confirmation's own form.
    const confirm = await postForm(
      owner.cookies,
      "/oauth/access-requests/withdraw",
      new URLSearchParams({ csrf, access_request_id: first.accessRequestId }),
    );
    assert.is(confirm.status, 200);
    const confirmation = await confirm.text();
    assert.match(confirmation, `<h1>Withdraw access of ${appName}?</h1>`);
    assert.match(confirmation, `<input type="hidden" name="confirm" value="yes">`);
    assert.is(
      (await grants.getAccessRequest({ accessRequestId: first.accessRequestId })).accessRequest!.state,
      "APPROVED",
    );
    const withdrawn = await postForm(
      owner.cookies,
      "/oauth/access-requests/withdraw",
      new URLSearchParams({ csrf, access_request_id: first.accessRequestId, confirm: "yes" }),
    );
    assert.is(withdrawn.status, 200);
    assert.match(await withdrawn.text(), `<p>The access of ${appName} is withdrawn.</p>`);
    assert.is(
      (await grants.getAccessRequest({ accessRequestId: first.accessRequestId })).accessRequest!.state,
      "WITHDRAWN",
    );

    // Another merchant's owner cannot touch it, even knowing its id.
    const second = (
      await grants.createAccessRequest({
        appId: w.app.appId,
        companyId: BigInt(w.merchant.companyId),
        storeIds: [BigInt(w.storeIds[1]!)],
      })
    ).accessRequest!;
    const stranger = await world();
    const strangerSession = await signInToRequests(stranger.merchant.owner);
    assert.not.match(strangerSession.html, `value="${second.accessRequestId}"`);
    const foreign = await postForm(
      strangerSession.cookies,
      "/oauth/access-requests/decision",
      new URLSearchParams({
        csrf: hiddenValue(strangerSession.html, "csrf"),
        access_request_id: second.accessRequestId,
        decision: "decline",
      }),
    );
    assert.is(foreign.status, 404);
    // The owner declines it.
    const declined = await postForm(
      owner.cookies,
      "/oauth/access-requests/decision",
      new URLSearchParams({ csrf, access_request_id: second.accessRequestId, decision: "decline" }),
    );
    assert.is(declined.status, 200);
    assert.match(await declined.text(), `<p>The request of ${appName} is declined.</p>`);
    assert.is(
      (await grants.getAccessRequest({ accessRequestId: second.accessRequestId })).accessRequest!.state,
      "DECLINED",
    );
  },
);

Requests.run();
