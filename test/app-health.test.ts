// The probes of the whole app (src/app.ts): /readyz on the front and the consent site and gRPC health answer the
// same readiness. From the moment stop() is called they report not ready (`shutting_down`) while the listeners keep
// serving for SHUTDOWN_DRAIN_SECONDS on the injected clock; a request in flight when they close still gets its
// answer. A configured Redis that dies (a private redis-server on a free port) makes the app not ready, naming
// `redis`, and ready again once it is back; the data role's health follows its database and shutdown alike.
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skipTest, suite } from "./support/suite.js";
import * as assert from "uvu/assert";
import { HealthCheckResponse_ServingStatus as ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { startDataRole } from "../src/app.js";
import { loadConfig } from "../src/config/config.js";
import { createManualClock } from "../src/runtime/clock.js";
import { silentLogger } from "../src/runtime/logger.js";
import { freePort, startTestApp } from "./support/test-app.js";
import { seedEmbeddedDatabase } from "./support/embedded-template.js";
import { dropDatabase, freshDatabaseUrl } from "./support/storage.js";
import { startPrivateRedis, stopProcess } from "./support/private-redis.js";
import { grpcHealthCheck } from "./support/internal.js";

const Probes = suite("app health");
const services = [
  "",
  "partnerapi.v1.TokenService",
  "partnerapi.v1.GrantService",
  "partnerapi.v1.CredentialService",
  "partnerapi.v1.DataService",
  "partnerapi.v1.ConsoleService",
];

async function statuses(port: number): Promise<ServingStatus[]> {
  return Promise.all(services.map((service) => grpcHealthCheck(port, service)));
}

async function probe(
  url: string,
): Promise<{ status: number; body: string; retryAfter: string | null; cacheControl: string | null }> {
  const answer = await fetch(url);
  return {
    status: answer.status,
    body: await answer.text(),
    retryAfter: answer.headers.get("retry-after"),
    cacheControl: answer.headers.get("cache-control"),
  };
}

const ready = { status: 200, body: '{"status":"ready"}', retryAfter: null, cacheControl: "no-store" };
const notReady = (down: string[]) => ({
  status: 503,
  body: JSON.stringify({ status: "not_ready", down }),
  retryAfter: "5",
  cacheControl: "no-store",
});

/** Resolves once a new connection to `port` is refused (the listener closed); bounded. */
async function refusedSoon(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`port ${port} still accepts`);
}

Probes(
  "every listener's probes answer GET and HEAD alike; another method is 405 with Allow: GET, HEAD in the listener's shape",
  async () => {
    const test = await startTestApp({ clock: createManualClock(), redis: false });
    try {
      for (const base of [test.base, test.auth, test.console]) {
        for (const path of ["/healthz", "/readyz"]) {
          const get = await fetch(base + path);
          const body = await get.text();
          const head = await fetch(base + path, { method: "HEAD" });
          assert.is(get.status, 200, base + path);
          assert.is(head.status, 200, base + path);
          for (const name of ["content-type", "content-length", "cache-control"])
            assert.is(head.headers.get(name), get.headers.get(name), `${base}${path} ${name}`);
          assert.is(get.headers.get("content-length"), String(Buffer.byteLength(body)));
          assert.is(await head.text(), "");
          const refused = await fetch(base + path, { method: "DELETE" });
          assert.is(refused.status, 405, base + path);
          assert.is(refused.headers.get("allow"), "GET, HEAD", base + path);
          await refused.arrayBuffer();
        }
      }
      // The front's refusal is the partner envelope, as any other of its 405s.
      const refused = await fetch(`${test.base}/healthz`, { method: "POST" });
      const envelope = (await refused.json()) as Record<string, unknown>;
      assert.equal(
        [refused.status, envelope["code"], envelope["params"], envelope["path"]],
        [405, "request.method_not_allowed", { allow: "GET, HEAD" }, "/healthz"],
      );
    } finally {
      await test.stop();
    }
  },
);

Probes(
  "from stop() on: /readyz 503 shutting_down and gRPC NOT_SERVING while serving through the drain; a request in flight at close completes",
  async () => {
    const clock = createManualClock();
    const test = await startTestApp({
      clock,
      redis: false,
      env: { SHUTDOWN_DRAIN_SECONDS: "5", SHUTDOWN_GRACE_SECONDS: "30" },
    });
    try {
      assert.equal(await probe(`${test.base}/readyz`), ready);
      assert.equal(
        await statuses(test.app.grpc.port),
        services.map(() => ServingStatus.SERVING),
      );

      // A token request whose body is half sent: it is in flight across the whole shutdown.
      const body = "grant_type=client_credentials&client_id=nobody&client_secret=nothing";
      const inFlight = request(`${test.base}/v1/oauth/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(Buffer.byteLength(body)),
        },
      });
      const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
        inFlight.once("response", (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.once("end", () => resolve({ status: response.statusCode!, body: text }));
        });
        inFlight.once("error", reject);
      });
      answered.catch(() => {}); // awaited below; a failed assertion before then must not also crash the run
      await new Promise<void>((resolve) =>
        inFlight.once("socket", (socket) => socket.once("connect", () => resolve())),
      );
      inFlight.write(body.slice(0, 20));

      let stopped = false;
      const stopping = test.app.stop().then(() => (stopped = true));
      // Not ready at once, on both sites and on the internal port; liveness unchanged; everything else still served.
      assert.equal(await probe(`${test.base}/readyz`), notReady(["shutting_down"]));
      assert.equal(await probe(`${test.auth}/readyz`), {
        status: 503,
        body: "not ready: shutting_down\n",
        retryAfter: "5",
        cacheControl: "no-store",
      });
      assert.equal(
        await statuses(test.app.grpc.port),
        services.map(() => ServingStatus.NOT_SERVING),
      );
      assert.is((await fetch(`${test.base}/healthz`)).status, 200);
      const jwks = await fetch(`${test.base}/.well-known/jwks.json`);
      assert.is(jwks.status, 200, "new connections are still served during the drain");
      await jwks.arrayBuffer();
      clock.advance(4_999);
      assert.equal(await probe(`${test.base}/readyz`), notReady(["shutting_down"]));
      assert.is(stopped, false, "the listeners stay open for the whole drain");

      // The drain is over: the listeners close; the request in flight still gets its answer.
      clock.advance(1);
      await refusedSoon(test.app.front.port);
      inFlight.end(body.slice(20));
      const answer = await answered;
      assert.is(answer.status, 401);
      assert.is((JSON.parse(answer.body) as { error: string }).error, "invalid_client");
      await stopping;
      assert.is(stopped, true);
    } finally {
      // Even after a failed assertion: stop, and move the clock past the drain.
      const stopped = test.stop();
      clock.advance(5_000);
      await stopped;
    }
  },
);

Probes(
  "a configured Redis that dies: /readyz 503 naming redis and gRPC NOT_SERVING; back: 200 and SERVING",
  async () => {
    const port = await freePort();
    let redis = await startPrivateRedis(port);
    if (!redis) skipTest("no redis-server to start");
    const clock = createManualClock();
    const test = await startTestApp({ clock, redis: false, env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    try {
      assert.equal(await probe(`${test.base}/readyz`), ready);
      assert.equal(await probe(`${test.auth}/readyz`), {
        status: 200,
        body: "ready\n",
        retryAfter: null,
        cacheControl: "no-store",
      });
      await stopProcess(redis, "SIGKILL");
      assert.equal(await probe(`${test.base}/readyz`), notReady(["redis"]));
      assert.equal(await probe(`${test.auth}/readyz`), {
        status: 503,
        body: "not ready: redis\n",
        retryAfter: "5",
        cacheControl: "no-store",
      });
      assert.equal(
        await statuses(test.app.grpc.port),
        services.map(() => ServingStatus.NOT_SERVING),
      );
      assert.is((await fetch(`${test.base}/healthz`)).status, 200, "liveness does not depend on Redis");

      redis = await startPrivateRedis(port);
      assert.ok(redis, "redis-server restarted");
      // The client reconnects by itself (at least every second): poll, real time, bounded.
      let last = await probe(`${test.base}/readyz`);
      for (let attempt = 0; attempt < 150 && last.status !== 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        last = await probe(`${test.base}/readyz`);
      }
      assert.equal(last, ready);
      assert.equal(
        await statuses(test.app.grpc.port),
        services.map(() => ServingStatus.SERVING),
      );
    } finally {
      await test.stop();
      if (redis) await stopProcess(redis, "SIGKILL");
    }
  },
);

Probes("the data role: its health follows its database's readiness and shutdown", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "pa-data-health-"));
  const databaseUrl = await freshDatabaseUrl();
  // Embedded: a copy of the migrated template, no initdb of its own.
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  const clock = createManualClock();
  const node = await startDataRole({
    config: loadConfig({
      HOST: "127.0.0.1",
      GRPC_PORT: "0",
      REGION_GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SHUTDOWN_DRAIN_SECONDS: "5",
      SHUTDOWN_GRACE_SECONDS: "1",
    }),
    logger: silentLogger,
    region: "in",
    clock,
  });
  const check = () =>
    Promise.all(["", "partnerapi.v1.DataService"].map((service) => grpcHealthCheck(node.grpc.port, service)));
  try {
    assert.equal(await check(), [ServingStatus.SERVING, ServingStatus.SERVING]);
    // Its database's ping made to fail (a real outage is the PostgreSQL fault test's; here only the wiring is
    // under test): NOT_SERVING; answering again: SERVING.
    const ping = node.database.ping.bind(node.database);
    let databaseUp = false;
    node.database.ping = async (timeoutMs) => databaseUp && ping(timeoutMs);
    assert.equal(await check(), [ServingStatus.NOT_SERVING, ServingStatus.NOT_SERVING]);
    databaseUp = true;
    assert.equal(await check(), [ServingStatus.SERVING, ServingStatus.SERVING]);
    const stopping = node.stop();
    assert.equal(await check(), [ServingStatus.NOT_SERVING, ServingStatus.NOT_SERVING]);
    clock.advance(5_000);
    await stopping;
  } finally {
    const stopped = node.stop();
    clock.advance(5_000);
    await stopped;
    if (databaseUrl) await dropDatabase(databaseUrl);
    await rm(dataDir, { recursive: true, force: true });
  }
});

Probes.run();
