// The gateway across processes, as deployed: a region's DataService in its own process (`--role data`) reached over
// gRPC, and two front processes (`--role front`) sharing one Redis, where exactly PARTNER_RATE_LIMIT calls of an app
// pass in one window. Real servers on real ports; the children run on the wall clock.
import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startDataRole } from "../../src/app.js";
import { loadConfig } from "../../src/config/config.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { systemClock, createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateControl, migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "../../src/token/index.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { createFixture, startGatewayApp, testKek, tokenFor } from "../support/gateway.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const Processes = suite("gateway/processes");

/** A process of `npm start` with `args`, and a way to wait for one of its JSON log lines. */
function start(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = (message: string, timeoutMs = 90_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${message}" line; stdout: ${stdout} stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        const found = stdout.split("\n").find((text) => text.includes(`"msg":"${message}"`));
        if (!found) return;
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve(JSON.parse(found) as Record<string, unknown>);
      };
      child.stdout!.on("data", check);
      check();
    });
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  };
  return { child, line, stop };
}

/** A port nobody listens on right now (for a Redis we start ourselves). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** TEST_REDIS_URL, or a redis-server of our own on a free port; undefined when neither exists. */
async function sharedRedis(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  const configured = process.env["TEST_REDIS_URL"];
  if (configured) return { url: configured, stop: async () => {} };
  const port = await freePort();
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const failed = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(true));
    const probe = (attempt: number) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(false)));
      socket.once("error", () => (attempt > 100 ? resolve(true) : setTimeout(() => probe(attempt + 1), 50)));
    };
    probe(0);
  });
  if (failed) return undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
    },
  };
}

Processes("a region's DataService in its own process serves the front over gRPC; its errors render the same", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-data-"));
  const databaseUrl = await freshDatabaseUrl();
  const companyId = 700_000_000 + Math.floor(Math.random() * 1_000_000);
  // The us region's own database, seeded before its process opens it (the embedded one has a single owner).
  const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
  await migrateRegion(database.sql, "us", silentLogger);
  await seedMerchantData(database.sql, "us", companyId, { storeCount: 1, itemCount: 7, salesDays: 0, onlineOrderCount: 0, now: new Date() });
  await database.close();
  const data = start(["--role", "data", "--region", "us"], {
    HOST: "127.0.0.1",
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? "",
    LOG_LEVEL: "info",
  });
  let gw: Awaited<ReturnType<typeof startGatewayApp>> | undefined;
  try {
    const ready = await data.line("data service ready");
    assert.is(ready["region"], "us");
    gw = await startGatewayApp({ REGION_GRPC_URL_US: String(ready["grpc"]), PARTNER_RATE_LIMIT: "100" });
    const fixture = await gw.fixture({ companyId, region: "us", seed: false });
    const token = gw.token(fixture);
    const items = await fetch(`${gw.base}/v1/items?limit=100`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(items.status, 200);
    assert.is(items.headers.get("x-ratelimit-remaining"), "99");
    const body = (await items.json()) as Json;
    assert.is(body.items.length, 7, "the rows of the data process's database");
    assert.ok(body.items.every((item: Json) => item.currency === "USD"));
    const [local] = await gw.app.regionDatabases.get("us")!.sql`select count(*)::int as n from region_us.items where company_id = ${companyId}`;
    assert.is(local!["n"], 0, "the front's own region_us has none of them");
    const missing = await fetch(`${gw.base}/v1/online-orders/123`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(missing.status, 404);
    const error = (await missing.json()) as Json;
    assert.is(error.code, "partner.order_not_found");
    assert.is(error.message, "Online order not found.");
    const window = await fetch(`${gw.base}/v1/reports/daily-sales?from=2026-01-02&to=2026-01-01`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(window.status, 400);
    assert.is(((await window.json()) as Json).code, "partner.invalid_window");

    await data.stop();
    const down = await fetch(`${gw.base}/v1/items`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(down.status, 503, "the region's process is gone");
    assert.is(down.headers.get("x-ratelimit-remaining"), "96");
  } finally {
    await data.stop();
    await gw?.stop();
    if (databaseUrl) await dropDatabase(databaseUrl);
    await rm(dataDir, { recursive: true, force: true });
  }
});

Processes("two front processes against one Redis: exactly PARTNER_RATE_LIMIT calls of an app pass in one window", async () => {
  const redis = await sharedRedis();
  if (!redis) {
    console.warn("gateway/processes: no TEST_REDIS_URL and no redis-server on PATH; the two-front test needs a Redis");
    return;
  }
  const limit = 4;
  const root = await mkdtemp(join(tmpdir(), "partner-api-fronts-"));
  const [dirA, dirB, dirData] = [join(root, "a"), join(root, "b"), join(root, "data")];
  const controlUrl = await freshDatabaseUrl();
  const dataUrl = await freshDatabaseUrl();
  const fronts: Array<ReturnType<typeof start>> = [];
  let dataNode: Awaited<ReturnType<typeof startDataRole>> | undefined;
  try {
    // The control plane both fronts read: the app, the merchant, its grant and the signing key.
    const control = await openDatabase({ url: controlUrl, dataDir: dirA, logger: silentLogger });
    await migrateControl(control.sql, silentLogger);
    const clock = createManualClock(systemClock.now());
    const fixture = await createFixture(control.sql, () => undefined, clock, { region: "in", seed: false });
    const kek = await loadKeyEncryptionKey({ configured: testKek, dataDir: dirA, logger: silentLogger });
    const keys = createSigningKeyStore({ sql: control.sql, kek, clock: systemClock, logger: silentLogger, accessTokenTtlSeconds: 900 });
    await keys.ensure();
    const key = await keys.signingKey();
    await control.close();
    // Embedded: each front gets its own copy of that database; with a server they share it.
    if (!controlUrl) await cp(dirA, dirB, { recursive: true });

    // The `in` region's DataService, hosted here, which both fronts reach over gRPC.
    dataNode = await startDataRole({
      config: loadConfig({ HOST: "127.0.0.1", GRPC_PORT: "0", DATA_DIR: dirData, DATABASE_URL: dataUrl }),
      logger: silentLogger,
      region: "in",
    });
    await seedMerchantData(dataNode.database.sql, "in", fixture.companyId, { storeCount: 1, itemCount: 3, salesDays: 0, onlineOrderCount: 0, now: new Date() });

    for (const dir of [dirA, controlUrl ? dirA : dirB]) {
      fronts.push(
        start(["--role", "front"], {
          HOST: "127.0.0.1",
          PORT: "0",
          AUTH_PORT: "0",
          GRPC_PORT: "0",
          DATA_DIR: dir,
          DATABASE_URL: controlUrl ?? "",
          REDIS_URL: redis.url,
          TOKEN_KEY_ENCRYPTION_KEY: testKek,
          LOG_LEVEL: "info",
          PARTNER_RATE_LIMIT: String(limit),
          REGIONS: "in",
          REGION_GRPC_URL_IN: `http://127.0.0.1:${dataNode.grpc.port}`,
        }),
      );
    }
    const urls = await Promise.all(fronts.map(async (front) => String((await front.line("partner API ready"))["front"])));
    const config = loadConfig({ HOST: "127.0.0.1", PORT: "0" });
    const token = tokenFor(key, config, createManualClock(systemClock.now()), fixture);

    // Both fronts are started on PORT=0, so their BASE_URL (the issuer) is the same http://127.0.0.1:0/.
    // Stay inside one real minute: start right after a boundary when the current one is nearly over.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 8_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        fetch(`${urls[n % 2]}/v1/items`, { headers: { authorization: `Bearer ${token}` } }).then(async (response) => ({
          status: response.status,
          reset: response.headers.get("x-ratelimit-reset"),
          body: (await response.json()) as Json,
        })),
      ),
    );
    const passed = answers.filter((answer) => answer.status === 200);
    const limited = answers.filter((answer) => answer.status === 429);
    assert.is(passed.length, limit, `statuses: ${answers.map((answer) => answer.status).join(",")}`);
    assert.is(limited.length, 10 - limit);
    assert.ok(limited.every((answer) => answer.body.code === "partner.rate_limited"));
    assert.is(new Set(answers.map((answer) => answer.reset)).size, 1, "one window");
    assert.ok(passed.every((answer) => answer.body.items.length === 3), "served by the in DataService over gRPC");
  } finally {
    await Promise.all(fronts.map((front) => front.stop()));
    await dataNode?.stop();
    await redis.stop();
    for (const url of [controlUrl, dataUrl]) if (url) await dropDatabase(url);
    await rm(root, { recursive: true, force: true });
  }
});

Processes.run();
