// Tests of the key-value stores: fixed windows and expiry in memory (manual clock) and on real Redis, and
// failing fast when Redis is unreachable.
import { createServer, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock, systemClock } from "../../src/runtime/clock.js";
import { createLogger, silentLogger } from "../../src/runtime/logger.js";
import {
  createMemoryStore,
  createRedisStore,
  openKeyValueStore,
  type AtomicScript,
} from "../../src/storage/key-value.js";
import { getTestKeyValueStore } from "../support/storage.js";

const memory = suite("storage/key-value (memory)");

memory("hit counts within a fixed window and starts again after its absolute end", async () => {
  const clock = createManualClock(Date.UTC(2026, 0, 1, 12, 0, 30));
  const store = createMemoryStore({ clock });
  const windowEnd = Date.UTC(2026, 0, 1, 12, 1, 0);
  assert.is(await store.hit("w", windowEnd), 1);
  assert.is(await store.hit("w", windowEnd), 2);
  // Later hits do not move the end of the window.
  assert.is(await store.hit("w", windowEnd + 60_000), 3);
  clock.set(windowEnd - 1);
  assert.is(await store.hit("w", windowEnd), 4);
  clock.set(windowEnd);
  assert.is(await store.hit("w", windowEnd + 60_000), 1);
  assert.is(await store.get("w"), "1");
  await store.close();
});

memory("get, set, setIfAbsent and del follow the clock", async () => {
  const clock = createManualClock();
  const store = createMemoryStore({ clock });
  assert.is(await store.get("k"), null);
  await store.set("k", "v", 1000);
  assert.is(await store.get("k"), "v");
  assert.is(await store.setIfAbsent("k", "other", 1000), false);
  clock.advance(999);
  assert.is(await store.get("k"), "v");
  clock.advance(1);
  assert.is(await store.get("k"), null);
  assert.is(await store.setIfAbsent("k", "second", 1000), true);
  assert.is(await store.get("k"), "second");
  await store.del("k");
  assert.is(await store.get("k"), null);
  assert.is(store.shared, false);
  await store.close();
});

memory("the periodic sweep removes expired entries by the clock's time", async () => {
  const clock = createManualClock();
  const store = createMemoryStore({ clock, sweepIntervalMs: 5 });
  await store.set("gone", "x", 10);
  await store.set("kept", "y", 10_000);
  clock.advance(10);
  await new Promise((resolve) => setTimeout(resolve, 20));
  clock.advance(-10); // back in time: only the sweep can have removed "gone"
  assert.is(await store.get("gone"), null);
  assert.is(await store.get("kept"), "y");
  await store.close();
});

memory("openKeyValueStore without a URL is the per-process store and says so once", async () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) });
  const store = await openKeyValueStore({ clock: createManualClock(), logger });
  assert.is(store.shared, false);
  assert.is(lines.length, 1);
  assert.is(
    JSON.parse(lines[0]!).msg,
    "no Redis configured: rate limits and throttles are counted per process, not shared",
  );
  await store.close();
});

memory("the per-process store is always ready: ping answers true", async () => {
  const store = createMemoryStore({ clock: createManualClock() });
  assert.is(await store.ping(1000), true);
  await store.close();
});

/**
 * A script for the tests, new to Redis each time (its Lua names a random id): adds ARGV[1] to KEYS[1] (a new key
 * expires after ARGV[2] ms, an existing one keeps its expiry) and answers the count and KEYS[2]'s value.
 */
function addScript(): AtomicScript {
  const id = randomBytes(8).toString("hex");
  return {
    name: `add-${id}`,
    lua: `-- ${id}
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {count, tonumber(redis.call('GET', KEYS[2]) or '-1')}`,
    local: (entries, keys, args) => [entries.incrBy(keys[0]!, args[0]!, args[1]!), Number(entries.get(keys[1]!) ?? -1)],
  };
}

memory(
  "run: the script's in-process twin sees the entries on the clock; a new key expires, an existing one keeps its expiry",
  async () => {
    const clock = createManualClock();
    const store = createMemoryStore({ clock });
    const add = addScript();
    await store.set("other", "7", 10_000);
    assert.equal(await store.run(add, ["n", "other"], [2, 1000]), [2, 7]);
    clock.advance(600);
    assert.equal(await store.run(add, ["n", "missing"], [-1, 60_000]), [1, -1]);
    clock.advance(400);
    assert.is(await store.get("n"), null, "expired 1000 ms after it was created, not 60 s after the second call");
    await store.close();
  },
);

memory.run();

const redis = suite("storage/key-value (redis)");
const redisUrl = process.env.TEST_REDIS_URL;
/** The tests that need a Redis of the run's own: skipped (and counted so) in the embedded run. */
const needsRedis = { skip: redisUrl ? false : "TEST_REDIS_URL is not set" } as const;

redis(
  "hit counts within a fixed window and the window expires at its end",
  async () => {
    const store = await getTestKeyValueStore(systemClock);
    try {
      assert.is(store.shared, true);
      const key = `w_${randomBytes(4).toString("hex")}`;
      const windowEnd = Date.now() + 300;
      assert.is(await store.hit(key, windowEnd), 1);
      assert.is(await store.hit(key, windowEnd + 60_000), 2);
      assert.is(await store.get(key), "2");
      await new Promise((resolve) => setTimeout(resolve, windowEnd - Date.now() + 50));
      assert.is(await store.get(key), null);
      assert.is(await store.hit(key, Date.now() + 60_000), 1);
      await store.del(key);
    } finally {
      await store.close();
    }
  },
  needsRedis,
);

// The flake this pins: with PEXPIREAT, a window whose end lay in the real past (a test's manual clock frozen a
// minute ago, a front whose clock runs behind Redis's) was expired by Redis at once, so every hit counted 1.
redis(
  "a window's lifetime is measured on the store's clock, not on Redis's",
  async () => {
    const clock = createManualClock(Date.UTC(2020, 0, 1, 12, 0, 0));
    const store = await getTestKeyValueStore(clock);
    try {
      const key = `past_${randomBytes(4).toString("hex")}`;
      const windowEnd = clock.now() + 60_000;
      assert.is(await store.hit(key, windowEnd), 1);
      assert.is(await store.hit(key, windowEnd), 2);
      assert.is(await store.hit(key, windowEnd), 3);
      assert.is(await store.get(key), "3");
      await store.del(key);
    } finally {
      await store.close();
    }
  },
  needsRedis,
);

redis(
  "get, set, setIfAbsent and del",
  async () => {
    const store = await getTestKeyValueStore(systemClock);
    try {
      const key = `k_${randomBytes(4).toString("hex")}`;
      assert.is(await store.get(key), null);
      assert.is(await store.setIfAbsent(key, "first", 200), true);
      assert.is(await store.setIfAbsent(key, "second", 200), false);
      assert.is(await store.get(key), "first");
      await store.set(key, "third", 200);
      assert.is(await store.get(key), "third");
      await store.del(key);
      assert.is(await store.get(key), null);
      await store.set(key, "short", 50);
      await new Promise((resolve) => setTimeout(resolve, 120));
      assert.is(await store.get(key), null);
    } finally {
      await store.close();
    }
  },
  needsRedis,
);

redis(
  "keys live under the store's prefix",
  async () => {
    const prefix = `pa_test_prefix_${randomBytes(4).toString("hex")}:`;
    const prefixed = await createRedisStore({ url: redisUrl!, logger: silentLogger, prefix });
    const bare = await createRedisStore({ url: redisUrl!, logger: silentLogger });
    try {
      assert.is(await prefixed.hit("w", Date.now() + 5000), 1);
      assert.is(await bare.get(`${prefix}w`), "1");
      assert.is(await bare.get("w"), null);
    } finally {
      await bare.del(`${prefix}w`);
      await prefixed.close();
      await bare.close();
    }
  },
  needsRedis,
);

redis(
  "run: a script new to Redis is loaded once and run under the store's prefix, answering like its twin",
  async () => {
    const url = redisUrl!;
    const prefix = `pa_test_run_${randomBytes(4).toString("hex")}:`;
    const store = await createRedisStore({ url, logger: silentLogger, prefix });
    const bare = await createRedisStore({ url, logger: silentLogger });
    try {
      const add = addScript();
      await store.set("other", "7", 10_000);
      // The first run finds no script of that SHA (NOSCRIPT) and loads it; the second runs it by its SHA.
      assert.equal(await store.run(add, ["n", "other"], [2, 1000]), [2, 7]);
      assert.equal(await store.run(add, ["n", "missing"], [-1, 60_000]), [1, -1]);
      assert.is(await bare.get(`${prefix}n`), "1");
      assert.is(await bare.get("n"), null);
      // The expiry the first run gave, not the second's 60 s (read by Redis's own PTTL, no waiting).
      const client = new Redis(url);
      try {
        const left = await client.pttl(`${prefix}n`);
        assert.ok(left > 0 && left <= 1000, `${left} ms left`);
      } finally {
        client.disconnect();
      }
      // A reply that is not a list of integers is an error, never a guess.
      const odd: AtomicScript = { name: "odd", lua: "return 'text'", local: () => [] };
      const error = await store.run(odd, [], []).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      assert.instance(error, Error);
      assert.is((error as Error).message, 'script odd answered "text", not a list of integers');
    } finally {
      await bare.del(`${prefix}other`);
      await bare.del(`${prefix}n`);
      await store.close();
      await bare.close();
    }
  },
  needsRedis,
);

// Rejected at once, not queued until Redis comes back: ioredis's own error without an offline queue. A rate check
// must not hang a request (src/storage/key-value.ts); timing this is bench/outage-deadlines.ts's business.
const notQueued = "Stream isn't writeable and enableOfflineQueue options is false";

redis("a store pointed at a closed port rejects without queueing, logs the outage once, and closes", async () => {
  const port = await closedPort();
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line) });
  const store = await createRedisStore({ url: `redis://127.0.0.1:${port}`, logger });
  for (let i = 0; i < 3; i++) {
    const error = await store.hit("w", Date.now() + 1000).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.instance(error, Error);
    assert.is((error as Error).message, notQueued);
  }
  const error = await store.get("k").then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.instance(error, Error);
  assert.is((error as Error).message, notQueued);
  await new Promise((resolve) => setTimeout(resolve, 200)); // let it try to reconnect a few times
  await store.close();
  const outages = lines.map((line) => JSON.parse(line).msg).filter((msg) => msg.startsWith("redis unreachable"));
  assert.equal(outages, ["redis unreachable; shared limits fail until it is back"]);
});

redis(
  "ping answers true while Redis answers",
  async () => {
    const store = await getTestKeyValueStore(systemClock);
    assert.is(await store.ping(1000), true);
    await store.close();
  },
  needsRedis,
);

redis("ping answers false on a closed port (never throws)", async () => {
  const store = await createRedisStore({
    url: `redis://127.0.0.1:${await closedPort()}`,
    logger: silentLogger,
    connectTimeoutMs: 200,
  });
  assert.is(await store.ping(1000), false);
  await store.close();
});

redis("ping gives up after its bound on a Redis that accepts the connection and never answers", async () => {
  // A listener that accepts and says nothing: the first connection never becomes ready, so PING cannot be sent.
  const accepted: Socket[] = [];
  const silent = createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as { port: number };
  const store = await createRedisStore({
    url: `redis://127.0.0.1:${port}`,
    logger: silentLogger,
    connectTimeoutMs: 100,
  });
  assert.is(await store.ping(50), false);
  await store.close();
  for (const socket of accepted) socket.destroy();
  silent.close();
});

/** A local port that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

redis.run();
