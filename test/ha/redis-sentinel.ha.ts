// Redis failover under Sentinel (issue 37): a private primary, replica and three sentinels (test/support/
// private-sentinel.ts, the timings of deploy/redis-sentinel/), the app pointed at the sentinels (REDIS_SENTINELS,
// REDIS_SENTINEL_NAME), steady traffic, and the primary killed with SIGKILL. Throughout: partner calls answer 200
// with rate-limit headers (counted in this process while Redis is away: no limit opens), the token endpoint's
// per-address throttle answers 401 then 429 oauth.rate_limited with Retry-After, the consent site answers 503
// server.unavailable with Retry-After where it needs the session store, /readyz 503 naming redis with Retry-After;
// nothing else, no answer past its bound. Without any restart the app finds the promoted replica by itself. What a
// failover may lose is bounded: counts the replica had are all kept; of a burst sent just before the kill, at most
// the burst (the replication lag) is lost, and nothing is counted twice. Prints the seconds from the kill to
// recovery (never asserted: a timing is the benchmark's to report, docs/deployment.md). Skipped, saying so, without
// the Redis binaries (Debian: apt-get install -y redis-server redis-sentinel). Run with `npm run test:ha`.
import { randomBytes } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { storeRetryAfterSeconds } from "../../src/consent/consent-server.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { assertErrorPage, randomAddress } from "../support/consent.js";
import { stopProcess } from "../support/private-redis.js";
import { sentinelName, startSentinelCluster, type SentinelCluster } from "../support/private-sentinel.js";
import { answerOf, newApp, newOrganization, newSandboxMerchant } from "../support/sandbox.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";

const Failover = suite("ha/redis-sentinel");
// 20 minutes into the next real hour: no window the manual clock names ends during the run.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 15_000);
// The manual clock never leaves its minute, so every partner call of the run counts in one window: the limit must
// outlast the steady traffic of the slowest failover (up to 20 calls a second until hangGuardMs), which 1,000 did
// not on a slow host (a 429 at the steady loop's call in a CI run of 30 November).
const partnerLimit = 100_000;
const tokenAddressLimit = 5;
/** No single answer may take longer than this; a hang fails the test instead of stalling it. */
const answerBoundMs = 5000;
/** Far past the documented failover time (down-after 1 s, election, reconnect): only a hang fails it. */
const hangGuardMs = 60_000;
/** Calls counted and replicated before the kill: none may be lost. */
const replicatedCalls = 10;
/** Calls sent together just before the kill: the most a failover may lose (not yet replicated). */
const burstCalls = 10;

let cluster: SentinelCluster | undefined;
let test: TestApp;
/** Two apps' sandbox tokens: `steady` for the traffic through the failover, `measured` for the loss bound only. */
const tokens = { steady: "", measured: "" };

Failover.before(async () => {
  cluster = await startSentinelCluster();
  if (!cluster) return;
  test = await startTestApp({
    clock,
    redis: false,
    env: {
      REDIS_SENTINELS: cluster.sentinels.map(({ port }) => `127.0.0.1:${port}`).join(","),
      REDIS_SENTINEL_NAME: sentinelName,
      TRUST_PROXY: "127.0.0.1",
      PARTNER_RATE_LIMIT: String(partnerLimit),
      OAUTH_TOKEN_ADDRESS_RATE_LIMIT: String(tokenAddressLimit),
    },
  });
  const credentials = credentialServiceOf(test, clock);
  const organizationId = await newOrganization(credentials);
  await newSandboxMerchant(credentials, organizationId);
  tokens.steady = await sandboxToken((await newApp(credentials, organizationId, Product.FULL)).sandbox);
  tokens.measured = await sandboxToken((await newApp(credentials, organizationId, Product.FULL)).sandbox);
});
Failover.after(async () => {
  await test?.stop();
  await cluster?.destroy();
});

/** A fetch that gives up after answerBoundMs. */
async function bounded(url: string, init: RequestInit = {}): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer from ${url} in ${answerBoundMs} ms`)),
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

async function sandboxToken(client: { clientId: string; clientSecret: string }): Promise<string> {
  const minted = await answerOf(
    await bounded(`${test.base}/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": randomAddress() },
      body: JSON.stringify({
        grant_type: "client_credentials",
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    }),
  );
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  return minted.body["access_token"] as string;
}

/** A partner call: always 200 with the limit's headers (counted per process while Redis is away); its remaining. */
async function partnerCall(token: string): Promise<number> {
  const response = await bounded(`${test.base}/v1/stores`, { headers: { authorization: `Bearer ${token}` } });
  assert.is(response.status, 200, await response.text());
  assert.is(response.headers.get("x-ratelimit-limit"), String(partnerLimit));
  return Number(response.headers.get("x-ratelimit-remaining"));
}

/** Junk at /v1/oauth/token from one address: 401 developer.invalid_client, past the ceiling 429 with Retry-After. */
async function oauthJunk(address: string): Promise<number> {
  const response = await bounded(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: `lp_app_sb${randomBytes(12).toString("base64url")}`,
      client_secret: "lp_sk_sb_x",
    }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status === 429) {
    assert.is(body["code"], "oauth.rate_limited", JSON.stringify(body));
    assert.ok(Number(response.headers.get("retry-after")) >= 1, "429 without Retry-After");
  } else {
    assert.is(response.status, 401, JSON.stringify(body));
    assert.is(body["code"], "developer.invalid_client", JSON.stringify(body));
  }
  return response.status;
}

/** A consent page read with a session cookie of the right form (so the store is asked): its status, 503 checked whole. */
async function consentPage(): Promise<number> {
  const response = await bounded(`${test.auth}/oauth/connections`, {
    headers: { cookie: `lp_consent_session=${randomBytes(32).toString("base64url")}` },
    redirect: "manual",
  });
  const page = { status: response.status, headers: response.headers, html: await response.text(), setCookie: [] };
  if (page.status === 503) {
    assertErrorPage(page, 503, "server.unavailable");
    assert.is(page.headers.get("retry-after"), String(storeRetryAfterSeconds));
  }
  return page.status;
}

/** /readyz: 200 ready, or 503 naming redis alone with Retry-After; true when ready. */
async function ready(): Promise<boolean> {
  const response = await bounded(`${test.base}/readyz`);
  const body = await response.json();
  if (response.status === 200) {
    assert.equal(body, { status: "ready" });
    return true;
  }
  assert.is(response.status, 503);
  assert.is(response.headers.get("retry-after"), "5");
  assert.equal(body, { status: "not_ready", down: ["redis"] });
  return false;
}

Failover(
  "kill -9 of the primary: outage policy held throughout, the promoted replica used by itself, loss bounded",
  async () => {
    if (!cluster) return console.log("  (skipped: no redis-server / redis-sentinel to start)");
    assert.is(await ready(), true);
    const signedOutStatus = await consentPage();
    assert.ok(signedOutStatus !== 503 && signedOutStatus < 500, `consent page: ${signedOutStatus}`);
    for (let i = 1; i <= replicatedCalls; i++) assert.is(await partnerCall(tokens.measured), partnerLimit - i);
    await cluster.replicated();

    // Steady traffic from here to the end: every answer is checked as it comes.
    const junkAddress = randomAddress();
    const seen = { partner: 0, throttled: 0, unavailablePages: 0, notReady: 0 };
    let stop = false;
    let recoveredAt: number | undefined;
    let outageSeen = false;
    const steady = (async () => {
      while (!stop) {
        const [, junk, page, isReady] = await Promise.all([
          partnerCall(tokens.steady),
          oauthJunk(junkAddress),
          consentPage(),
          ready(),
        ]);
        seen.partner++;
        if (junk === 429) seen.throttled++;
        if (page === 503) seen.unavailablePages++;
        if (!isReady) seen.notReady++;
        if (!isReady || page === 503) {
          outageSeen = true;
          recoveredAt = undefined;
        } else if (outageSeen && recoveredAt === undefined) recoveredAt = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    // A burst, then the kill at once: what the replica has not received yet is what a failover loses.
    await Promise.all(Array.from({ length: burstCalls }, () => partnerCall(tokens.measured)));
    const killedAt = performance.now();
    await stopProcess(cluster.primary.process, "SIGKILL");

    // An answer outside the policy fails the traffic loop: stop waiting and report that, not a hang.
    let failure: unknown;
    steady.catch((error: unknown) => {
      failure = error;
    });
    const deadline = killedAt + hangGuardMs;
    while (recoveredAt === undefined || performance.now() - recoveredAt < 1000) {
      if (failure) throw failure;
      assert.ok(
        performance.now() < deadline,
        `not recovered ${hangGuardMs / 1000} s after the kill: ${JSON.stringify(seen)}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    stop = true;
    await steady;

    assert.is(await cluster.primaryPort(), cluster.replica.port, "the sentinels promoted the replica");
    assert.ok(seen.notReady > 0 && seen.unavailablePages > 0, `the outage was seen: ${JSON.stringify(seen)}`);
    assert.ok(seen.throttled > 0, "the per-address throttle kept refusing past its ceiling");
    // Counted on the new primary: the replicated calls all, the burst less what was not replicated, then this one.
    const remaining = await partnerCall(tokens.measured);
    const lost = replicatedCalls + burstCalls + 1 - (partnerLimit - remaining);
    console.log(
      `  Redis failover: recovered ${((recoveredAt - killedAt) / 1000).toFixed(1)} s after kill -9 of the primary; ` +
        `${lost} of ${burstCalls} counts sent just before it lost; answers ${JSON.stringify(seen)}`,
    );
    assert.ok(lost >= 0, `counted twice: ${-lost}`);
    assert.ok(lost <= burstCalls, `lost ${lost} counts, more than the ${burstCalls} not yet replicated`);
  },
  { timeoutMs: 240_000 },
);

Failover.run();
