// The gateway across processes, as deployed: a region's DataService in its own process (`--role data`) reached over
// gRPC with the front's service credential, and two front processes (`--role front`) sharing one Redis, where exactly
// PARTNER_RATE_LIMIT calls of an app pass in one window; a TLS data role that requires the `front` credential and
// never receives a partner's Authorization or X-API-Key, and the fronts it refuses (503, never a pass). Real servers
// on real ports; the children run on the wall clock.
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { skipTest, suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { startDataRole } from "../../src/app.js";
import { loadConfig } from "../../src/config/config.js";
import { newApiKey } from "../../src/credential/secrets.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { messageFor } from "../../src/errors/index.js";
import { newServiceCredential } from "../../src/internal/service-credentials.js";
import { systemClock, createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateControl, migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "../../src/token/index.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { createFixture, startGatewayApp, testKek, tokenFor } from "../support/gateway.js";
import { freePort } from "../support/test-app.js";
import { selfSignedCertificate, writeInternalCredentials } from "../support/internal.js";
import { startPrivateRedis, stopProcess } from "../support/private-redis.js";
import { createProgramClock } from "../support/program-clock.js";
import { startRole } from "../support/role-process.js";
import type { ItemPage, PartnerErrorBody, StorePage } from "../support/wire.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any

const Processes = suite("gateway/processes");

/** A process of `npm start` with `args` (test/support/role-process.ts). */
const start = startRole;

/** Writes the credential a front presents (REGION_GRPC_CREDENTIAL_FILE) into `dir`; the file's path. */
async function presentedCredentialFile(dir: string, credential: string, name = "front-credential"): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, credential + "\n", { mode: 0o600 });
  return file;
}

/** TEST_REDIS_URL, or a redis-server of our own on a free port; undefined when neither exists. */
async function sharedRedis(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  const configured = process.env["TEST_REDIS_URL"];
  if (configured) return { url: configured, stop: async () => {} };
  const port = await freePort();
  const server = await startPrivateRedis(port);
  if (!server) return undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => stopProcess(server),
  };
}

Processes(
  "a region's DataService in its own process serves the front over gRPC; its errors render the same",
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "partner-api-data-"));
    const databaseUrl = await freshDatabaseUrl();
    const companyId = 700_000_000 + Math.floor(Math.random() * 1_000_000);
    // The us region's own database, seeded before its process opens it (the embedded one has a single owner).
    if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
    const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
    await migrateRegion(database.sql, "us", silentLogger);
    await seedMerchantData(database.sql, "us", companyId, {
      storeCount: 1,
      itemCount: 7,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(),
    });
    await database.close();
    // The data role accepts the credentials of this file; the front presents the `front` one.
    const credentials = await writeInternalCredentials(dataDir, "accepted-credentials");
    const data = start(["--role", "data", "--region", "us"], {
      HOST: "127.0.0.1",
      GRPC_PORT: "0",
      REGION_GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
      GRPC_CREDENTIALS_FILE: credentials.file,
      LOG_LEVEL: "info",
    });
    let gw: Awaited<ReturnType<typeof startGatewayApp>> | undefined;
    try {
      const ready = await data.line("data service ready");
      assert.is(ready["region"], "us");
      gw = await startGatewayApp({
        REGION_GRPC_URL_US: String(ready["regionGrpc"]),
        REGION_GRPC_CREDENTIAL_FILE: await presentedCredentialFile(dataDir, credentials.front),
        PARTNER_RATE_LIMIT: "100",
      });
      const fixture = await gw.fixture({ companyId, region: "us", seed: false });
      const token = gw.token(fixture);
      const items = await fetch(`${gw.base}/v1/items?limit=100`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(items.status, 200);
      assert.is(items.headers.get("x-ratelimit-remaining"), "99");
      const body = (await items.json()) as ItemPage;
      assert.is(body.items.length, 7, "the rows of the data process's database");
      assert.ok(body.items.every((item) => item.currency === "USD"));
      const [local] = await gw.app.regionDatabases.get("us")!
        .sql`select count(*)::int as n from region_us.items where company_id = ${companyId}`;
      assert.is(local!["n"], 0, "the front's own region_us has none of them");
      const missing = await fetch(`${gw.base}/v1/online-orders/123`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(missing.status, 404);
      const error = (await missing.json()) as PartnerErrorBody;
      assert.is(error.code, "partner.order_not_found");
      assert.is(error.message, "Online order not found.");
      const window = await fetch(`${gw.base}/v1/reports/daily-sales?from=2026-01-02&to=2026-01-01`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.is(window.status, 400);
      assert.is(((await window.json()) as PartnerErrorBody).code, "partner.invalid_window");

      await data.stop();
      const down = await fetch(`${gw.base}/v1/items`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(down.status, 503, "the region's process is gone");
      assert.is(((await down.json()) as PartnerErrorBody).code, "server.unavailable", "not the front's own database");
      assert.is(down.headers.get("x-ratelimit-remaining"), "96");
    } finally {
      await data.stop();
      await gw?.stop();
      if (databaseUrl) await dropDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

Processes(
  "two front processes against one Redis: exactly PARTNER_RATE_LIMIT calls of an app pass in one window",
  async () => {
    const redis = await sharedRedis();
    if (!redis) skipTest("no TEST_REDIS_URL and no redis-server on PATH: the two-front test needs a Redis");
    const limit = 4;
    const root = await mkdtemp(join(tmpdir(), "partner-api-fronts-"));
    const [dirA, dirB, dirData] = [join(root, "a"), join(root, "b"), join(root, "data")];
    const controlUrl = await freshDatabaseUrl();
    const dataUrl = await freshDatabaseUrl();
    const fronts: Array<ReturnType<typeof start>> = [];
    // The fronts' clock, moved to a fresh rate window before the burst rather than waited for.
    const programs = await createProgramClock();
    let dataNode: Awaited<ReturnType<typeof startDataRole>> | undefined;
    try {
      // The control plane both fronts read: the app, the merchant, its grant and the signing key.
      if (!controlUrl) await seedEmbeddedDatabase(dirA);
      const control = await openDatabase({ url: controlUrl, dataDir: dirA, logger: silentLogger });
      await migrateControl(control.sql, silentLogger);
      const clock = createManualClock(systemClock.now());
      const fixture = await createFixture(control.sql, () => undefined, clock, { region: "in", seed: false });
      const kek = await loadKeyEncryptionKey({ configured: testKek, dataDir: dirA, logger: silentLogger });
      const keys = createSigningKeyStore({
        sql: control.sql,
        kek,
        clock: systemClock,
        logger: silentLogger,
        accessTokenTtlSeconds: 900,
      });
      await keys.ensure();
      const key = await keys.signingKey();
      await control.close();
      // Embedded: each front gets its own copy of that database; with a server they share it.
      if (!controlUrl) await cp(dirA, dirB, { recursive: true });

      // The `in` region's DataService, hosted here, which both fronts reach over gRPC with the `front` credential.
      const credentials = await writeInternalCredentials(root, "accepted-credentials");
      const frontCredential = await presentedCredentialFile(root, credentials.front);
      if (!dataUrl) await seedEmbeddedDatabase(dirData);
      dataNode = await startDataRole({
        config: loadConfig({
          HOST: "127.0.0.1",
          GRPC_PORT: "0",
          REGION_GRPC_PORT: "0",
          DATA_DIR: dirData,
          DATABASE_URL: dataUrl,
          GRPC_CREDENTIALS_FILE: credentials.file,
          SHUTDOWN_DRAIN_SECONDS: "0",
        }),
        logger: silentLogger,
        region: "in",
      });
      await seedMerchantData(dataNode.database.sql, "in", fixture.companyId, {
        storeCount: 1,
        itemCount: 3,
        salesDays: 0,
        onlineOrderCount: 0,
        now: new Date(),
      });

      for (const dir of [dirA, controlUrl ? dirA : dirB]) {
        fronts.push(
          start(["--role", "front"], {
            ...programs.env,
            HOST: "127.0.0.1",
            PORT: "0",
            AUTH_PORT: "0",
            CONSOLE_PORT: "0",
            GRPC_PORT: "0",
            DATA_DIR: dir,
            DATABASE_URL: controlUrl ?? "",
            REDIS_URL: redis.url,
            REDIS_COUNT_TIMEOUT_MS: "10000",
            TOKEN_KEY_ENCRYPTION_KEY: testKek,
            LOG_LEVEL: "info",
            PARTNER_RATE_LIMIT: String(limit),
            REGIONS: "in",
            REGION_GRPC_URL_IN: `http://127.0.0.1:${dataNode.regionGrpc.port}`,
            REGION_GRPC_CREDENTIAL_FILE: frontCredential,
          }),
        );
      }
      const urls = await Promise.all(
        fronts.map(async (front) => String((await front.line("partner API ready"))["front"])),
      );
      const config = loadConfig({ HOST: "127.0.0.1", PORT: "0" });
      const token = tokenFor(key, config, createManualClock(systemClock.now()), fixture);

      // Both fronts are started on PORT=0, so their BASE_URL (the issuer) is the same http://127.0.0.1:0/.
      // One second into a fresh minute on the fronts' clock: the burst cannot straddle two windows.
      const burstAt = await programs.toNextMinute();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          fetch(`${urls[n % 2]}/v1/items`, { headers: { authorization: `Bearer ${token}` } }).then(
            async (response) => ({
              status: response.status,
              reset: response.headers.get("x-ratelimit-reset"),
              body: (await response.json()) as Partial<ItemPage & PartnerErrorBody>,
            }),
          ),
        ),
      );
      const passed = answers.filter((answer) => answer.status === 200);
      const limited = answers.filter((answer) => answer.status === 429);
      assert.is(passed.length, limit, `statuses: ${answers.map((answer) => answer.status).join(",")}`);
      assert.is(limited.length, 10 - limit);
      assert.ok(limited.every((answer) => answer.body.code === "partner.rate_limited"));
      // One window, the one the fronts' moved clock is in (X-RateLimit-Reset: Unix seconds of its end).
      assert.equal([...new Set(answers.map((answer) => answer.reset))], [String(Math.ceil(burstAt / 60_000) * 60)]);
      assert.ok(
        passed.every((answer) => answer.body.items?.length === 3),
        "served by the in DataService over gRPC",
      );
    } finally {
      await Promise.all(fronts.map((front) => front.stop()));
      await dataNode?.stop();
      await redis.stop();
      await programs.remove();
      for (const url of [controlUrl, dataUrl]) if (url) await dropDatabase(url);
      await rm(root, { recursive: true, force: true });
    }
  },
);

Processes(
  "a TLS data role that requires the front credential: partner calls pass without a partner header crossing; other fronts get 503",
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "partner-api-tls-data-"));
    const secrets = await mkdtemp(join(tmpdir(), "partner-api-tls-secrets-"));
    const databaseUrl = await freshDatabaseUrl();
    const companyId = 710_000_000 + Math.floor(Math.random() * 1_000_000);
    // The us region's own database, seeded before its process opens it.
    if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
    const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
    await migrateRegion(database.sql, "us", silentLogger);
    const storeIds = await seedMerchantData(database.sql, "us", companyId, {
      storeCount: 2,
      itemCount: 5,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(),
    });
    await database.close();
    // TLS with a certificate of its own (the fronts trust it as their CA); the only credential it accepts is a front's.
    const certificate = selfSignedCertificate(secrets);
    const front = newServiceCredential("front", "test-front");
    const stranger = newServiceCredential("operator", "test-stranger");
    const accepted = join(secrets, "accepted-credentials");
    await writeFile(accepted, front.line + "\n", { mode: 0o600 });
    const data = start(["--role", "data", "--region", "us"], {
      HOST: "127.0.0.1",
      GRPC_PORT: "0",
      REGION_GRPC_PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
      GRPC_TLS_CERT: certificate.cert,
      GRPC_TLS_KEY: certificate.key,
      GRPC_CREDENTIALS_FILE: accepted,
      LOG_LEVEL: "debug",
    });
    const fronts: Array<Awaited<ReturnType<typeof startGatewayApp>>> = [];
    /** A front (the whole app, its own database) whose us region is the data process at `url`. */
    const frontOn = async (url: string, credential: string | undefined) => {
      const gw = await startGatewayApp({
        REGION_GRPC_URL_US: url,
        REGION_GRPC_CA: certificate.cert,
        ...(credential
          ? {
              REGION_GRPC_CREDENTIAL_FILE: await presentedCredentialFile(
                secrets,
                credential,
                `credential-${fronts.length}`,
              ),
            }
          : {}),
      });
      fronts.push(gw);
      return gw;
    };
    /** The data process's "internal call headers" and "internal call" lines of the call with `correlationId`. */
    const dataSide = async (correlationId: string | null) => {
      const call = await data.entry(
        (entry) => entry["msg"] === "internal call" && entry["correlationId"] === correlationId,
      );
      const headers = data
        .entries()
        .filter((entry) => entry["msg"] === "internal call headers" && entry["correlationId"] === correlationId);
      assert.is(headers.length, 1, "one call crossed the hop");
      return { call, names: headers[0]!["names"] as string[] };
    };
    try {
      const ready = await data.line("data service ready");
      const secureUrl = String(ready["regionGrpc"]);
      assert.match(secureUrl, /^https:\/\/127\.0\.0\.1:\d+$/, "the ready line names the TLS URL");

      // A front with the credential and the CA: a partner's bearer call answers with the data process's rows.
      const gw = await frontOn(secureUrl, front.credential);
      const fixture = await gw.fixture({ companyId, region: "us", seed: false });
      const token = gw.token(fixture);
      const items = await fetch(`${gw.base}/v1/items?limit=100`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(items.status, 200);
      const body = (await items.json()) as ItemPage;
      assert.is(body.items.length, 5, "the rows of the data process's database");
      const overBearer = await dataSide(items.headers.get("x-correlation-id"));
      assert.equal(
        {
          method: overBearer.call["method"],
          caller: overBearer.call["caller"],
          role: overBearer.call["role"],
          grpcCode: overBearer.call["grpcCode"],
        },
        { method: "/partnerapi.v1.DataService/ListItems", caller: "test-front", role: "front", grpcCode: "ok" },
      );
      assert.ok(overBearer.names.includes("x-correlation-id"), overBearer.names.join(","));
      assert.ok(
        overBearer.names.includes("x-service-credential"),
        "the access log runs before the credential is taken off",
      );
      assert.not.ok(overBearer.names.includes("authorization"), overBearer.names.join(","));
      assert.not.ok(overBearer.names.includes("x-api-key"), overBearer.names.join(","));

      // An ADSR app's production API key with an approved access request for one of the two stores.
      const appId = `app_tls_${Math.random().toString(36).slice(2, 12)}`;
      const sql = gw.app.control.sql;
      await sql`insert into control.apps (id, organization_id, name, product, state) values (${appId}, ${fixture.organizationId}, 'TLS hop ADSR app', 'ADSR', 'APPROVED')`;
      const apiKey = newApiKey(cryptoIds, "PRODUCTION");
      await sql`insert into control.api_keys (app_id, environment, name, lookup_id, key_hash) values (${appId}, 'PRODUCTION', 'tls hop', ${apiKey.lookupId}, ${apiKey.hash})`;
      const now = new Date(gw.clock.now());
      const [kept] = storeIds;
      await sql`
      insert into control.access_requests (app_id, company_id, store_ids, approved_store_ids, state, created_at, expires_at, decided_at)
      values (${appId}, ${companyId}, ${storeIds}::bigint[], ${[kept!]}::bigint[], 'APPROVED', ${now}, ${new Date(now.getTime() + 86_400_000)}, ${now})`;
      const stores = await fetch(`${gw.base}/v1/stores?companyId=${companyId}`, {
        headers: { "x-api-key": apiKey.key },
      });
      assert.is(stores.status, 200);
      assert.equal(
        ((await stores.json()) as StorePage).stores.map((store) => store.id),
        [kept],
        "the approved store of the data process's two",
      );
      const overKey = await dataSide(stores.headers.get("x-correlation-id"));
      assert.is(overKey.call["method"], "/partnerapi.v1.DataService/ListStores");
      assert.is(overKey.call["grpcCode"], "ok");
      for (const name of ["x-correlation-id", "x-service-credential", "x-partner-store-scope"])
        assert.ok(overKey.names.includes(name), `${name} in ${overKey.names.join(",")}`);
      assert.not.ok(overKey.names.includes("authorization"), overKey.names.join(","));
      assert.not.ok(overKey.names.includes("x-api-key"), overKey.names.join(","));
      // Nor do their values reach the data process's log, nor the front's credential.
      for (const secret of [token, apiKey.key, front.credential]) assert.not.ok(data.output().includes(secret));

      // Fronts the data role refuses: none, or a credential it does not accept. A clean 503, never a pass.
      for (const [credential, claimedId] of [
        [undefined, undefined],
        [stranger.credential, "test-stranger"],
      ] as const) {
        const refused = await frontOn(secureUrl, credential);
        const other = await refused.fixture({ companyId, region: "us", seed: false });
        const answer = await fetch(`${refused.base}/v1/items`, {
          headers: { authorization: `Bearer ${refused.token(other)}` },
        });
        assert.is(answer.status, 503);
        assert.is(answer.headers.get("content-type"), "application/json");
        const correlationId = answer.headers.get("x-correlation-id");
        assert.equal(await answer.json(), {
          status: "error",
          statusCode: 503,
          timestamp: new Date(refused.clock.now()).toISOString(),
          path: "/v1/items",
          message: messageFor("partner.region_unavailable"),
          code: "partner.region_unavailable",
          params: {},
          correlationId,
        });
        const refusal = await data.entry(
          (entry) =>
            entry["msg"] === "internal call refused: no valid service credential" &&
            entry["correlationId"] === correlationId,
        );
        assert.equal(
          { method: refusal["method"], claimedId: refusal["claimedId"] },
          { method: "/partnerapi.v1.DataService/ListItems", claimedId },
        );
        const frontLog = refused.logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((entry) => entry["msg"] === "region refused this front's service credential");
        assert.equal(
          {
            region: frontLog?.["region"],
            grpcCode: frontLog?.["grpcCode"],
            correlationId: frontLog?.["correlationId"],
          },
          { region: "us", grpcCode: "Unauthenticated", correlationId },
        );
      }

      // Cleartext against the TLS-only port, with the right credential: it fails, cleanly and in bounded time.
      const cleartext = await frontOn(secureUrl.replace("https:", "http:"), front.credential);
      const other = await cleartext.fixture({ companyId, region: "us", seed: false });
      const answer = await fetch(`${cleartext.base}/v1/items`, {
        headers: { authorization: `Bearer ${cleartext.token(other)}` },
      });
      assert.is(answer.status, 503, cleartext.logs.join("\n"));
      const reset = cleartext.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry["msg"] === "region hop failed: the connection was reset");
      assert.equal(
        { region: reset?.["region"], correlationId: reset?.["correlationId"] },
        { region: "us", correlationId: answer.headers.get("x-correlation-id") },
      );
    } finally {
      for (const gw of fronts) await gw.stop();
      await data.stop();
      if (databaseUrl) await dropDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
      await rm(secrets, { recursive: true, force: true });
    }
  },
);

Processes.run();
