// The token endpoint's throttles (src/token/throttle.ts), started small here: per source address
// (OAUTH_TOKEN_ADDRESS_RATE_LIMIT, IPv6 by its /64), counted before client authentication, and per client id
// (OAUTH_TOKEN_CLIENT_RATE_LIMIT), counted only for calls that authenticated, so nobody can spend a client's
// budget with its public id; and the slowdown of a code or refresh token that already got invalid_grant
// (OAUTH_INVALID_GRANT_LIMIT at its default). Over a ceiling: 429 oauth.rate_limited with Retry-After (the seconds
// left in the fixed minute); the next minute on the manual clock admits again. Addresses come from X-Forwarded-For
// (the test's own 127.0.0.1 is a trusted proxy), random per run, so runs sharing one Redis never share a counter.
import { randomBytes } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { loadConfig } from "../../src/config/config.js";
import { messageFor, readServiceError } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { sample } from "../support/metrics.js";
import { createTokenThrottle, slowedCredentialLimit } from "../../src/token/throttle.js";
import { flakyStore } from "../support/storage.js";
import { randomAddress } from "../support/consent.js";
import { newWorld, startTestApp, type TestApp } from "../support/test-app.js";

const Throttle = suite("token/throttle");
const clock = createManualClock(Date.now());
const minute = 60_000;
const clientLimit = 3;
const addressLimit = 5;
let test: TestApp;
let worlds = 0;

Throttle.before(async () => {
  test = await startTestApp({
    clock,
    redis: true,
    env: {
      TRUST_PROXY: "127.0.0.1",
      OAUTH_TOKEN_CLIENT_RATE_LIMIT: String(clientLimit),
      OAUTH_TOKEN_ADDRESS_RATE_LIMIT: String(addressLimit),
    },
  });
});
Throttle.after(async () => {
  await test.stop();
});

const world = () => newWorld(test, clock, `http://127.0.0.1:9/throttle/${++worlds}`);
/** A client id nobody was issued, with a secret: 401 developer.invalid_client when admitted. */
const unknown = () => ({
  clientId: "lp_app_sb" + randomBytes(12).toString("base64url"),
  clientSecret: "lp_sk_sb_" + randomBytes(32).toString("base64url"),
});
const deadToken = () => "lp_rt_sb_" + randomBytes(32).toString("base64url");

type Client = { clientId: string; clientSecret: string };

/** A refresh with a token nobody issued (a fresh one unless given): 400 oauth.refresh_invalid when admitted, 429 when not. */
async function call(client: Client, address: string, json = false, refreshToken = deadToken()) {
  return post(
    address,
    {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: client.clientId,
      client_secret: client.clientSecret,
    },
    json,
  );
}

/** A sandbox client-credentials grant for the world's merchant: 200 with an access token when admitted. */
async function mint(world: Client & { companyId: number }, address: string) {
  return post(address, {
    grant_type: "client_credentials",
    merchant_id: String(world.companyId),
    client_id: world.clientId,
    client_secret: world.clientSecret,
  });
}

async function post(address: string, fields: Record<string, string>, json = false) {
  const response = await fetch(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: {
      "content-type": json ? "application/json" : "application/x-www-form-urlencoded",
      "x-forwarded-for": address,
    },
    body: json ? JSON.stringify(fields) : new URLSearchParams(fields),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

function assertAdmitted(answer: Awaited<ReturnType<typeof call>>, why: string) {
  assert.is(answer.status, 400, `${why}: ${JSON.stringify(answer.body)}`);
  assert.is(answer.body["code"], "oauth.refresh_invalid", why);
}

function assertMinted(answer: Awaited<ReturnType<typeof call>>, why: string) {
  assert.is(answer.status, 200, `${why}: ${JSON.stringify(answer.body)}`);
  assert.type(answer.body["access_token"], "string", why);
}

function assertLimited(answer: Awaited<ReturnType<typeof call>>, retryAfter: number) {
  assert.is(answer.status, 429, JSON.stringify(answer.body));
  assert.is(answer.headers.get("retry-after"), String(retryAfter));
  assert.is(answer.headers.get("cache-control"), "no-store");
  assert.equal(answer.body, {
    error: "invalid_request",
    error_description: messageFor("oauth.rate_limited", { retryAfter }),
    code: "oauth.rate_limited",
  });
}

/**
 * Puts the clock one second into the minute after both its own time and the real one: a Redis window is created to
 * expire at its end by this clock, so a window in the real past would vanish at once (uvu imports every file, and
 * so creates this clock, long before it runs this suite).
 */
function oneSecondIntoNextMinute(): void {
  oneSecondIntoNext(minute);
}

/** The same for a window of `windowMs` (the invalid_grant window is ten minutes: a test must not straddle two). */
function oneSecondIntoNext(windowMs: number): void {
  clock.set((Math.floor(Math.max(clock.now(), Date.now()) / windowMs) + 1) * windowMs + 1000);
}

Throttle(
  "per client id: OAUTH_TOKEN_CLIENT_RATE_LIMIT calls a minute from any addresses, then 429 until the minute ends",
  async () => {
    const limited = await world();
    const other = await world();
    oneSecondIntoNextMinute();
    const before = await test.app.metrics.registry.metrics();
    for (let i = 0; i < clientLimit; i++) assertAdmitted(await call(limited, randomAddress()), `call ${i + 1}`);
    assertLimited(await call(limited, randomAddress()), 59);
    assertLimited(await call(limited, randomAddress(), true), 59); // JSON as well as form
    // Other clients are not affected.
    assertAdmitted(await call(other, randomAddress()), "another client");
    clock.advance(58 * 1000); // 59 s into the minute
    assertLimited(await call(limited, randomAddress()), 1);
    clock.advance(1000 - 1); // the minute's last millisecond
    assertLimited(await call(limited, randomAddress()), 1);
    clock.advance(1); // the next minute
    for (let i = 0; i < clientLimit; i++)
      assertAdmitted(await call(limited, randomAddress()), `next minute, call ${i + 1}`);
    assertLimited(await call(limited, randomAddress()), 60);
    // Five refusals by the per-client throttle, counted (issue 17); none by another throttle.
    const after = await test.app.metrics.registry.metrics();
    const delta = (throttle: string) =>
      (sample(after, "partnerapi_throttle_refusals_total", { throttle }) ?? 0) -
      (sample(before, "partnerapi_throttle_refusals_total", { throttle }) ?? 0);
    assert.equal([delta("oauth_client"), delta("oauth_address"), delta("oauth_credential")], [5, 0, 0]);
  },
);

Throttle(
  "per source address: OAUTH_TOKEN_ADDRESS_RATE_LIMIT calls a minute over any client ids, known or not, then 429",
  async () => {
    const known = await world();
    const address = randomAddress();
    oneSecondIntoNextMinute();
    // Counted before client authentication: unknown client ids and wrong secrets use up the address's minute too.
    for (let i = 0; i < addressLimit; i++) {
      const answer = await call(unknown(), address);
      assert.is(answer.status, 401, JSON.stringify(answer.body));
      assert.is(answer.body["code"], "developer.invalid_client");
    }
    assertLimited(await call(known, address), 59);
    assertLimited(await call(unknown(), address), 59);
    // The same client from another address is admitted: only this address is over its ceiling.
    assertAdmitted(await call(known, randomAddress()), "another address");
    clock.advance(minute - 1000);
    assertAdmitted(await call(known, address), "the next minute");
  },
);

Throttle(
  "a victim's client id cannot be throttled by others: 700 calls with its id and a wrong secret do not touch its budget",
  async () => {
    const victim = await world();
    const attacker = randomAddress();
    oneSecondIntoNextMinute();
    // The client id is public (it is in every authorize URL); the secret is not.
    const junk = { clientId: victim.clientId, clientSecret: "lp_sk_sb_" + randomBytes(32).toString("base64url") };
    const answers: Array<Awaited<ReturnType<typeof call>>> = [];
    for (let batch = 0; batch < 14; batch++)
      answers.push(...(await Promise.all(Array.from({ length: 50 }, () => call(junk, attacker)))));
    // Failed client authentication is counted on the source address only: five 401s, then the address is over.
    const unauthorized = answers.filter((answer) => answer.status === 401);
    assert.is(unauthorized.length, addressLimit);
    for (const answer of unauthorized) assert.is(answer.body["code"], "developer.invalid_client");
    assert.is(answers.filter((answer) => answer.status === 429).length, 700 - addressLimit);
    // The victim, from its own address, still has its whole minute.
    for (let i = 0; i < clientLimit; i++)
      assertMinted(await mint(victim, randomAddress()), `the victim's call ${i + 1}`);
    assertLimited(await mint(victim, randomAddress()), 59);
  },
);

/** A random /64 of the documentation prefix 2001:db8::/32, as "2001:db8:x:y". */
const randomSubnet = () => `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;

Throttle(
  "per source address: IPv6 sources count by their /64, so fresh addresses of one subnet share one ceiling",
  async () => {
    const known = await world();
    const subnet = randomSubnet();
    oneSecondIntoNextMinute();
    for (let i = 0; i < addressLimit; i++) {
      const answer = await call(unknown(), `${subnet}:${randomBytes(2).toString("hex")}::${i + 1}`);
      assert.is(answer.status, 401, JSON.stringify(answer.body));
    }
    assertLimited(await call(known, `${subnet}:ffff:ffff:ffff:ffff`), 59);
    assertAdmitted(await call(known, `${randomSubnet()}::1`), "another /64");
  },
);

Throttle("per source address: an IPv4-mapped IPv6 source is its IPv4 address", async () => {
  const known = await world();
  const address = randomAddress();
  oneSecondIntoNextMinute();
  for (let i = 0; i < addressLimit; i++)
    assert.is((await call(unknown(), `::ffff:${address}`)).status, 401, `call ${i + 1}`);
  assertLimited(await call(known, address), 59);
});

Throttle(
  "a code or refresh token that got invalid_grant is slowed at once to 2 calls a minute; the client's other calls are not",
  async () => {
    const w = await world();
    const dead = deadToken();
    oneSecondIntoNext(10 * minute);
    assertAdmitted(await call(w, randomAddress(), false, dead), "the first presentation");
    clock.advance(minute);
    assertAdmitted(await call(w, randomAddress(), false, dead), "the first retry");
    assertAdmitted(await call(w, randomAddress(), false, dead), "the second retry");
    assertLimited(await call(w, randomAddress(), false, dead), 59);
    clock.advance(minute);
    assertAdmitted(await call(w, randomAddress()), "another dead token of the client");
    assertMinted(await mint(w, randomAddress()), "a live call of the client");
    assertAdmitted(await call(w, randomAddress(), false, dead), "the dead token, once more this minute");
  },
);

Throttle.run();

// The throttles themselves (createTokenThrottle) on a store that fails like an unreachable Redis: each ceiling
// holds per process (count-in-process), none opens.
const Outage = suite("token/throttle while the store fails");

function throttleOn() {
  const at = createManualClock(Math.ceil(Date.now() / minute) * minute + 15_000);
  const { store, state } = flakyStore(at);
  const config = loadConfig({
    OAUTH_TOKEN_CLIENT_RATE_LIMIT: String(clientLimit),
    OAUTH_TOKEN_ADDRESS_RATE_LIMIT: String(addressLimit),
  });
  const throttle = createTokenThrottle({
    kv: store,
    clock: at,
    logger: silentLogger,
    config,
    domain: "partnerapi.v1.TokenService",
  });
  return { throttle, state, clock: at };
}

/** The retryAfter of the oauth.rate_limited a call throws, or undefined when it admits. */
async function limitedFor(call: Promise<void>): Promise<number | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    const read = readServiceError(error);
    assert.is(read.code, "oauth.rate_limited");
    return Number(read.params.retryAfter);
  }
}

Outage(
  "per address: the ceiling holds while Redis is away (parallel calls), Retry-After to the minute's end",
  async () => {
    const { throttle, state, clock: at } = throttleOn();
    state.down = true;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => limitedFor(throttle.admitAddress("203.0.113.7"))),
    );
    assert.is(answers.filter((answer) => answer === undefined).length, addressLimit);
    assert.equal(
      answers.filter((answer) => answer !== undefined),
      Array(12 - addressLimit).fill(45),
    );
    at.advance(45_000);
    assert.is(await limitedFor(throttle.admitAddress("203.0.113.7")), undefined, "the next minute admits again");
  },
);

Outage("per client and the slowdown of a credential that got invalid_grant hold while Redis is away", async () => {
  const { throttle, state } = throttleOn();
  state.down = true;
  for (let i = 0; i < clientLimit; i++)
    assert.is(await limitedFor(throttle.admitClient("client-a", undefined)), undefined);
  assert.is(await limitedFor(throttle.admitClient("client-a", undefined)), 45);
  // A refresh token answered invalid_grant OAUTH_INVALID_GRANT_LIMIT times is slowed to slowedCredentialLimit a minute.
  const config = loadConfig({});
  for (let i = 0; i < config.limits.oauthInvalidGrants; i++) await throttle.invalidGrant("client-b", "dead-token");
  const retries = [];
  for (let i = 0; i < slowedCredentialLimit + 1; i++)
    retries.push(await limitedFor(throttle.admitClient(`client-b`, "dead-token")));
  assert.equal(retries, [...Array(slowedCredentialLimit).fill(undefined), 45]);
});

Outage.run();
