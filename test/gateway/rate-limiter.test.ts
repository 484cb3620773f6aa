// The per-app limiter: fixed minute windows on the injected clock, headers' values, and the fallback to a
// per-process window while the shared store fails, logged once per outage and recovered by itself.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createRateLimiter, rateLimitHeaders } from "../../src/gateway/rate-limiter.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { createLogger } from "../../src/runtime/logger.js";
import { createMemoryStore } from "../../src/storage/key-value.js";
import { flakyStore } from "../support/storage.js";

const Limiter = suite("gateway/rate-limiter");
const minute = Date.UTC(2026, 10, 21, 12, 0, 0);

Limiter("counts per app in fixed minute windows that reset on the boundary", async () => {
  const clock = createManualClock(minute + 15_000);
  const limiter = createRateLimiter({
    store: createMemoryStore({ clock }),
    limit: 2,
    clock,
    logger: createLogger({ write: () => {} }),
  });
  const first = await limiter.hit("app_a");
  assert.equal(first, { allowed: true, limit: 2, remaining: 1, reset: minute / 1000 + 60, retryAfter: 45 });
  assert.equal(rateLimitHeaders(first), {
    "X-RateLimit-Limit": "2",
    "X-RateLimit-Remaining": "1",
    "X-RateLimit-Reset": String(minute / 1000 + 60),
  });
  assert.is((await limiter.hit("app_a")).allowed, true);
  clock.advance(44_500);
  const third = await limiter.hit("app_a");
  assert.equal(third, { allowed: false, limit: 2, remaining: 0, reset: minute / 1000 + 60, retryAfter: 1 });
  assert.is((await limiter.hit("app_b")).remaining, 1, "another app has its own window");
  assert.equal(await limiter.peek("app_a"), {
    allowed: false,
    limit: 2,
    remaining: 0,
    reset: minute / 1000 + 60,
    retryAfter: 1,
  });
  clock.advance(500);
  assert.equal(await limiter.hit("app_a"), {
    allowed: true,
    limit: 2,
    remaining: 1,
    reset: minute / 1000 + 120,
    retryAfter: 60,
  });
});

Limiter(
  "while the shared store fails, calls are counted per process; logged once; shared again by itself",
  async () => {
    const clock = createManualClock(minute);
    const lines: string[] = [];
    const { store, state } = flakyStore(clock);
    const limiter = createRateLimiter({
      store,
      limit: 3,
      clock,
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    assert.is((await limiter.hit("app")).remaining, 2, "shared");
    state.down = true;
    const local = [];
    for (let n = 0; n < 4; n++) local.push(await limiter.hit("app"));
    assert.equal(
      local.map((decision) => decision.allowed),
      [true, true, true, false],
      "the local window admits the full limit",
    );
    assert.is((await limiter.peek("app")).remaining, 0);
    const warnings = lines.filter((line) => line.includes("fall back to per-process windows"));
    assert.is(warnings.length, 1, "one line per outage, not one per call");
    assert.match(warnings[0]!, "ECONNREFUSED");
    state.down = false;
    assert.is((await limiter.hit("app")).remaining, 1, "the shared count again (2 of 3)");
    assert.is(lines.filter((line) => line.includes("shared again")).length, 1);
    state.down = true;
    await limiter.hit("app");
    assert.is(lines.filter((line) => line.includes("fall back")).length, 2, "a second outage is logged again, once");
  },
);

Limiter("a shared store that does not answer is given up on after a bounded wait", async () => {
  const clock = createManualClock(minute);
  const { store, state } = flakyStore(clock);
  const lines: string[] = [];
  const limiter = createRateLimiter({
    store: { ...store, countTimeoutMs: 20 },
    limit: 3,
    clock,
    logger: createLogger({ write: (line) => lines.push(line) }),
  });
  state.hang = true;
  // The store never answers: the decision comes from the process's own window once the store's wait is over, and
  // the warning says which wait gave up (a bound, not a stopwatch: no timing is asserted).
  const decision = await limiter.hit("app");
  assert.is(decision.remaining, 2);
  const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(
    warnings.map((entry) => [entry["level"], entry["msg"], entry["error"]]),
    [
      [
        "warn",
        "partner rate limits fall back to per-process windows until the shared store answers",
        "no answer within 20 ms",
      ],
    ],
  );
});

Limiter.run();
