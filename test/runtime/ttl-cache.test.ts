// The one bounded cache (gateway routing, credential verifications, built allowlists): staleness bounded on the clock
// or an entry's own end, size bounded, one load per burst, failures not kept.
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

Cache.run();
