// Fail closed: when the control database cannot answer, an API-key call is 503 partner.api_key_unavailable, never
// a pass, and it recovers without a restart once the database is back.
// - Over HTTP against the whole app on a real PostgreSQL (TEST_DATABASE_URL): the app's database is blocked mid-run
//   (`alter database ... with allow_connections false` and its backends terminated), then allowed again.
// - In process on the embedded database (always): the CredentialService and the API-key steps on a dedicated
//   PGlite socket, which is stopped mid-run and started again on the same port.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { createClient, type Client } from "@connectrpc/connect";
import { connectTransport } from "../support/internal.js";
import postgres from "postgres";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Environment, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { createMerchantDirectory } from "../../src/gateway/merchant-directory.js";
import { apiKeyVerifier, createApiKeyAuth } from "../../src/gateway/api-key-auth.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { createMetrics } from "../../src/runtime/metrics.js";
import { total } from "../support/metrics.js";
import { createLogger, silentLogger } from "../../src/runtime/logger.js";
import { createCredentialService } from "../../src/credential/service.js";
import { createSandboxGrants } from "../../src/grant/sandbox-grants.js";
import { migrateControl } from "../../src/storage/migrate.js";
import { openDatabase, type Database } from "../../src/storage/postgres.js";
import { credentialServiceOf, freePort, startTestApp, type TestApp } from "../support/test-app.js";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { newApiKey, newApp, newLiveMerchant, newOrganization } from "../support/sandbox.js";

const serverUrl = process.env["TEST_DATABASE_URL"];

// ---------------------------------------------------------------- over HTTP, real PostgreSQL
const Http = suite("gateway/api-key-outage (HTTP, PostgreSQL)");
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 + 5_000);
let test: TestApp | undefined;
let grants: Client<typeof GrantService>;

Http.before(async () => {
  if (!serverUrl) return;
  test = await startTestApp({ clock, redis: false });
  grants = createClient(GrantService, connectTransport(test.app.grpc.port, test.internal.operator));
});
Http.after(async () => {
  await test?.stop();
});

/** Blocks (or allows again) new connections to the app's database and ends the ones it has. */
async function setDatabaseReachable(databaseUrl: string, reachable: boolean): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`alter database "${name.replace(/"/g, '""')}" with allow_connections ${reachable}`);
    if (!reachable)
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
  } finally {
    await admin.end();
  }
}

Http("the database goes away: 503 partner.api_key_unavailable for every key; back: 200 again, no restart", async () => {
  if (!test) {
    console.log("  (HTTP outage test runs with TEST_DATABASE_URL; the embedded suite below covers the module)");
    return;
  }
  const credentials = credentialServiceOf(test, clock);
  const organizationId = await newOrganization(credentials);
  const app = await newApp(credentials, organizationId, Product.ADSR, true);
  const merchant = await newLiveMerchant(credentials, "us");
  const storeIds = await seedMerchantData(test.app.regionDatabases.get("us")!.sql, "us", merchant.companyId, {
    storeCount: 2,
    itemCount: 2,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(clock.now()),
  });
  await credentials.updateMerchantStatus({ companyId: BigInt(merchant.companyId), provisioned: true });
  const key = await newApiKey(credentials, app.appId, Environment.PRODUCTION);
  const { accessRequest } = await grants.createAccessRequest({
    appId: app.appId,
    companyId: BigInt(merchant.companyId),
    storeIds: storeIds.map(BigInt),
  });
  await grants.approveAccessRequest({
    accessRequestId: accessRequest!.accessRequestId,
    userId: String(merchant.owner.userId),
  });
  const path = `/v1/stores?companyId=${merchant.companyId}`;
  const call = () => fetch(`${test!.base}${path}`, { headers: { "x-api-key": key } });
  assert.is((await call()).status, 200);

  const databaseUrl = test.config.databaseUrl!;
  await setDatabaseReachable(databaseUrl, false);
  try {
    // Past every cache bound, so each answer needs the database.
    clock.advance(Math.max(test.config.caches.gatewaySeconds, test.config.caches.credentialSeconds) * 1000);
    for (const presented of [key, key.slice(0, -1) + (key.endsWith("A") ? "B" : "A")]) {
      const started = performance.now();
      const refused = await fetch(`${test.base}${path}`, { headers: { "x-api-key": presented } });
      // A wrong status says how long the call took and what the app logged (a 504 is the request deadline: some
      // wait was not bounded below it).
      const elapsedMs = Math.round(performance.now() - started);
      const warnings = test.logs.filter((line) => /"level":"(warn|error)"/.test(line)).slice(-15);
      assert.is(
        refused.status,
        503,
        `${refused.status} after ${elapsedMs} ms; the app's last warnings:\n${warnings.join("\n")}`,
      );
      const body = (await refused.json()) as Record<string, unknown>;
      assert.is(body["code"], "partner.api_key_unavailable");
      assert.is(body["statusCode"], 503);
      assert.is(refused.headers.get("retry-after"), "5");
      assert.equal(body["params"], { retryAfter: 5 });
    }
    assert.ok(test.logs.some((line) => line.includes("failing closed")));
    assert.not.ok(
      test.logs.some((line) => line.includes(key)),
      "the key is never logged",
    );
  } finally {
    await setDatabaseReachable(databaseUrl, true);
  }
  const back = await call();
  assert.is(back.status, 200);
  assert.is(((await back.json()) as { stores: unknown[] }).stores.length, 2);
});

Http.run();

// ---------------------------------------------------------------- in process, dedicated PGlite socket
const Embedded = suite("gateway/api-key-outage (embedded PGlite socket)");
let pglite: PGlite;
let socket: PGLiteSocketServer;
let port = 0;
let sql: postgres.Sql;
let database: Database;

async function startSocket(): Promise<void> {
  socket = new PGLiteSocketServer({ db: pglite, host: "127.0.0.1", port, maxConnections: 1 });
  await socket.start();
}

let pgliteDir: string;

Embedded.before(async () => {
  // On a copy of the migrated template (a directory of its own), not a new in-memory PGlite: no initdb here.
  pgliteDir = await mkdtemp(join(tmpdir(), "pa-api-key-outage-"));
  await seedEmbeddedDatabase(pgliteDir);
  pglite = await PGlite.create(join(pgliteDir, "pg"));
  port = await freePort();
  await startSocket();
  // The app's own client (bigint as number), with one connection: the socket accepts one.
  database = await openDatabase({
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: ":memory:",
    logger: silentLogger,
    poolSize: 1,
  });
  sql = database.sql;
  await migrateControl(sql, silentLogger);
});
Embedded.after(async () => {
  await database.close();
  await socket.stop();
  await pglite.close();
  await rm(pgliteDir, { recursive: true, force: true });
});

Embedded("the socket stops: api_key_unavailable, never a pass; it starts again: the same key works", async () => {
  const embeddedClock = createManualClock(Date.now());
  const config = loadConfig({});
  const impl = createCredentialService(
    { config, clock: embeddedClock, ids: cryptoIds, logger: silentLogger },
    { sql, sandboxGrants: createSandboxGrants() },
  );
  // Provision through the implementation directly (the same calls the console makes).
  const { organization } = await call(impl.createOrganization, { name: "outage org" });
  const organizationId = organization!.organizationId!;
  const app = await call(impl.createApp, { organizationId, name: "outage app", product: Product.ADSR });
  const sandboxMerchant = await call(impl.provisionSandboxMerchant, {
    organizationId,
    country: "GB",
    name: "outage shop",
  });
  const created = await call(impl.createApiKey, {
    appId: app.app!.appId!,
    name: "k",
    environment: Environment.SANDBOX,
  });
  const key = created.apiKey!.apiKey!;
  const logs: string[] = [];
  const metrics = createMetrics({ processMetrics: false });
  const auth = createApiKeyAuth({
    metrics,
    verifyApiKey: apiKeyVerifier(impl),
    controlSql: sql,
    merchants: createMerchantDirectory({ controlSql: sql, clock: embeddedClock, cacheSeconds: 5 }),
    clock: embeddedClock,
    logger: createLogger({ level: "debug", write: (line) => logs.push(line) }),
    cacheSeconds: 5,
  });
  const request = {
    apiKey: key,
    companyId: String(sandboxMerchant.merchant!.companyId),
    clientAddress: "127.0.0.1",
    scope: "stores.read",
  };
  const first = await auth.admit(request);
  assert.is(first.ok, true, JSON.stringify(first));

  await socket.stop();
  embeddedClock.advance(6_000);
  const refused = await auth.admit(request);
  assert.equal(refused, { ok: false, error: { code: "partner.api_key_unavailable", params: { retryAfter: 5 } } });
  assert.is(
    total(await metrics.registry.metrics(), "partnerapi_api_key_fail_closed_total"),
    1,
    "one verification failed closed",
  );
  assert.ok(logs.some((line) => line.includes("failing closed")));
  assert.not.ok(logs.some((line) => line.includes(key)));

  await startSocket();
  const back = await auth.admit(request);
  assert.is(back.ok, true, JSON.stringify(back) + logs.join("\n"));
});

/** Calls a ServiceImpl method with a bare handler context. */
async function call<I, O>(method: (request: I, context: never) => Promise<O> | O, request: Partial<I>): Promise<O> {
  return method(request as I, {} as never);
}

Embedded.run();
