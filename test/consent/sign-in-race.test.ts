// The consent sign-in under parallel guesses, over real ports (issue 36): every attempt is reserved on the pair
// (account, address) and on the account in one atomic store operation before its password is checked, so 100
// parallel wrong passwords from one address reach the password check CONSENT_SIGN_IN_LIMIT times, and the account's
// guesses from any number of addresses are queued one per delay step: at most accountEvaluationsPerWindow in a
// window. The owner, from an address they signed in from before, is slowed at most maxSignInDelayMs, never refused.
// An answer 401 is an evaluated password, a 429 a refused attempt. Time moves on the manual clock.
import { advancing } from "../support/advancing.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { accountEvaluationsPerWindow, maxSignInDelayMs } from "../../src/consent/sign-in-throttle.js";
import { startTestApp, type TestApp, type World } from "../support/test-app.js";
import { assertErrorPage, createBrowser, newSandboxWorld, randomAddress, type Page } from "../support/consent.js";

const Race = suite("consent/sign-in-race");
const clock = createManualClock(Date.now());
const windowMs = 15 * 60_000;
/** CONSENT_SIGN_IN_LIMIT, the default (the figure). */
const ceiling = 10;

let test: TestApp;
let worlds = 0;

Race.before(async () => {
  test = await startTestApp({
    clock,
    redis: true,
    env: { TRUST_PROXY: "127.0.0.1", CONSENT_SIGN_IN_LIMIT: String(ceiling) },
  });
});
Race.after(async () => {
  await test.stop();
});

const fresh = () => newSandboxWorld(test, clock, `http://127.0.0.1:9/race/${++worlds}`);

const authorizeUrl = (world: World) =>
  `${test.auth}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: world.clientId, redirect_uri: world.redirectUri, state: "s", scope: "items.read" })}`;

/**
 * Puts the clock one second into the next sign-in window, after both its own time and the real one (a Redis key is
 * created to expire by this clock, so a window in the real past would vanish at once).
 */
function startOfWindow(): number {
  const start = (Math.floor(Math.max(clock.now(), Date.now()) / windowMs) + 1) * windowMs;
  clock.set(start + 1000);
  return start;
}

/** A sign-in form fetched from `address` (counts nothing), ready to post as often as wanted. */
async function formFrom(world: World, address: string) {
  const browser = createBrowser(test, address);
  const form = await browser.get(authorizeUrl(world));
  return (user: { email: string; password: string }) => browser.signIn(form, user);
}

const slowedLines = () => test.logs.filter((line) => line.includes('"consent sign-in slowed"')).length;

/**
 * Sends every attempt at once at one clock time, waits (in real time, the clock standing still) until each one has
 * reached the throttle: answered, or logged as slowed and waiting for its turn on the clock; only then moves the
 * clock until all are answered. So which attempts the throttle admits does not depend on how fast they arrive.
 */
async function inParallel(attempts: (() => Promise<Page>)[]): Promise<{ pages: Page[]; movedMs: number }> {
  const slowedBefore = slowedLines();
  let settled = 0;
  const answers = attempts.map((send) => send().finally(() => settled++));
  while (settled + slowedLines() - slowedBefore < answers.length) await new Promise((done) => setTimeout(done, 10));
  const { value, movedMs } = await advancing(clock, Promise.all(answers));
  return { pages: value, movedMs };
}

const statuses = (pages: Page[]) => pages.map((page) => page.status).join(",");
const evaluated = (pages: Page[]) => pages.filter((page) => page.status === 401).length;

function assertRefused(page: Page, retryAfter?: number) {
  assertErrorPage(page, 429, "developer.too_many_attempts");
  const header = Number(page.headers.get("retry-after"));
  if (retryAfter !== undefined) assert.is(header, retryAfter);
  else assert.ok(header >= 1 && header <= maxSignInDelayMs / 1000, `Retry-After ${header}`);
}

Race(
  "100 parallel wrong passwords from one address: exactly the ceiling (10) are evaluated, 90 get 429 with Retry-After; the owner elsewhere signs in",
  async () => {
    const world = await fresh();
    startOfWindow();
    const address = randomAddress();
    const post = await formFrom(world, address);
    const wrong = { email: world.owner.email, password: "a wrong guess" };
    const { pages } = await inParallel(Array.from({ length: 100 }, () => () => post(wrong)));
    assert.is(evaluated(pages), ceiling, `statuses: ${statuses(pages)}`);
    const refused = pages.filter((page) => page.status !== 401);
    assert.is(refused.length, 100 - ceiling);
    for (const page of refused) assertRefused(page, 900);
    // The pair stays refused, the right password included; the owner, from another address, is slowed 1 s (the
    // account has its ceiling of failures) and signs in.
    assertRefused(await post(world.owner), 900);
    const owner = await advancing(clock, (await formFrom(world, randomAddress()))(world.owner));
    assert.is(owner.value.status, 303, owner.value.html);
    assert.ok(owner.movedMs >= 1000, `slowed (${owner.movedMs} ms)`);
  },
);

Race(
  "100 parallel wrong passwords from 10 addresses: the ceiling evaluated at once, then one per delay step (1, 2, 4, 8 s); the rest 429 until the queue has room",
  async () => {
    const world = await fresh();
    startOfWindow();
    const wrong = { email: world.owner.email, password: "a wrong guess" };
    const posts = await Promise.all(Array.from({ length: 10 }, () => formFrom(world, randomAddress())));
    const { pages, movedMs } = await inParallel(
      posts.flatMap((post) => Array.from({ length: 10 }, () => () => post(wrong))),
    );
    // Slots at +1, +3, +7 and +15 s; the next would be at +31 s, past the longest wait (30 s): refused.
    assert.is(evaluated(pages), ceiling + 4, `statuses: ${statuses(pages)}`);
    assert.ok(movedMs >= 15_000, `the last slot came after 15 s (${movedMs} ms)`);
    for (const page of pages.filter((page) => page.status !== 401)) assertRefused(page);
  },
);

Race(
  "a whole window of guesses from fresh addresses: at most accountEvaluationsPerWindow evaluated; the owner, from an address they signed in from, is slowed at most 30 s and signs in",
  async () => {
    const world = await fresh();
    const home = randomAddress();
    const start = startOfWindow();
    assert.is((await (await formFrom(world, home))(world.owner)).status, 303);
    const wrong = { email: world.owner.email, password: "a wrong guess" };
    let guesses = 0;
    let admitted = 0;
    let ownerSignedIn = false;
    // Rounds of ten parallel guesses from ten fresh addresses, as long as a round's slots (at most 30 s away) still
    // fall in this window.
    while (clock.now() + maxSignInDelayMs < start + windowMs) {
      const posts = await Promise.all(Array.from({ length: 10 }, () => formFrom(world, randomAddress())));
      const { pages } = await inParallel(posts.map((post) => () => post(wrong)));
      guesses += pages.length;
      admitted += evaluated(pages);
      for (const page of pages.filter((page) => page.status !== 401)) assertRefused(page);
      if (!ownerSignedIn && admitted > ceiling + 5) {
        // The queue is full: from home the owner waits at most the longest delay and signs in.
        // (Nothing else is in flight: the one wait logged now is the owner's, as the throttle set it.)
        const slowedBefore = slowedLines();
        const owner = await advancing(clock, (await formFrom(world, home))(world.owner));
        assert.is(owner.value.status, 303, owner.value.html);
        const waits = test.logs
          .filter((line) => line.includes('"consent sign-in slowed"'))
          .slice(slowedBefore)
          .map((line) => JSON.parse(line).ms as number);
        assert.is(waits.length, 1);
        assert.ok(waits[0]! > 0 && waits[0]! <= maxSignInDelayMs, `the owner waited ${waits[0]} ms`);
        ownerSignedIn = true;
      }
    }
    console.log(`  ${admitted} of ${guesses} guesses evaluated (bound ${accountEvaluationsPerWindow(ceiling)})`);
    assert.ok(ownerSignedIn, "the owner signed in during the attack");
    assert.ok(admitted > ceiling, `past the ceiling, the queue still admits (${admitted})`);
    assert.ok(
      admitted <= accountEvaluationsPerWindow(ceiling),
      `${admitted} of ${guesses} guesses evaluated; the bound is ${accountEvaluationsPerWindow(ceiling)}`,
    );
  },
);

Race.run();
