// Traces across processes (issue 41): a front in this process with tracing on, and a `--role data` child exporting
// to the same OTLP/HTTP receiver on a real port (test/support/otlp-receiver.ts). A partner call is one trace: the
// front's server span, the service call, the hop's client span and the data role's server span, each the child of
// the one before; the log lines of both processes carry its trace and span ids; a caller's traceparent is honoured,
// sampled or not. The data role exports in the default encoding, binary protobuf (http/protobuf), the front in JSON
// (http/json): one trace arrives in both, and the receiver reads them alike.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as assert from "uvu/assert";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { roleAttribute, startTracing, type Tracing } from "../../src/runtime/tracing.js";
import { migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { startGatewayApp, type Fixture, type GatewayApp } from "../support/gateway.js";
import { writeInternalCredentials } from "../support/internal.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { startRole, type RoleProcess } from "../support/role-process.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { suite } from "../support/suite.js";

interface Context {
  receiver: OtlpReceiver;
  tracing: Tracing;
  data: RoleProcess;
  gw: GatewayApp;
  fixture: Fixture;
  cleanup: Array<() => Promise<void>>;
}

const Traces = suite<Context>("gateway/traces");

const server = 2;
const client = 3;
const internal = 1;

Traces.before(async (context) => {
  context.cleanup = [];
  const dir = await mkdtemp(join(tmpdir(), "partner-api-traces-"));
  context.cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const databaseUrl = await freshDatabaseUrl();
  if (databaseUrl) context.cleanup.push(() => dropDatabase(databaseUrl));
  const companyId = 730_000_000 + Math.floor(Math.random() * 1_000_000);
  const dataDir = join(dir, "data");
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
  await migrateRegion(database.sql, "us", silentLogger);
  await seedMerchantData(database.sql, "us", companyId, {
    storeCount: 1,
    itemCount: 3,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(),
  });
  await database.close();

  context.receiver = await startOtlpReceiver();
  context.cleanup.push(() => context.receiver.close());
  const credentials = await writeInternalCredentials(dir, "accepted-credentials");
  context.data = startRole(["--role", "data", "--region", "us"], {
    HOST: "127.0.0.1",
    GRPC_PORT: "0",
    REGION_GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? "",
    GRPC_CREDENTIALS_FILE: credentials.file,
    SHUTDOWN_GRACE_SECONDS: "2",
    OTEL_EXPORTER_OTLP_ENDPOINT: context.receiver.url,
    // Exported within a tenth of a second rather than the default five (the BatchSpanProcessor's variable).
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
  context.cleanup.push(() => context.data.stop(20_000));
  const ready = await context.data.line("data service ready");

  // This process is the front: its own tracing, to the same receiver, as main.ts starts it for `--role front`.
  context.tracing = startTracing(
    { OTEL_EXPORTER_OTLP_ENDPOINT: context.receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    { [roleAttribute]: "front" },
  )!;
  context.cleanup.push(() => context.tracing.shutdown());
  const frontCredential = join(dir, "front-credential");
  await writeFile(frontCredential, `${credentials.front}\n`, { mode: 0o600 });
  context.gw = await startGatewayApp({
    REGION_GRPC_URL_US: String(ready["regionGrpc"]),
    REGION_GRPC_CREDENTIAL_FILE: frontCredential,
  });
  context.cleanup.push(() => context.gw.stop());
  context.fixture = await context.gw.fixture({ companyId, region: "us", seed: false });
});

Traces.after(async (context) => {
  for (const step of context.cleanup.reverse()) await step();
});

/** The spans of `traceId` once the data role's server span is among them (it is exported last). */
async function traceOf(context: Context, traceId: string): Promise<ReceivedSpan[]> {
  await context.tracing.flush();
  await context.receiver.waitFor((all) =>
    all.some((span) => span.traceId === traceId && span.resource[roleAttribute] === "data"),
  );
  await context.tracing.flush();
  return context.receiver.spans().filter((span) => span.traceId === traceId);
}

const logLines = (gw: GatewayApp) => gw.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

Traces(
  "a partner call is one trace from the front to the data role, each span the child of the one before",
  async (context) => {
    const { gw, fixture, data } = context;
    const response = await fetch(`${gw.base}/v1/items`, { headers: { authorization: `Bearer ${gw.token(fixture)}` } });
    assert.is(response.status, 200);
    // The trace's id is the correlation id the partner gets, in hex.
    const traceId = response.headers.get("x-correlation-id")!.replaceAll("-", "");
    const spans = await traceOf(context, traceId);
    assert.is(spans.length, 4, JSON.stringify(spans, null, 1));
    const [request, call, hop, served] = [
      spans.find((span) => span.kind === server && span.resource[roleAttribute] === "front")!,
      spans.find((span) => span.kind === internal)!,
      spans.find((span) => span.kind === client)!,
      spans.find((span) => span.kind === server && span.resource[roleAttribute] === "data")!,
    ];
    assert.equal(
      { name: request.name, parent: request.parentSpanId, attributes: request.attributes },
      {
        name: "GET /v1/items",
        parent: "",
        attributes: {
          "http.request.method": "GET",
          "url.path": "/v1/items",
          "url.scheme": "http",
          "http.route": "/v1/items",
          "http.response.status_code": 200,
        },
      },
    );
    assert.is(request.resource["service.name"], "partner-api");
    assert.equal(
      { name: call.name, parent: call.parentSpanId, attributes: call.attributes },
      {
        name: "partnerapi.v1.DataService/ListItems",
        parent: request.spanId,
        attributes: { "rpc.service": "partnerapi.v1.DataService", "rpc.method": "ListItems" },
      },
    );
    assert.equal(
      { name: hop.name, parent: hop.parentSpanId, attributes: hop.attributes },
      {
        name: "partnerapi.v1.DataService/ListItems",
        parent: call.spanId,
        attributes: {
          "rpc.service": "partnerapi.v1.DataService",
          "rpc.method": "ListItems",
          "rpc.system": "grpc",
          "rpc.grpc.status_code": 0,
        },
      },
    );
    assert.equal(
      { name: served.name, parent: served.parentSpanId, attributes: served.attributes },
      {
        name: "partnerapi.v1.DataService/ListItems",
        parent: hop.spanId,
        attributes: {
          "rpc.service": "partnerapi.v1.DataService",
          "rpc.method": "ListItems",
          "rpc.system": "grpc",
          "rpc.grpc.status_code": 0,
        },
      },
    );
    assert.is(served.resource["partner_api.region"], "us");
    // The data role's spans came as binary protobuf (its default), the front's as JSON (named).
    assert.equal(
      [request, call, hop, served].map((span) => span.encoding),
      ["json", "json", "json", "protobuf"],
    );
    assert.equal(context.receiver.problems(), []);

    // Logs and traces join: the front's request line and the data role's access line carry the ids of their spans.
    const requestLine = logLines(gw).find((line) => line["msg"] === "request" && line["traceId"] === traceId);
    assert.equal([requestLine?.["spanId"], requestLine?.["route"]], [request.spanId, "/v1/items"]);
    const accessLine = await data.entry((line) => line["msg"] === "internal call" && line["traceId"] === traceId);
    assert.is(accessLine["spanId"], served.spanId);
  },
);

Traces("a caller's sampled traceparent is honoured: its trace, its span as the front's parent", async (context) => {
  const { gw, fixture } = context;
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const response = await fetch(`${gw.base}/v1/items`, {
    headers: { authorization: `Bearer ${gw.token(fixture)}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  assert.is(response.status, 200);
  const spans = await traceOf(context, traceId);
  assert.is(spans.length, 4);
  const request = spans.find((span) => span.name === "GET /v1/items")!;
  assert.is(request.parentSpanId, "00f067aa0ba902b7");
});

Traces(
  "a caller's unsampled traceparent is honoured: nothing of its trace is exported, by either process",
  async (context) => {
    const { gw, fixture } = context;
    const unsampled = "5bf92f3577b34da6a3ce929d0e0e4737";
    const first = await fetch(`${gw.base}/v1/items`, {
      headers: { authorization: `Bearer ${gw.token(fixture)}`, traceparent: `00-${unsampled}-00f067aa0ba902b8-00` },
    });
    assert.is(first.status, 200);
    // A sampled call after it: once its data-role span is in, the data role's earlier spans would be too.
    const second = await fetch(`${gw.base}/v1/items`, { headers: { authorization: `Bearer ${gw.token(fixture)}` } });
    assert.is(second.status, 200);
    const sampled = second.headers.get("x-correlation-id")!.replaceAll("-", "");
    assert.is((await traceOf(context, sampled)).length, 4);
    assert.equal(
      context.receiver.spans().filter((span) => span.traceId === unsampled),
      [],
    );
    // The log lines still carry the caller's trace id, and the (unexported) span's id.
    const line = logLines(gw).find((entry) => entry["msg"] === "request" && entry["traceId"] === unsampled);
    assert.match(String(line?.["spanId"]), /^[0-9a-f]{16}$/);
  },
);

Traces.run();
