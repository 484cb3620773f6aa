// The whole app against a Redis of its own (a private redis-server on a free port, never the machine's shared one),
// killed under traffic (SIGKILL, then SIGTERM) and started again on the same port. While it is away: partner calls
// answer 200 with per-process rate-limit headers; nine wrong console passwords from one address get five 401s, then 429s with
// Retry-After 900, the right password included, and the lock holds in this process after Redis returns; junk calls
// of /v1/oauth/token and /v1/token are throttled past the per-address ceiling; the consent site shows the authorize
// and sign-in pages to a signed-out merchant and answers every page that needs the session store 503
// server.unavailable with Retry-After (docs/decisions.md, "Consent site"). Nothing answers 500, and no answer hangs
// (each call gives up after a generous bound). Once Redis is back, counters are shared again (polled, real time).
// A third run stops Redis with SIGSTOP (the connection stays, nothing answers): commands time out instead of hanging.
// Redis runs without persistence (--save "", no AOF), as the tests' shared one: what it held is gone after a
// restart, so an old consent session leads to the sign-in page again, never to an error.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { advancing } from "../support/advancing.js";
import { skipTest, suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { storeRetryAfterSeconds } from "../../src/consent/consent-server.js";
import {
  assertErrorPage,
  createBrowser,
  newSandboxWorld,
  randomAddress,
  type Browser,
  type Page,
} from "../support/consent.js";
import { consoleCall, expectError, mailedLink, tokenOf } from "../support/console.js";
import { answerOf, newApp, newOrganization, newSandboxMerchant, type Answer } from "../support/sandbox.js";
import { credentialServiceOf, freePort, startTestApp, type TestApp, type World } from "../support/test-app.js";
import { startPrivateRedis, stopProcess } from "../support/private-redis.js";

const Outage = suite("storage/redis-outage");
// 20 minutes into the next real hour: ahead of real time, so no Redis window the manual clock names expires during
// the run; minute windows then end 45 s later, the console's 15-minute windows 10 minutes 45 s later.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
const partnerLimit = 1000;
const tokenAddressLimit = 5;
const sandboxLimit = 5;
/** No single answer may take longer than this (a hang fails the test instead of stalling it). */
const answerBoundMs = 5000;
/** How long Redis may take to be in use again after it is back (the client retries at least every second). */
const recoveryBoundMs = 15_000;

let redis: { port: number; process: ChildProcess } | undefined;
let test: TestApp;
let partner: { clientId: string; clientSecret: string };
let serial = 0;
const password = "correct horse battery staple";

async function stopRedis(signal: NodeJS.Signals): Promise<void> {
  await stopProcess(redis!.process, signal);
}

Outage.before(async () => {
  const port = await freePort();
  const started = await startPrivateRedis(port);
  if (!started) return;
  redis = { port, process: started };
  test = await startTestApp({
    clock,
    redis: false,
    env: {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      TRUST_PROXY: "127.0.0.1",
      PARTNER_RATE_LIMIT: String(partnerLimit),
      OAUTH_TOKEN_ADDRESS_RATE_LIMIT: String(tokenAddressLimit),
      SANDBOX_TOKEN_RATE_LIMIT: String(sandboxLimit),
    },
  });
  const credentials = credentialServiceOf(test, clock);
  const organizationId = await newOrganization(credentials);
  await newSandboxMerchant(credentials, organizationId);
  partner = (await newApp(credentials, organizationId, Product.FULL)).sandbox;
});
Outage.after(async () => {
  await test?.stop();
  if (redis && redis.process.exitCode === null && redis.process.signalCode === null) await stopRedis("SIGTERM");
});

/** A fetch that gives up after answerBoundMs (a timer that keeps the process alive, unlike AbortSignal.timeout's). */
async function bounded(url: string, init: RequestInit = {}): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer from ${url} within ${answerBoundMs} ms`)),
    answerBoundMs,
  );
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    await response.clone().arrayBuffer();
    return response;
  } finally {
    clearTimeout(timer);
  }
}

async function post(path: string, body: Record<string, string>, address: string): Promise<Answer> {
  const response = await bounded(test.base + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify(body),
  });
  return answerOf(response);
}

/** A partner call with a freshly minted sandbox token: 200; its X-RateLimit-Remaining. */
async function partnerCall(token: string): Promise<number> {
  const response = await bounded(`${test.base}/v1/stores`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  assert.is(response.status, 200, body);
  assert.is(response.headers.get("x-ratelimit-limit"), String(partnerLimit));
  return Number(response.headers.get("x-ratelimit-remaining"));
}

async function sandboxToken(): Promise<string> {
  const minted = await post(
    "/v1/token",
    { grant_type: "client_credentials", client_id: partner.clientId, client_secret: partner.clientSecret },
    randomAddress(),
  );
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  return minted.body["access_token"] as string;
}

const console_ = (path: string, body: unknown, address = randomAddress()) =>
  consoleCall(test.base, "POST", path, body, undefined, address);

async function verifiedAccount(): Promise<string> {
  const email = `redis-outage.${process.pid}.${Date.now()}.${++serial}@partner.test`;
  assert.is((await console_("/v1/console/account/sign-up", { email, password })).status, 200);
  assert.is(
    (await console_("/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) })).status,
    200,
  );
  return email;
}

function expectLocked(answer: Answer, retryAfter: number) {
  expectError(answer, 429, "developer.too_many_attempts", { retryAfter });
  assert.is(answer.headers.get("retry-after"), String(retryAfter));
}

/** Seconds to the end of the manual clock's current minute (a minute window's Retry-After). */
const toMinuteEnd = () => Math.ceil((Math.ceil((clock.now() + 1) / 60_000) * 60_000 - clock.now()) / 1000);

/** Junk at /v1/oauth/token from one address: unknown clients, 401 up to the ceiling, then 429 oauth.rate_limited. */
async function oauthJunk(): Promise<void> {
  const address = randomAddress();
  const statuses: number[] = [];
  for (let i = 0; i < tokenAddressLimit + 3; i++) {
    const response = await bounded(`${test.base}/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: "lp_app_sb" + randomBytes(12).toString("base64url"),
        client_secret: "lp_sk_sb_x",
      }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    statuses.push(response.status);
    if (response.status === 429) {
      const retryAfter = toMinuteEnd();
      assert.is(response.headers.get("retry-after"), String(retryAfter));
      assert.equal(body, {
        error: "invalid_request",
        error_description: messageFor("oauth.rate_limited", { retryAfter }),
        code: "oauth.rate_limited",
      });
    } else {
      assert.is(body["code"], "developer.invalid_client", JSON.stringify(body));
    }
  }
  assert.equal(statuses, [...Array(tokenAddressLimit).fill(401), 429, 429, 429]);
}

/** Junk at /v1/token (the sandbox minter) from one address: 401 up to SANDBOX_TOKEN_RATE_LIMIT, then 429. */
async function sandboxJunk(): Promise<void> {
  const address = randomAddress();
  const statuses: number[] = [];
  for (let i = 0; i < sandboxLimit + 2; i++) {
    const answer = await post(
      "/v1/token",
      { grant_type: "client_credentials", client_id: partner.clientId, client_secret: "wrong" },
      address,
    );
    statuses.push(answer.status);
    if (answer.status === 429) assert.is(answer.headers.get("retry-after"), String(toMinuteEnd()));
    else
      assert.is(
        (answer.body["error"] as Record<string, unknown>)["code"],
        "developer.invalid_client",
        JSON.stringify(answer.body),
      );
  }
  assert.equal(statuses, [...Array(sandboxLimit).fill(401), 429, 429]);
}

/** A merchant signed in on the consent site: its browser, the world, and the authorize URL it came from. */
async function signedInMerchant(): Promise<{ browser: Browser; world: World; authorize: string }> {
  const world = await newSandboxWorld(test, clock, `http://127.0.0.1:9/redis-outage/${++serial}`);
  const authorize = `${test.auth}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: world.clientId, redirect_uri: world.redirectUri, state: "st", scope: "items.read" })}`;
  const browser = createBrowser(test);
  const page = await browser.get(authorize);
  assert.is(page.status, 200);
  assert.is((await browser.signIn(page, world.owner)).status, 303);
  return { browser, world, authorize };
}

/** `answer`, or a failure once answerBoundMs have passed without it (for the consent browser's calls). */
async function within<T>(answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${answerBoundMs} ms`)), answerBoundMs);
  });
  try {
    return await Promise.race([answer, bound]);
  } finally {
    clearTimeout(timer);
  }
}

function assertUnavailable(page: Page): void {
  assertErrorPage(page, 503, "server.unavailable");
  assert.is(page.headers.get("retry-after"), String(storeRetryAfterSeconds));
}

/** Polls partner calls until the count comes from the shared store again: a fresh Redis starts the window at 1. */
async function untilSharedAgain(token: string): Promise<void> {
  const deadline = Date.now() + recoveryBoundMs;
  for (;;) {
    // The per-process window of this outage has counted several calls already; the restarted Redis has none.
    if ((await partnerCall(token)) === partnerLimit - 1) break;
    if (Date.now() > deadline) assert.unreachable(`Redis not in use again within ${recoveryBoundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.is(await partnerCall(token), partnerLimit - 2, "the next call counts in the same shared window");
}

for (const signal of ["SIGKILL", "SIGTERM"] as const) {
  Outage(
    `Redis stopped by ${signal} under traffic: nothing opens, nothing answers 500 or hangs; shared again once it is back`,
    async () => {
      if (!redis) skipTest("no redis-server on PATH: the fault test starts one of its own");
      clock.advance(60_000); // a fresh minute for this run's windows
      const token = await sandboxToken();
      const before = await partnerCall(token);
      const email = await verifiedAccount();
      const merchant = await signedInMerchant();
      assert.is((await merchant.browser.get(merchant.authorize)).status, 200, "the consent screen, with Redis");

      await stopRedis(signal);

      // Partner calls go on, counted in this process: a fresh window, whatever the shared one had.
      const remaining = [await partnerCall(token), await partnerCall(token), await partnerCall(token)];
      assert.equal(remaining, [partnerLimit - 1, partnerLimit - 2, partnerLimit - 3], `before the stop: ${before}`);
      assert.is(await sandboxToken().then(() => "minted"), "minted", "minting goes on");

      // Console: nine wrong passwords from one address: five reach the password check, then that pair's lock.
      const from = randomAddress();
      const wrong = [];
      for (let i = 0; i < 9; i++)
        wrong.push(await console_("/v1/console/session/sign-in", { email, password: "wrong password, clearly" }, from));
      for (const answer of wrong.slice(0, 5)) expectError(answer, 401, "developer.sign_in_failed");
      for (const answer of wrong.slice(5)) expectLocked(answer, 900);
      expectLocked(await console_("/v1/console/session/sign-in", { email, password }, from), 900);

      await oauthJunk();
      await sandboxJunk();

      // Consent site, signed in: every page that needs the session answers 503 with Retry-After.
      const { browser, world, authorize } = merchant;
      for (const path of [authorize, "/oauth/connections", "/oauth/access-requests"])
        assertUnavailable(await within(browser.get(path)));
      const csrf = "x".repeat(43);
      const posts: Array<[string, Record<string, string>]> = [
        [
          "/oauth/authorize/decision",
          {
            csrf,
            decision: "allow",
            response_type: "code",
            client_id: world.clientId,
            redirect_uri: world.redirectUri,
          },
        ],
        ["/oauth/connections/disconnect", { csrf, app_id: world.appId }],
        ["/oauth/access-requests/decision", { csrf, access_request_id: "1", decision: "decline" }],
        ["/oauth/access-requests/withdraw", { csrf, access_request_id: "1" }],
        ["/oauth/sign-out", { csrf }],
      ];
      for (const [path, form] of posts) assertUnavailable(await within(browser.post(path, form)));
      // Signed out: the authorize and connections pages still show the sign-in form; signing in is 503 (never
      // unthrottled, and there is nowhere to keep the session).
      const stranger = createBrowser(test);
      const signInPage = await within(stranger.get(authorize));
      assert.is(signInPage.status, 200);
      assert.match(signInPage.html, 'action="/oauth/sign-in"');
      assert.is((await within(stranger.get("/oauth/connections"))).status, 200);
      assertUnavailable(await within(stranger.signIn(signInPage, world.owner)));

      const restarted = await startPrivateRedis(redis.port);
      assert.ok(restarted, "redis-server restarts on the same port");
      redis.process = restarted!;
      await untilSharedAgain(token);

      // The lock set while Redis was away still holds in this process, for its full period from the failure.
      expectLocked(await console_("/v1/console/session/sign-in", { email, password }, from), 900);
      clock.advance(899_000);
      expectLocked(await console_("/v1/console/session/sign-in", { email, password }, from), 1);
      clock.advance(1_000);
      // (Moving the clock while it answers: wherever the email's failures were counted, it may be slowed.)
      assert.is(
        (await advancing(clock, console_("/v1/console/session/sign-in", { email, password }, from))).value.status,
        200,
        "the lock ended 900 s after the failure that set it",
      );

      // The restarted Redis (no persistence) lost the session: the authorize page asks to sign in again, and it works.
      const again = await browser.get(authorize);
      assert.is(again.status, 200);
      assert.match(again.html, 'action="/oauth/sign-in"');
      assert.is((await browser.signIn(again, world.owner)).status, 303);
      const consent = await browser.get(authorize);
      assert.is(consent.status, 200);
      assert.match(consent.html, 'name="decision"');
      // Throttles count in Redis again: a fresh address has its full ceiling there.
      await oauthJunk();
    },
  );
}

Outage(
  "Redis stopped (SIGSTOP: connected but silent): partner calls 200 per process, signed-in consent pages 503 after the command timeout, nothing hangs; after SIGCONT the session is there",
  async () => {
    if (!redis) skipTest("no redis-server on PATH: the fault test starts one of its own");
    clock.advance(60_000);
    const token = await sandboxToken();
    const merchant = await signedInMerchant();
    redis.process.kill("SIGSTOP");
    try {
      assert.equal(
        [await partnerCall(token), await partnerCall(token)],
        [partnerLimit - 1, partnerLimit - 2],
        "a window of this process",
      );
      assertUnavailable(await within(merchant.browser.get(merchant.authorize)));
      assertUnavailable(await within(merchant.browser.post("/oauth/sign-out", { csrf: "x".repeat(43) })));
    } finally {
      redis.process.kill("SIGCONT");
    }
    // Nothing was lost: the session written before the stop signs the merchant in again once Redis answers.
    const deadline = Date.now() + recoveryBoundMs;
    for (;;) {
      const page = await within(merchant.browser.get(merchant.authorize));
      if (page.status === 200) {
        assert.match(page.html, 'name="decision"');
        break;
      }
      assertUnavailable(page);
      if (Date.now() > deadline) assert.unreachable(`Redis not in use again within ${recoveryBoundMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  },
);

Outage.run();
