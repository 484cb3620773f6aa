// The request log's recorder against a real control database (embedded PGlite, or TEST_DATABASE_URL's server): a
// batch is written in one flush, trimmed to the newest calls per app and environment; past its buffer the log drops
// calls while the per-minute usage and the last-call times stay exact; a success's body is never stored.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createRequestLogQueries, createRequestRecorder, type PartnerCallRecord } from "../../src/request-log/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateControl } from "../../src/storage/migrate.js";
import { openDatabase, type Database } from "../../src/storage/postgres.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";

const Recorder = suite("request-log/recorder");
const minute = 60_000;
const clock = createManualClock(Math.ceil(Date.now() / minute) * minute + 10_000);
let database: Database;
let dataDir: string;
let url: string | undefined;

Recorder.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "pa-request-log-"));
  url = await freshDatabaseUrl();
  // Embedded: a copy of the migrated template, no initdb of its own.
  if (!url) await seedEmbeddedDatabase(dataDir);
  database = await openDatabase({ url, dataDir, logger: silentLogger });
  await migrateControl(database.sql, silentLogger);
});
Recorder.after(async () => {
  await database.close();
  if (url) await dropDatabase(url);
  await rm(dataDir, { recursive: true, force: true });
});

/** A recorder on the test database whose timer never fires in a test: each test flushes it itself. */
const manualRecorder = (limits: { keepPerApp?: number; maxBuffered?: number }) =>
  createRequestRecorder({ sql: database.sql, clock, logger: silentLogger, flushIntervalMs: 3_600_000, ...limits });

const call = (appId: string, index: number, status = 200): PartnerCallRecord => ({
  appId,
  environment: "SANDBOX",
  at: clock.now() + index,
  method: "GET",
  path: `/v1/items/${index}`,
  status,
  ...(status === 200
    ? {}
    : {
        errorCode: "partner.rate_limited",
        errorBody: { status: "error", statusCode: status, code: "partner.rate_limited" },
      }),
  companyId: 42,
  correlationId: `c-${index}`,
  latencyMs: 1.5,
});

Recorder(
  "one flush writes the batch; each app and environment keeps its newest calls; refusals keep their body, successes none",
  async () => {
    const recorder = manualRecorder({ keepPerApp: 3 });
    for (let index = 0; index < 5; index++) recorder.record(call("app_a", index, index === 4 ? 429 : 200));
    recorder.record(call("app_b", 9));
    await recorder.close();
    const queries = createRequestLogQueries(database.sql);
    const kept = await queries.list({ appId: "app_a", environment: "SANDBOX", limit: 100 });
    assert.equal(
      kept.map((row) => row.path),
      ["/v1/items/4", "/v1/items/3", "/v1/items/2"],
    );
    assert.equal(
      (await queries.list({ appId: "app_b", environment: "SANDBOX", limit: 100 })).map((row) => row.path),
      ["/v1/items/9"],
    );
    assert.is((await queries.list({ appId: "app_a", environment: "PRODUCTION", limit: 100 })).length, 0);
    const refused = await queries.get("app_a", kept[0]!.id);
    assert.equal(JSON.parse(refused!.error_body!), { status: "error", statusCode: 429, code: "partner.rate_limited" });
    assert.is((await queries.get("app_a", kept[1]!.id))!.error_body, null);
    assert.equal(
      [...(await queries.usage("app_a", "SANDBOX", new Date(clock.now() - minute)))],
      [{ minute: new Date(clock.now() - (clock.now() % minute)), requests: 5, limited: 1 }],
    );
    const lastCalls = [...(await queries.lastCalls(42))].map(([app, at]) => [app, at.toISOString()]).sort();
    assert.equal(lastCalls, [
      ["app_a", new Date(clock.now() + 4).toISOString()],
      ["app_b", new Date(clock.now() + 9).toISOString()],
    ]);
  },
);

Recorder(
  "a later flush trims from where the last one stopped; a call left below that point goes at the ten-minute full trim",
  async () => {
    const recorder = manualRecorder({ keepPerApp: 3 });
    const queries = createRequestLogQueries(database.sql);
    const paths = async () =>
      (await queries.list({ appId: "app_t", environment: "SANDBOX", limit: 100 })).map((row) => row.path);
    for (let index = 0; index < 5; index++) recorder.record(call("app_t", index));
    await recorder.flush();
    assert.equal(await paths(), ["/v1/items/4", "/v1/items/3", "/v1/items/2"]);
    // Another process's call, committed after this trim with an id below where it stopped (a free one: a batch's
    // calls that its own trim would delete are never inserted, so they leave no gap of ids to take).
    const [{ oldest }] = await database.sql<[{ oldest: number }]>`
      select min(id) as oldest from control.partner_requests`;
    await database.sql`
      insert into control.partner_requests (id, app_id, environment, at, method, path, status, correlation_id, latency_ms)
      overriding system value values (${oldest - 1}, 'app_t', 'SANDBOX', now(), 'GET', '/stray', 200, 'c-stray', 1)`;
    for (let index = 5; index < 7; index++) recorder.record(call("app_t", index));
    await recorder.flush();
    assert.equal(await paths(), ["/v1/items/6", "/v1/items/5", "/v1/items/4", "/stray"]);
    clock.advance(10 * minute);
    recorder.record(call("app_t", 7));
    await recorder.close();
    assert.equal(await paths(), ["/v1/items/7", "/v1/items/6", "/v1/items/5"]);
  },
);

Recorder(
  "past its buffer the log drops calls, but the usage counts every call; a later flush adds to the same minute",
  async () => {
    const recorder = manualRecorder({ maxBuffered: 2 });
    for (let index = 0; index < 6; index++) recorder.record(call("app_c", index, index % 2 === 0 ? 200 : 429));
    await recorder.flush();
    recorder.record(call("app_c", 7));
    await recorder.close();
    const queries = createRequestLogQueries(database.sql);
    assert.equal(
      (await queries.list({ appId: "app_c", environment: "SANDBOX", limit: 100 })).map((row) => row.path),
      ["/v1/items/7", "/v1/items/1", "/v1/items/0"],
    );
    assert.equal(
      (await queries.usage("app_c", "SANDBOX", new Date(clock.now() - minute))).map((row) => [
        row.requests,
        row.limited,
      ]),
      [[7, 3]],
    );
    assert.equal(
      (await queries.list({ appId: "app_c", environment: "SANDBOX", status: "429", limit: 100 })).map(
        (row) => row.path,
      ),
      ["/v1/items/1"],
    );
  },
);

Recorder(
  "calls outside the usage (an app's token calls) are logged and trimmed like any, and counted in no minute",
  async () => {
    const recorder = manualRecorder({ keepPerApp: 2 });
    // An app whose only calls in the batch are token calls: its pair is trimmed though no usage minute names it.
    for (let index = 0; index < 4; index++)
      recorder.record({
        ...call("app_token", index, 401),
        path: "/v1/oauth/token",
        method: "POST",
        countsInUsage: false,
      });
    await recorder.close();
    const queries = createRequestLogQueries(database.sql);
    const kept = await queries.list({ appId: "app_token", environment: "SANDBOX", limit: 100 });
    assert.equal(
      kept.map((row) => row.correlation_id),
      ["c-3", "c-2"],
    );
    assert.equal([...(await queries.usage("app_token", "SANDBOX", new Date(clock.now() - minute)))], []);
  },
);

Recorder(
  "the list's filters: a time range, a path's start (its % and _ literal), a method, a correlation id's start",
  async () => {
    const recorder = manualRecorder({});
    const at = clock.now();
    recorder.record({ ...call("app_filter", 0), path: "/v1/items", correlationId: "abc-1" });
    recorder.record({ ...call("app_filter", 60_000), path: "/v1/items_x", correlationId: "abd-2" });
    recorder.record({ ...call("app_filter", 120_000), path: "/v1/oauth/token", method: "POST", correlationId: "x%-3" });
    await recorder.close();
    const queries = createRequestLogQueries(database.sql);
    const paths = async (filter: Partial<Parameters<typeof queries.list>[0]>) =>
      (await queries.list({ appId: "app_filter", environment: "SANDBOX", limit: 100, ...filter })).map(
        (row) => row.path,
      );
    assert.equal(await paths({}), ["/v1/oauth/token", "/v1/items_x", "/v1/items"]);
    assert.equal(await paths({ fromMs: at + 60_000 }), ["/v1/oauth/token", "/v1/items_x"]);
    assert.equal(await paths({ toMs: at + 60_000 }), ["/v1/items"]);
    assert.equal(await paths({ fromMs: at + 1, toMs: at + 120_000 }), ["/v1/items_x"]);
    assert.equal(await paths({ pathPrefix: "/v1/items" }), ["/v1/items_x", "/v1/items"]);
    assert.equal(await paths({ pathPrefix: "/v1/items_" }), ["/v1/items_x"]);
    assert.equal(await paths({ pathPrefix: "/v1/item%" }), []);
    assert.equal(await paths({ method: "POST" }), ["/v1/oauth/token"]);
    assert.equal(await paths({ correlationId: "ab" }), ["/v1/items_x", "/v1/items"]);
    assert.equal(await paths({ correlationId: "x%" }), ["/v1/oauth/token"]);
    assert.equal(await paths({ correlationId: "%" }), []);
    assert.equal(await paths({ method: "GET", correlationId: "abc" }), ["/v1/items"]);
  },
);

Recorder.run();
