// Issue 17 end to end: a front (all roles, with region `us` remote) and a `us` data role, both real servers on real
// ports. Known traffic, then a scrape of each process's GET /metrics asserting exact increments; an incoming
// X-Request-Id and traceparent reused as correlation and trace ids, answered, carried over the region hop and found
// on the log lines of both processes.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDataRole, type RunningDataRole } from "../../src/app.js";
import { loadConfig } from "../../src/config/config.js";
import { createLogger } from "../../src/runtime/logger.js";
import { startGatewayApp, type Fixture, type GatewayApp } from "../support/gateway.js";
import { writeInternalCredentials } from "../support/internal.js";
import { sample, scrape } from "../support/metrics.js";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";

interface Context {
  gw: GatewayApp;
  data: RunningDataRole;
  dataLogs: Array<Record<string, unknown>>;
  fixture: Fixture;
  cleanup: () => Promise<void>;
}
const Observability = suite<Context>("gateway/observability");

Observability.before(async (context) => {
  const dir = await mkdtemp(join(tmpdir(), "pa-observability-"));
  const accepted = await writeInternalCredentials(dir, "accepted-credentials");
  const presented = join(dir, "front-credential");
  await writeFile(presented, accepted.front + "\n", { mode: 0o600 });
  const dataUrl = await freshDatabaseUrl();
  // Embedded: a copy of the migrated template, no initdb of its own.
  if (!dataUrl) await seedEmbeddedDatabase(join(dir, "data"));
  context.dataLogs = [];
  context.data = await startDataRole({
    config: loadConfig({
      HOST: "127.0.0.1",
      GRPC_PORT: "0",
      REGION_GRPC_PORT: "0",
      DATA_DIR: join(dir, "data"),
      DATABASE_URL: dataUrl,
      GRPC_CREDENTIALS_FILE: accepted.file,
      SHUTDOWN_DRAIN_SECONDS: "0",
    }),
    logger: createLogger({
      level: "debug",
      write: (line) => context.dataLogs.push(JSON.parse(line) as Record<string, unknown>),
    }),
    region: "us",
  });
  context.gw = await startGatewayApp({
    PARTNER_RATE_LIMIT: "2",
    REGION_GRPC_URL_US: `http://127.0.0.1:${context.data.regionGrpc.port}`,
    REGION_GRPC_CREDENTIAL_FILE: presented,
  });
  context.fixture = await context.gw.fixture({ region: "us", seed: false });
  context.cleanup = async () => {
    await context.gw.stop();
    await context.data.stop();
    if (dataUrl) await dropDatabase(dataUrl);
    await rm(dir, { recursive: true, force: true });
  };
});

Observability.after(async (context) => context.cleanup());

const requestId = "9A1B2C3D-4E5F-4A6B-8C7D-0E1F2A3B4C5D";
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";

Observability(
  "known traffic gives exact counter increments, by route template and status, on the front and the data role",
  async ({ gw, data, fixture }) => {
    const before = await scrape(gw.app.grpc.port);
    const dataBefore = await scrape(data.grpc.port);
    const token = gw.token(fixture);
    const stores = (headers: Record<string, string> = {}) =>
      fetch(`${gw.base}/v1/stores`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    const statuses = [
      (await fetch(`${gw.base}/healthz`)).status,
      (await stores()).status,
      (await stores()).status,
      (await stores()).status,
      (await fetch(`${gw.base}/v1/stores`)).status,
      (await fetch(`${gw.base}/v1/no-such-route/${fixture.companyId}`)).status,
    ];
    // The region's database has no stores for the merchant: an empty list, over the hop.
    assert.equal(statuses, [200, 200, 200, 429, 401, 404]);

    const after = await scrape(gw.app.grpc.port);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    const request = (route: string, status: number, family = "partner") =>
      delta("partnerapi_http_requests_total", { family, route, method: "GET", status: String(status) });
    assert.is(request("/v1/stores", 200), 2);
    assert.is(request("/v1/stores", 429), 1);
    assert.is(request("/v1/stores", 401), 1);
    assert.is(request("unmatched", 404), 1);
    assert.is(request("/healthz", 200, "probe"), 1);
    assert.is(
      delta("partnerapi_http_request_duration_seconds_count", {
        family: "partner",
        route: "/v1/stores",
        method: "GET",
        status: "429",
      }),
      1,
    );
    assert.is(delta("partnerapi_rate_limit_decisions_total", { decision: "allowed" }), 2);
    assert.is(delta("partnerapi_rate_limit_decisions_total", { decision: "limited" }), 1);
    assert.is(delta("partnerapi_region_hop_calls_total", { region: "us", grpc_code: "OK" }), 2);
    assert.is(delta("partnerapi_region_hop_duration_seconds_count", { region: "us" }), 2);
    assert.is(sample(after, "partnerapi_database_up", { database: "control" }), 1);
    assert.is(sample(after, "partnerapi_redis_up"), 1);
    assert.ok(sample(after, "process_resident_memory_bytes")! > 0);
    // Label values are bounded: never a raw path or an id.
    // (In label values: a sample's value, e.g. a byte count, may contain the same digits.)
    const labelValues = [...after.matchAll(/="([^"]*)"/g)].map((match) => match[1]!);
    assert.ok(labelValues.length > 0);
    assert.not.ok(
      labelValues.some((value) => value.includes("no-such-route")),
      "no raw path in a label",
    );
    assert.not.ok(
      labelValues.some((value) => value.includes(String(fixture.companyId))),
      "no company id in a label",
    );
    assert.not.match(after, "no-such-route");

    const dataAfter = await scrape(data.grpc.port);
    const dataDelta = (name: string, labels: Record<string, string>) =>
      (sample(dataAfter, name, labels) ?? 0) - (sample(dataBefore, name, labels) ?? 0);
    assert.is(
      dataDelta("partnerapi_internal_calls_total", {
        method: "/partnerapi.v1.DataService/ListStores",
        grpc_code: "OK",
      }),
      2,
    );
    assert.is(sample(dataAfter, "partnerapi_database_up", { database: "region_us" }), 1);
  },
);

Observability(
  "X-Request-Id and traceparent are reused, answered, carried over the hop and on every line of both processes",
  async ({ gw, data, dataLogs, fixture }) => {
    gw.clock.advance(60_000); // a fresh rate window
    gw.logs.length = 0;
    dataLogs.length = 0;
    const response = await fetch(`${gw.base}/v1/stores`, {
      headers: {
        authorization: `Bearer ${gw.token(fixture)}`,
        "x-request-id": requestId,
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      },
    });
    const correlationId = requestId.toLowerCase();
    assert.is(response.headers.get("x-correlation-id"), correlationId);
    const frontLines = gw.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const line = frontLines.find((entry) => entry["msg"] === "request");
    assert.equal(
      {
        correlationId: line?.["correlationId"],
        traceId: line?.["traceId"],
        route: line?.["route"],
        family: line?.["family"],
        status: line?.["status"],
        appId: line?.["appId"],
        companyId: line?.["companyId"],
      },
      {
        correlationId,
        traceId,
        route: "/v1/stores",
        family: "partner",
        status: response.status,
        appId: fixture.appId,
        companyId: fixture.companyId,
      },
    );
    assert.is(typeof line?.["ms"], "number");
    const hop = dataLogs.find((entry) => entry["msg"] === "internal call");
    assert.equal(
      { correlationId: hop?.["correlationId"], traceId: hop?.["traceId"], method: hop?.["method"] },
      { correlationId, traceId, method: "/partnerapi.v1.DataService/ListStores" },
    );
    // Every line the call caused, in either process, carries both ids.
    for (const entry of [...frontLines, ...dataLogs])
      assert.equal([entry["msg"], entry["correlationId"], entry["traceId"]], [entry["msg"], correlationId, traceId]);
    assert.ok(data.grpc.port > 0);
  },
);

Observability(
  "a malformed X-Request-Id is not reused: a new UUID, with a traceparent's trace id when one is valid",
  async ({ gw }) => {
    const response = await fetch(`${gw.base}/healthz`, {
      headers: { "x-request-id": "chosen by the client", traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    assert.is(response.headers.get("x-correlation-id"), "4bf92f35-77b3-4da6-a3ce-929d0e0e4736");
    const bare = await fetch(`${gw.base}/healthz`, { headers: { "x-request-id": "chosen by the client" } });
    assert.match(
      bare.headers.get("x-correlation-id")!,
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  },
);

Observability.run();
