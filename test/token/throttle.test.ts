// The minute ceilings of POST /v1/oauth/token (src/token/throttle.ts): per client id
// (OAUTH_TOKEN_CLIENT_RATE_LIMIT) and per source address (OAUTH_TOKEN_ADDRESS_RATE_LIMIT), started small here.
// Over either: 429 oauth.rate_limited with Retry-After (the seconds left in the fixed minute), counted before the
// client authenticates; the next minute on the manual clock admits again. Addresses come from X-Forwarded-For
// (TRUST_PROXY=1), random per run, so runs sharing one Redis never share a counter.
import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
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
      TRUST_PROXY: "1",
      OAUTH_TOKEN_CLIENT_RATE_LIMIT: String(clientLimit),
      OAUTH_TOKEN_ADDRESS_RATE_LIMIT: String(addressLimit),
      // Out of the way: the invalid_grant slowdown has its own test (token-endpoint).
      OAUTH_INVALID_GRANT_LIMIT: "1000",
    },
  });
});
Throttle.after(async () => {
  await test.stop();
});

const world = () => newWorld(test, clock, `http://127.0.0.1:9/throttle/${++worlds}`);
const deadToken = () => "lp_rt_sb_" + randomBytes(32).toString("base64url");

/** A refresh with a token nobody issued: 400 oauth.refresh_invalid when admitted, 429 when not. */
async function call(client: { clientId: string; clientSecret: string }, address: string, json = false) {
  const fields = { grant_type: "refresh_token", refresh_token: deadToken(), client_id: client.clientId, client_secret: client.clientSecret };
  const response = await fetch(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": json ? "application/json" : "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: json ? JSON.stringify(fields) : new URLSearchParams(fields),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

function assertAdmitted(answer: Awaited<ReturnType<typeof call>>, why: string) {
  assert.is(answer.status, 400, `${why}: ${JSON.stringify(answer.body)}`);
  assert.is(answer.body["code"], "oauth.refresh_invalid", why);
}

function assertLimited(answer: Awaited<ReturnType<typeof call>>, retryAfter: number) {
  assert.is(answer.status, 429, JSON.stringify(answer.body));
  assert.is(answer.headers.get("retry-after"), String(retryAfter));
  assert.is(answer.headers.get("cache-control"), "no-store");
  assert.equal(answer.body, { error: "invalid_request", error_description: messageFor("oauth.rate_limited", { retryAfter }), code: "oauth.rate_limited" });
}

/**
 * Puts the clock one second into the minute after both its own time and the real one: a Redis window is created to
 * expire at its end by this clock, so a window in the real past would vanish at once (uvu imports every file, and
 * so creates this clock, long before it runs this suite).
 */
function oneSecondIntoNextMinute(): void {
  clock.set((Math.floor(Math.max(clock.now(), Date.now()) / minute) + 1) * minute + 1000);
}

Throttle("per client id: OAUTH_TOKEN_CLIENT_RATE_LIMIT calls a minute from any addresses, then 429 until the minute ends", async () => {
  const limited = await world();
  const other = await world();
  oneSecondIntoNextMinute();
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
  for (let i = 0; i < clientLimit; i++) assertAdmitted(await call(limited, randomAddress()), `next minute, call ${i + 1}`);
  assertLimited(await call(limited, randomAddress()), 60);
});

Throttle("per source address: OAUTH_TOKEN_ADDRESS_RATE_LIMIT calls a minute over any client ids, known or not, then 429", async () => {
  const known = await world();
  const address = randomAddress();
  oneSecondIntoNextMinute();
  // Counted before client authentication: unknown client ids and wrong secrets use up the address's minute too.
  const unknown = () => ({ clientId: "lp_app_sb" + randomBytes(12).toString("base64url"), clientSecret: "lp_sk_sb_" + randomBytes(32).toString("base64url") });
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
});

Throttle.run();
