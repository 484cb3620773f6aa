// src/consent/sign-in-throttle.ts on the store the run provides (the in-process one in the embedded run, real Redis in
// the real-services run: the reservation's Lua and its in-process twin must answer alike): parallel attempts never
// pass a ceiling, the account's queue spaces its guesses by their delays, the owner's pair is slowed and never
// queued, a success gives its reservations back, and a failing store fails the attempt (closed) before anything
// is admitted. Time moves on the manual clock.
import { randomBytes } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import {
  accountEvaluationsPerWindow,
  createSignInThrottle,
  maxSignInDelayMs,
  signInWindowMs,
  type SignInAdmission,
} from "../../src/consent/sign-in-throttle.js";
import { SessionStoreUnavailable } from "../../src/web/session-store.js";
import type { KeyValueStore } from "../../src/storage/key-value.js";
import { flakyStore, getTestKeyValueStore } from "../support/storage.js";
import { randomAddress } from "../support/consent.js";

const Throttle = suite("consent/sign-in-throttle");
const ceiling = 10;
// One second into a window a day ahead of real time: a Redis key's lifetime is measured on this clock, so none of
// the windows it names can expire during the run.
const clock = createManualClock((Math.floor(Date.now() / signInWindowMs) + 96) * signInWindowMs + 1000);
let kv: KeyValueStore;

Throttle.before(async () => {
  kv = await getTestKeyValueStore(clock);
});
Throttle.after(async () => {
  await kv.close();
});

const throttle = () => createSignInThrottle({ kv, clock, ceiling });
const newEmail = () => `throttle.${process.pid}.${randomBytes(6).toString("hex")}@shop.test`;
const nextWindow = () => clock.set((Math.floor(clock.now() / signInWindowMs) + 1) * signInWindowMs + 1000);

function admitted(admission: SignInAdmission) {
  if (!admission.admitted) throw new Error(`refused by the ${admission.by}`);
  return admission;
}
const outcome = (admission: SignInAdmission) =>
  admission.admitted ? `wait ${admission.waitMs}` : `${admission.by} ${admission.retryAfter}`;

Throttle(
  "100 parallel attempts of one pair: exactly the ceiling admitted, the rest refused for the window",
  async () => {
    nextWindow();
    const email = newEmail();
    const address = randomAddress();
    const signIn = throttle();
    const answers = await Promise.all(Array.from({ length: 100 }, () => signIn.begin(email, address)));
    assert.equal(
      answers.filter((answer) => answer.admitted).map(outcome),
      Array.from({ length: ceiling }, () => "wait 0"),
    );
    assert.equal(
      [...new Set(answers.filter((answer) => !answer.admitted).map(outcome))],
      [`pair ${signInWindowMs / 1000}`],
    );
    // Another address of the same account: past the account's ceiling, so it waits its slot (1 s); the next window
    // admits the pair again.
    assert.is(outcome(await signIn.begin(email, randomAddress())), "wait 1000");
    nextWindow();
    assert.is(outcome(await signIn.begin(email, address)), "wait 0");
  },
);

Throttle(
  "the account's queue: the ceiling at once, then slots 1, 3, 7, 15 s away, then refused until one fits",
  async () => {
    nextWindow();
    const email = newEmail();
    const signIn = throttle();
    const answers = await Promise.all(Array.from({ length: 100 }, () => signIn.begin(email, randomAddress())));
    const waits = answers.flatMap((answer) => (answer.admitted ? [answer.waitMs] : [])).sort((a, b) => a - b);
    assert.equal(
      waits.map((ms) => `wait ${ms}`),
      [...Array.from({ length: ceiling }, () => "wait 0"), "wait 1000", "wait 3000", "wait 7000", "wait 15000"],
    );
    // The next slot would be 15 + 16 = 31 s away: one second too far.
    assert.equal([...new Set(answers.filter((answer) => !answer.admitted).map(outcome))], ["account 1"]);
    clock.advance(1000);
    assert.is(outcome(await signIn.begin(email, randomAddress())), "wait 30000");
    // From now on one slot per 30 s.
    assert.is(outcome(await signIn.begin(email, randomAddress())), "account 30");
    clock.advance(30_000);
    assert.is(outcome(await signIn.begin(email, randomAddress())), "wait 30000");
  },
);

Throttle("a whole window of attempts from fresh addresses: at most accountEvaluationsPerWindow admitted", async () => {
  nextWindow();
  const email = newEmail();
  const signIn = throttle();
  const end = (Math.floor(clock.now() / signInWindowMs) + 1) * signInWindowMs;
  let admittedCount = 0;
  // Ten attempts a second, each from an address of its own, the whole window long; an admitted one is evaluated
  // once its wait has passed, so only those whose slot is still in this window count.
  for (; clock.now() < end; clock.advance(1000))
    for (const answer of await Promise.all(Array.from({ length: 10 }, () => signIn.begin(email, randomAddress()))))
      if (answer.admitted && clock.now() + answer.waitMs < end) admittedCount++;
  assert.ok(admittedCount > ceiling + 30, `the queue kept admitting (${admittedCount})`);
  assert.ok(admittedCount <= accountEvaluationsPerWindow(ceiling), `${admittedCount} admitted`);
  assert.is(accountEvaluationsPerWindow(ceiling), 50);
});

Throttle(
  "the owner's pair (a success from that address) is slowed, never queued, and a success gives its reservations back",
  async () => {
    nextWindow();
    const email = newEmail();
    const home = randomAddress();
    const signIn = throttle();
    // Nine failures at home, then successes: each gives back its reservation, so the pair's tenth failure is admitted.
    for (let i = 0; i < ceiling - 1; i++) admitted(await signIn.begin(email, home));
    for (let i = 0; i < 5; i++) await admitted(await signIn.begin(email, home)).succeeded();
    admitted(await signIn.begin(email, home));
    assert.is(outcome(await signIn.begin(email, home)), `pair ${signInWindowMs / 1000}`);
    // Strangers fill the queue; the owner, from another address they signed in from, waits the account's delay only.
    const office = randomAddress();
    nextWindow();
    await admitted(await signIn.begin(email, office)).succeeded();
    await Promise.all(Array.from({ length: 40 }, () => signIn.begin(email, randomAddress())));
    assert.match(outcome(await signIn.begin(email, randomAddress())), /^account /);
    // The account has 14 failures or attempts in flight: the owner's attempt is its 15th, so its delay is 16 s.
    assert.is(outcome(await signIn.begin(email, office)), "wait 16000");
    // That attempt failed (its reservation stays): the next is the 16th, its delay the longest, and still admitted.
    assert.is(outcome(await signIn.begin(email, office)), `wait ${maxSignInDelayMs}`);
    assert.match(outcome(await signIn.begin(email, randomAddress())), /^account /);
  },
);

Throttle("a failing store fails the attempt before anything is admitted (the site answers 503)", async () => {
  const { store, state } = flakyStore(clock);
  const signIn = createSignInThrottle({ kv: store, clock, ceiling });
  state.down = true;
  const error = await signIn.begin(newEmail(), randomAddress()).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.instance(error, SessionStoreUnavailable);
  await store.close();
});

Throttle.run();
