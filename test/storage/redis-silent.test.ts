// A Redis connection that goes silent (issue 37): a private redis-server reached through a TCP forwarder that stops
// forwarding on the connections already open, leaving them open (no reset, no close), and forwards new connections
// as usual: lost NAT state, a crashed host whose address moved. The server itself stays healthy. The client kept
// the silent connection for ever (/readyz 503 ["redis"] for 3.5+ minutes, every count 250 ms slower); now a command
// that waits its whole timeout with nothing received drops the connection and a new one is made. No wall-clock
// assertion: each test waits for the recovery under a generous hang guard and checks what happened (a new
// connection, the same counters). Runs in both CI modes (it brings its own server); skipped without redis-server.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createRedisStore } from "../../src/storage/key-value.js";
import { startPrivateRedis, stopProcess } from "../support/private-redis.js";
import { startTcpForwarder } from "../support/tcp-forwarder.js";
import { freePort, startTestApp } from "../support/test-app.js";

const Silent = suite("storage/redis-silent");

/** Far past the documented bound (a command fails after 1 s, a reconnect follows within 1 s): only a hang fails it. */
const hangGuardMs = 30_000;

/** Calls `attempt` until it answers true, or fails once the hang guard is over. */
async function until(what: string, attempt: () => Promise<boolean>): Promise<number> {
  const deadline = performance.now() + hangGuardMs;
  for (let tries = 1; ; tries++) {
    if (await attempt()) return tries;
    assert.ok(performance.now() < deadline, `${what}: still not recovered after ${hangGuardMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Silent("a silent connection is replaced: ping and counts answer again on a new one, counters intact", async () => {
  const port = await freePort();
  const redis = await startPrivateRedis(port);
  if (!redis) return console.log("  (skipped: no redis-server to start)");
  const forwarder = await startTcpForwarder("127.0.0.1", { host: "127.0.0.1", port });
  const store = await createRedisStore({ url: `redis://127.0.0.1:${forwarder.port}`, logger: silentLogger });
  try {
    const windowEnd = Date.now() + 600_000;
    assert.is(await store.hit("w", windowEnd), 1);
    assert.is(forwarder.accepted, 1);

    forwarder.silenceOpen();
    // Nothing can answer on the silent connection: the first ping fails (within its own bound, never a hang).
    assert.is(await store.ping(500), false);
    const tries = await until("ping", () => store.ping(500));
    assert.ok(tries >= 1);
    assert.ok(forwarder.accepted >= 2, `connections accepted: ${forwarder.accepted}`);
    // The same server's counter, reached over the new connection: the window was kept, not restarted.
    assert.is(await store.hit("w", windowEnd), 2);
  } finally {
    await store.close();
    await forwarder.close();
    await stopProcess(redis, "SIGKILL");
  }
});

Silent("/readyz: 503 naming redis while the connection is silent, 200 again once a new one is made", async () => {
  const port = await freePort();
  const redis = await startPrivateRedis(port);
  if (!redis) return console.log("  (skipped: no redis-server to start)");
  const forwarder = await startTcpForwarder("127.0.0.1", { host: "127.0.0.1", port });
  const test = await startTestApp({
    clock: createManualClock(),
    redis: false,
    env: { REDIS_URL: `redis://127.0.0.1:${forwarder.port}` },
  });
  try {
    const before = await fetch(`${test.base}/readyz`);
    assert.is(before.status, 200);
    assert.equal(await before.json(), { status: "ready" });
    const connections = forwarder.accepted;

    forwarder.silenceOpen();
    const silent = await fetch(`${test.base}/readyz`);
    assert.is(silent.status, 503);
    assert.is(silent.headers.get("retry-after"), "5");
    assert.equal(await silent.json(), { status: "not_ready", down: ["redis"] });

    await until("/readyz", async () => (await fetch(`${test.base}/readyz`)).status === 200);
    const after = await fetch(`${test.base}/readyz`);
    assert.is(after.status, 200);
    assert.equal(await after.json(), { status: "ready" });
    assert.ok(forwarder.accepted > connections, `connections accepted: ${connections}, then ${forwarder.accepted}`);
  } finally {
    await test.stop();
    await forwarder.close();
    await stopProcess(redis, "SIGKILL");
  }
});

Silent.run();
