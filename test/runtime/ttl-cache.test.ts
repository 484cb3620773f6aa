// The one bounded cache (gateway routing, credential verifications, built allowlists, verified tokens), lru-cache on
// our clock: staleness bounded on the clock or an entry's own end, size bounded, one load per burst, failures not kept.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createBoundedCache, createTtlCache } from "../../src/runtime/ttl-cache.js";
import { createManualClock } from "../../src/runtime/clock.js";

const Cache = suite("runtime/ttl-cache");

Cache("serves a value for ttlMs, then loads again; concurrent misses share one load", async () => {
  const clock = createManualClock();
  const cache = createTtlCache<number>({ clock, ttlMs: 5000, maxEntries: 10 });
  let loads = 0;
  const load = async () => ++loads;
  assert.equal(await Promise.all([cache.get("k", load), cache.get("k", load)]), [1, 1]);
  clock.advance(4999);
  assert.is(await cache.get("k", load), 1);
  clock.advance(1);
  assert.is(await cache.get("k", load), 2);
});

Cache("drops the oldest entry beyond maxEntries; a failed load is not cached; ttl 0 never caches", async () => {
  const clock = createManualClock();
  const cache = createTtlCache<string>({ clock, ttlMs: 5000, maxEntries: 2 });
  await cache.get("a", async () => "a1");
  await cache.get("b", async () => "b1");
  await cache.get("c", async () => "c1");
  assert.is(await cache.get("a", async () => "a2"), "a2");
  assert.is(await cache.get("c", async () => "c2"), "c1");
  await cache.get("x", async () => Promise.reject(new Error("down"))).catch(() => {});
  await Promise.resolve();
  assert.is(await cache.get("x", async () => "x2"), "x2");
  const none = createTtlCache<number>({ clock, ttlMs: 0, maxEntries: 2 });
  let loads = 0;
  await none.get("k", async () => ++loads);
  await none.get("k", async () => ++loads);
  assert.is(loads, 2);
});

Cache("verification cache: entries end at the bound or the secret's own end, whichever is first", async () => {
  const clock = createManualClock();
  const cache = createTtlCache<string>({ clock, ttlMs: 5000, maxEntries: 10 });
  cache.set("a", "A");
  cache.set("b", "B", clock.now() + 1000);
  clock.advance(999);
  assert.equal([await cache.peek("a"), await cache.peek("b")], ["A", "B"]);
  clock.advance(1);
  assert.equal([await cache.peek("a"), await cache.peek("b")], ["A", undefined]);
  clock.advance(4000);
  assert.is(await cache.peek("a"), undefined);
  cache.set("c", "C");
  cache.clear();
  assert.is(await cache.peek("c"), undefined);
  const off = createTtlCache<string>({ clock, ttlMs: 0, maxEntries: 10 });
  off.set("a", "A");
  assert.is(await off.peek("a"), undefined);
});

Cache("bounded values: synchronous, kept until ttlMs or their own end, the oldest dropped when full", () => {
  const clock = createManualClock();
  const cache = createBoundedCache<string>({ clock, ttlMs: 1000, maxEntries: 2 });
  cache.set("a", "A");
  cache.set("b", "B", clock.now() + 10);
  assert.is(cache.get("a"), "A");
  assert.is(cache.get("b"), "B");
  clock.advance(10);
  assert.is(cache.get("b"), undefined, "its own end came first");
  cache.set("b", "B2");
  cache.set("c", "C");
  assert.is(cache.get("a"), undefined, "the oldest went when a third arrived");
  assert.is(cache.get("c"), "C");
  clock.advance(999);
  assert.is(cache.get("c"), "C");
  clock.advance(1);
  assert.is(cache.get("c"), undefined, "ttlMs bounds every entry");
  cache.set("d", "D");
  cache.delete("d");
  assert.is(cache.get("d"), undefined);
});

Cache("bounded values: ttl Infinity keeps until evicted; ttl 0 keeps nothing", () => {
  const clock = createManualClock();
  const forever = createBoundedCache<number>({ clock, ttlMs: Infinity, maxEntries: 1 });
  forever.set("x", 1);
  clock.advance(1e12);
  assert.is(forever.get("x"), 1);
  forever.set("y", 2);
  assert.is(forever.get("x"), undefined);
  const never = createBoundedCache<number>({ clock, ttlMs: 0, maxEntries: 10 });
  never.set("x", 1);
  assert.is(never.get("x"), undefined);
});

/** A load that answers when told to. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

Cache("a failed load's error reaches every caller waiting on it, and the next call loads again", async () => {
  const clock = createManualClock();
  const cache = createTtlCache<string>({ clock, ttlMs: 5000, maxEntries: 10 });
  const down = new Error("down");
  let loads = 0;
  const failing = async () => {
    loads++;
    throw down;
  };
  const results = await Promise.allSettled([cache.get("k", failing), cache.get("k", failing)]);
  for (const result of results) assert.is(result.status === "rejected" && result.reason, down);
  assert.is(loads, 1);
  assert.is(await cache.get("k", async () => "k2"), "k2");
});

Cache("a loaded answer ends ttlMs after its load started, however long the load took", async () => {
  const clock = createManualClock();
  const cache = createTtlCache<string>({ clock, ttlMs: 5000, maxEntries: 10 });
  const load = deferred<string>();
  const first = cache.get("k", () => load.promise);
  clock.advance(3000);
  load.resolve("k1");
  assert.is(await first, "k1");
  clock.advance(1999);
  assert.is(await cache.get("k", async () => "k2"), "k1");
  clock.advance(1);
  assert.is(await cache.get("k", async () => "k2"), "k2");
});

Cache("a load in flight that is pushed out or deleted still answers its callers, and is not kept", async () => {
  const clock = createManualClock();
  const cache = createTtlCache<string>({ clock, ttlMs: 5000, maxEntries: 1 });
  const slow = deferred<string>();
  const pushedOut = cache.get("a", () => slow.promise);
  assert.is(await cache.get("b", async () => "b1"), "b1", "b takes the only place");
  slow.resolve("a1");
  assert.is(await pushedOut, "a1");
  assert.is(await cache.get("b", async () => "b2"), "b1", "a's late answer did not take b's place");
  assert.is(await cache.get("a", async () => "a2"), "a2", "nor was it kept");
  const late = deferred<string>();
  const deleted = cache.get("c", () => late.promise);
  cache.delete("c");
  late.resolve("c1");
  assert.is(await deleted, "c1");
  assert.is(await cache.get("c", async () => "c2"), "c2");
});

Cache("a value set with an end already past is not kept, and replaces what was", () => {
  const clock = createManualClock();
  const cache = createBoundedCache<string>({ clock, ttlMs: 1000, maxEntries: 10 });
  cache.set("a", "A");
  cache.set("a", "A2", clock.now());
  assert.is(cache.get("a"), undefined);
  cache.set("b", "B", clock.now() + 2);
  clock.advance(1);
  assert.is(cache.get("b"), "B", "kept until its end");
  clock.advance(1);
  assert.is(cache.get("b"), undefined);
});

Cache.run();
