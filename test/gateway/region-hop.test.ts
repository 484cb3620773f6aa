// The region hop on @grpc/grpc-js between two real processes: a `--role data` child serving its DataService on
// REGION_GRPC_PORT, and fronts in this process reaching it at REGION_GRPC_URL_US. What crosses (ErrorInfo, the
// correlation id both ways, validation on the hop port), what a refused credential, a stalled region and TLS become
// for the partner. Real servers on real ports; the child runs on the wall clock.
import { createServer, connect, type Socket } from "node:net";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Code, ConnectError } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import {
  DataService,
  ListItemsRequestSchema,
  ListItemsResponseSchema,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { messageFor, readServiceError } from "../../src/errors/index.js";
import { createGrpcJsCaller } from "../../src/gateway/grpc-js-caller.js";
import { deserializerOf, serializerOf } from "../../src/runtime/grpc-js-wire.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { startGatewayApp, type Fixture, type GatewayApp } from "../support/gateway.js";
import { selfSignedCertificate, writeInternalCredentials, type InternalCredentials } from "../support/internal.js";
import { startRole, type RoleProcess } from "../support/role-process.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import type { ItemPage, PartnerErrorBody } from "../support/wire.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any

interface Context {
  dir: string;
  databaseUrl: string | undefined;
  companyId: number;
  credentials: InternalCredentials;
  data: RoleProcess;
  /** The data role's region hop URL (the ready line's regionGrpc). */
  hopUrl: string;
  /** A front whose us region is the data role, presenting the `front` credential. */
  gw: GatewayApp;
  /** The partner's app and grant at that front, for the seeded merchant. */
  fixture: Fixture;
  cleanup: Array<() => Promise<void>>;
}

const Hop = suite<Context>("gateway/region-hop");

/** Writes `credential` to a file a front presents (REGION_GRPC_CREDENTIAL_FILE); the file's path. */
async function presented(dir: string, credential: string, name: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, credential + "\n", { mode: 0o600 });
  return file;
}

/** A us data role on `databaseUrl` (its own embedded one when undefined), accepting `credentialsFile`. */
function dataRole(
  dataDir: string,
  databaseUrl: string | undefined,
  credentialsFile: string,
  env: Record<string, string> = {},
): RoleProcess {
  return startRole(["--role", "data", "--region", "us"], {
    HOST: "127.0.0.1",
    GRPC_PORT: "0",
    REGION_GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? "",
    GRPC_CREDENTIALS_FILE: credentialsFile,
    SHUTDOWN_GRACE_SECONDS: "2",
    LOG_LEVEL: "debug",
    ...env,
  });
}

/** The us region's own database, seeded before the data role opens it (the embedded one has a single owner). */
async function seededRegion(dataDir: string, databaseUrl: string | undefined, companyId: number): Promise<void> {
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ url: databaseUrl, dataDir, logger: silentLogger });
  await migrateRegion(database.sql, "us", silentLogger);
  await seedMerchantData(database.sql, "us", companyId, {
    storeCount: 1,
    itemCount: 4,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(),
  });
  await database.close();
}

Hop.before(async (context) => {
  context.cleanup = [];
  context.dir = await mkdtemp(join(tmpdir(), "partner-api-hop-"));
  context.cleanup.push(() => rm(context.dir, { recursive: true, force: true }));
  context.databaseUrl = await freshDatabaseUrl();
  if (context.databaseUrl) context.cleanup.push(() => dropDatabase(context.databaseUrl!));
  context.companyId = 720_000_000 + Math.floor(Math.random() * 1_000_000);
  await seededRegion(join(context.dir, "data"), context.databaseUrl, context.companyId);
  context.credentials = await writeInternalCredentials(context.dir, "accepted-credentials");
  context.data = dataRole(join(context.dir, "data"), context.databaseUrl, context.credentials.file);
  context.cleanup.push(() => context.data.stop(20_000));
  const ready = await context.data.line("data service ready");
  context.hopUrl = String(ready["regionGrpc"]);
  context.gw = await startGatewayApp({
    REGION_GRPC_URL_US: context.hopUrl,
    REGION_GRPC_CREDENTIAL_FILE: await presented(context.dir, context.credentials.front, "front-credential"),
  });
  context.cleanup.push(() => context.gw.stop());
  context.fixture = await context.gw.fixture({ companyId: context.companyId, region: "us", seed: false });
});

Hop.after(async (context) => {
  for (const step of context.cleanup.reverse()) await step();
});

Hop("the ready line names the hop's own port, apart from the internal port", async ({ data, hopUrl }) => {
  const ready = await data.line("data service ready");
  assert.match(hopUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is.not(hopUrl, ready["grpc"]);
});

Hop(
  "a DataService error crosses the grpc-js hop as its ErrorInfo: the partner gets the exact JSON error",
  async ({ gw, data, fixture }) => {
    const missing = await fetch(`${gw.base}/v1/items/987654321`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${gw.token(fixture)}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Renamed" }),
    });
    assert.is(missing.status, 404);
    assert.is(missing.headers.get("content-type"), "application/json");
    const correlationId = missing.headers.get("x-correlation-id");
    assert.equal(await missing.json(), {
      status: "error",
      statusCode: 404,
      timestamp: new Date(gw.clock.now()).toISOString(),
      path: "/v1/items/987654321",
      message: messageFor("db.not_found"),
      code: "db.not_found",
      params: {},
      correlationId,
    });
    const line = await data.entry(
      (entry) => entry["msg"] === "internal call" && entry["correlationId"] === correlationId,
    );
    assert.equal(
      {
        method: line["method"],
        caller: line["caller"],
        role: line["role"],
        grpcCode: line["grpcCode"],
        reason: line["reason"],
      },
      {
        method: "/partnerapi.v1.DataService/UpdateItem",
        caller: "test-front",
        role: "front",
        grpcCode: "NotFound",
        reason: "db.not_found",
      },
    );
  },
);

Hop(
  "the correlation id is carried to the data role and answered by it, on success and on error",
  async ({ gw, data, hopUrl, companyId, credentials, fixture }) => {
    const requestId = "5d0c7a9e-2b1f-4c3d-9e8a-7f6b5a4c3d2e";
    const items = await fetch(`${gw.base}/v1/items`, {
      headers: { authorization: `Bearer ${gw.token(fixture)}`, "x-request-id": requestId },
    });
    assert.is(items.status, 200);
    assert.is(((await items.json()) as ItemPage).items.length, 4, "the data role's rows");
    assert.is(items.headers.get("x-correlation-id"), requestId);
    const line = await data.entry((entry) => entry["msg"] === "internal call" && entry["correlationId"] === requestId);
    assert.is(line["grpcCode"], "ok");

    // Straight at the hop port with grpc-js: the id comes back in the response metadata, and in the trailers of an error.
    const [host, port] = [new URL(hopUrl).hostname, new URL(hopUrl).port];
    const client = new grpc.Client(`${host}:${port}`, grpc.credentials.createInsecure());
    try {
      const ask = (companyIdAsked: bigint, correlationId: string) =>
        new Promise<{ headers: grpc.Metadata | undefined; error: grpc.ServiceError | null }>((resolve) => {
          const metadata = new grpc.Metadata();
          metadata.set("x-service-credential", credentials.front);
          metadata.set("x-correlation-id", correlationId);
          let headers: grpc.Metadata | undefined;
          const call = client.makeUnaryRequest(
            `/${DataService.typeName}/ListItems`,
            serializerOf(ListItemsRequestSchema),
            deserializerOf(ListItemsResponseSchema),
            { companyId: companyIdAsked, limit: 2 },
            metadata,
            (error) => resolve({ headers, error }),
          );
          call.on("metadata", (received: grpc.Metadata) => (headers = received));
        });
      const ok = await ask(BigInt(companyId), "hop-corr-ok");
      assert.is(ok.error, null);
      assert.equal(ok.headers?.get("x-correlation-id"), ["hop-corr-ok"]);
      const refused = await ask(0n, "hop-corr-error");
      assert.is(refused.error?.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(refused.error?.metadata.get("x-correlation-id"), ["hop-corr-error"]);
    } finally {
      client.close();
    }
  },
);

Hop(
  "the hop port validates as the internal port does: a refused request is INVALID_ARGUMENT request.invalid_fields with its ErrorInfo",
  async ({ hopUrl, companyId, credentials }) => {
    const caller = createGrpcJsCaller(hopUrl, { credential: credentials.front, timeoutMs: 30_000 });
    try {
      const error = await caller
        .call({ method: DataService.method.listItems, input: { companyId: BigInt(companyId), limit: 1000 } })
        .then(
          () => undefined,
          (failure: unknown) => failure as ConnectError,
        );
      assert.instance(error, ConnectError);
      assert.is(error!.code, Code.InvalidArgument);
      const [info] = error!.findDetails(ErrorInfoSchema);
      assert.is(info?.reason, "request.invalid_fields");
      assert.equal(readServiceError(error), {
        code: "request.invalid_fields",
        params: { fields: "limit" },
        details: [{ field: "limit", rule: "must be at most 100" }],
      });
    } finally {
      caller.close();
    }
  },
);

Hop(
  "a credential the hop refuses (a staff role it does not admit, an unknown one): 503 partner.region_unavailable, refusal logged by the data role",
  async ({ dir, hopUrl, companyId, credentials, data }) => {
    const cases = [
      {
        credential: credentials.staff,
        refusal: "internal call refused: role not admitted",
        grpcCode: "PermissionDenied",
      },
      {
        credential: `svc_test-front_${"A".repeat(43)}`,
        refusal: "internal call refused: no valid service credential",
        grpcCode: "Unauthenticated",
      },
    ];
    for (const [index, { credential, refusal, grpcCode }] of cases.entries()) {
      const front = await startGatewayApp({
        REGION_GRPC_URL_US: hopUrl,
        REGION_GRPC_CREDENTIAL_FILE: await presented(dir, credential, `refused-${index}`),
      });
      try {
        const fixture = await front.fixture({ companyId, region: "us", seed: false });
        const answer = await fetch(`${front.base}/v1/items`, {
          headers: { authorization: `Bearer ${front.token(fixture)}` },
        });
        assert.is(answer.status, 503);
        const correlationId = answer.headers.get("x-correlation-id");
        assert.equal(await answer.json(), {
          status: "error",
          statusCode: 503,
          timestamp: new Date(front.clock.now()).toISOString(),
          path: "/v1/items",
          message: messageFor("partner.region_unavailable"),
          code: "partner.region_unavailable",
          params: {},
          correlationId,
        });
        const refused = await data.entry(
          (entry) => entry["msg"] === refusal && entry["correlationId"] === correlationId,
        );
        assert.is(refused["method"], "/partnerapi.v1.DataService/ListItems");
        const frontLine = front.logs
          .map((text) => JSON.parse(text) as Record<string, unknown>)
          .find((entry) => entry["msg"] === "region refused this front's service credential");
        assert.equal(
          {
            region: frontLine?.["region"],
            grpcCode: frontLine?.["grpcCode"],
            correlationId: frontLine?.["correlationId"],
          },
          { region: "us", grpcCode, correlationId },
        );
        assert.not.ok(data.output().includes(credential), "the credential never reaches the data role's log");
      } finally {
        await front.stop();
      }
    }
  },
);

Hop(
  "a region that stops answering: the hop's deadline (grpc-timeout) answers 504 server.timeout",
  async ({ hopUrl, dir, companyId, credentials }) => {
    // A network path to the data role that can freeze: bytes stop flowing both ways, the connection stays open.
    const target = new URL(hopUrl);
    let frozen = false;
    const sockets = new Set<Socket>();
    const path = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => {});
        socket.once("close", () => sockets.delete(socket));
      }
      client.on("data", (chunk) => frozen || upstream.write(chunk));
      upstream.on("data", (chunk) => frozen || client.write(chunk));
    });
    await new Promise<void>((resolve) => path.listen(0, "127.0.0.1", resolve));
    const front = await startGatewayApp({
      REGION_GRPC_URL_US: `http://127.0.0.1:${(path.address() as { port: number }).port}`,
      REGION_GRPC_CREDENTIAL_FILE: await presented(dir, credentials.front, "stalled-front"),
    });
    try {
      const fixture = await front.fixture({ companyId, region: "us", seed: false });
      const first = await fetch(`${front.base}/v1/items`, {
        headers: { authorization: `Bearer ${front.token(fixture)}` },
      });
      assert.is(first.status, 200, "the path works until it freezes");
      frozen = true;
      const stalled = await fetch(`${front.base}/v1/items`, {
        headers: { authorization: `Bearer ${front.token(fixture)}` },
      });
      assert.is(stalled.status, 504);
      const body = (await stalled.json()) as PartnerErrorBody;
      assert.equal(
        { code: body.code, message: body.message },
        { code: "server.timeout", message: messageFor("server.timeout") },
      );
    } finally {
      await front.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => path.close(() => resolve()));
    }
  },
);

Hop(
  "TLS: a data role with GRPC_TLS_CERT/KEY serves the hop over TLS only; a front trusting REGION_GRPC_CA passes, one without it gets 503",
  async ({ dir, credentials }) => {
    const tlsDir = join(dir, "tls");
    const databaseUrl = await freshDatabaseUrl();
    const companyId = 730_000_000 + Math.floor(Math.random() * 1_000_000);
    await seededRegion(join(tlsDir, "data"), databaseUrl, companyId);
    const certificate = selfSignedCertificate(dir);
    const data = dataRole(join(tlsDir, "data"), databaseUrl, credentials.file, {
      GRPC_TLS_CERT: certificate.cert,
      GRPC_TLS_KEY: certificate.key,
    });
    const fronts: GatewayApp[] = [];
    try {
      const ready = await data.line("data service ready");
      const secureUrl = String(ready["regionGrpc"]);
      assert.match(secureUrl, /^https:\/\/127\.0\.0\.1:\d+$/, "the ready line names the TLS URL");
      const credentialFile = await presented(dir, credentials.front, "tls-front");

      const trusting = await startGatewayApp({
        REGION_GRPC_URL_US: secureUrl,
        REGION_GRPC_CA: certificate.cert,
        REGION_GRPC_CREDENTIAL_FILE: credentialFile,
      });
      fronts.push(trusting);
      const fixture = await trusting.fixture({ companyId, region: "us", seed: false });
      const items = await fetch(`${trusting.base}/v1/items`, {
        headers: { authorization: `Bearer ${trusting.token(fixture)}` },
      });
      assert.is(items.status, 200);
      assert.is(((await items.json()) as ItemPage).items.length, 4);

      // The caller alone, with the CA bytes: the same rows over TLS.
      const caller = createGrpcJsCaller(secureUrl, {
        credential: credentials.front,
        ca: await readFile(certificate.cert),
        timeoutMs: 30_000,
      });
      try {
        const direct = await caller.call({
          method: DataService.method.listItems,
          input: { companyId: BigInt(companyId), limit: 2 },
        });
        assert.is(direct.items.length, 2);
      } finally {
        caller.close();
      }

      const untrusting = await startGatewayApp({
        REGION_GRPC_URL_US: secureUrl,
        REGION_GRPC_CREDENTIAL_FILE: credentialFile,
      });
      fronts.push(untrusting);
      const other = await untrusting.fixture({ companyId, region: "us", seed: false });
      const refused = await fetch(`${untrusting.base}/v1/items`, {
        headers: { authorization: `Bearer ${untrusting.token(other)}` },
      });
      assert.is(refused.status, 503);
      assert.is(((await refused.json()) as PartnerErrorBody).code, "server.unavailable");
    } finally {
      for (const front of fronts) await front.stop();
      await data.stop(20_000);
      if (databaseUrl) await dropDatabase(databaseUrl);
    }
  },
);

Hop.run();
