// `npm run bench:hop`: the one hot remote hop, front -> a region's DataService in another process, measured both ways
// in the same run (DESIGN.md): the same DataService implementation served by connect-node (our internal port) and by
// a @grpc/grpc-js Server through protobuf-es serializers; each called with connect-node's gRPC transport
// (createRemoteCaller) and with a grpc-js client. Unary ListItems(limit 10). Then the production hop: a
// `--role data` process started as `npm start` does, called through createRegionCaller as a front calls it, on
// its region hop port (grpc-js server, grpc-js caller: today's hop) and on its internal port (connect-node both
// ends: the hop before), with the ratio of the two.
//
// Knobs: HOP_CALLS (default 3000 per case), HOP_CONCURRENCY (default 10), DATABASE_URL (default embedded PGlite).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { createContextValues, type HandlerContext, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { DataService, ListItemsRequestSchema, ListItemsResponseSchema } from "../gen/partnerapi/v1/data_service_pb.js";
import { loadConfig } from "../src/config/config.js";
import { seedMerchantData } from "../src/data/sandbox-data.js";
import { createGrpcJsCaller, type GrpcJsCaller } from "../src/gateway/grpc-js-caller.js";
import { createRegionCaller, createRemoteCaller } from "../src/gateway/regional-data.js";
import { createInternalServer } from "../src/internal/internal-server.js";
import { loadServiceCredentials, newServiceCredential } from "../src/internal/service-credentials.js";
import { systemClock } from "../src/runtime/clock.js";
import { cryptoIds } from "../src/runtime/ids.js";
import { silentLogger } from "../src/runtime/logger.js";
import { createDataService } from "../src/data/service.js";
import { migrateRegion } from "../src/storage/migrate.js";
import { openDatabase } from "../src/storage/postgres.js";
import { startService, type RunningService } from "./support/service.js";

const calls = Number(process.env["HOP_CALLS"] ?? 3000);
const concurrency = Number(process.env["HOP_CONCURRENCY"] ?? 10);
const companyId = 123_456_789;

/** grpc-js method definitions serializing with protobuf-es. */
function grpcJsDefinition(): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of DataService.methods) {
    if (method.methodKind !== "unary") continue;
    const serialize = (schema: DescMessage) => (value: object) =>
      Buffer.from(toBinary(schema, create(schema, value as never)));
    const deserialize = (schema: DescMessage) => (bytes: Buffer) => fromBinary(schema, bytes);
    definition[method.localName] = {
      path: `/${DataService.typeName}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: serialize(method.input),
      requestDeserialize: deserialize(method.input),
      responseSerialize: serialize(method.output),
      responseDeserialize: deserialize(method.output),
    };
  }
  return definition;
}

/** Runs `call` `calls` times with `concurrency` in flight; calls/s, p50 and p99 in ms. */
async function measure(call: () => Promise<unknown>): Promise<{ rate: number; p50: number; p99: number }> {
  for (let n = 0; n < 200; n++) await call(); // warm-up
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < calls) {
        const at = performance.now();
        await call();
        latencies.push(performance.now() - at);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { rate: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-hop-"));
  const database = await openDatabase({ url: process.env["DATABASE_URL"], dataDir, logger: silentLogger });
  const sessions: Http2SessionManager[] = [];
  const grpcClients: grpc.Client[] = [];
  let connectServer: ReturnType<typeof createInternalServer> | undefined;
  let bare: http2.Http2Server | undefined;
  const grpcServer = new grpc.Server();
  const grpcJsCallers: GrpcJsCaller[] = [];
  let dataRole: RunningService | undefined;
  try {
    await migrateRegion(database.sql, "uk", silentLogger);
    await seedMerchantData(database.sql, "uk", companyId, {
      storeCount: 1,
      itemCount: 50,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(),
    });
    const impl = createDataService(
      { config: loadConfig({}), clock: systemClock, ids: cryptoIds, logger: silentLogger },
      { region: "uk", sql: database.sql },
    );

    // The internal port as deployed: the front credential checked and the request validated on every call.
    const front = newServiceCredential("front", "bench-front");
    const credentialsFile = join(dataDir, "internal-credentials");
    await writeFile(credentialsFile, front.line + "\n");
    const credentials = await loadServiceCredentials({
      file: credentialsFile,
      clock: systemClock,
      logger: silentLogger,
    });
    connectServer = createInternalServer({
      routes: (router) => router.service(DataService, impl),
      credentials,
      logger: silentLogger,
      ids: cryptoIds,
    });
    const connectPort = (await connectServer.listen(0, "127.0.0.1")).port;
    // The same connect-node stack without the internal port's interceptors: what authentication, validation and
    // the access log cost per call.
    bare = http2.createServer(connectNodeAdapter({ routes: (router) => router.service(DataService, impl) }));
    const barePort = await new Promise<number>((resolve) =>
      bare!.listen(0, "127.0.0.1", () => resolve((bare!.address() as AddressInfo).port)),
    );

    grpcServer.addService(grpcJsDefinition(), {
      listItems: (call: grpc.ServerUnaryCall<object, object>, callback: grpc.sendUnaryData<object>) => {
        Promise.resolve(impl.listItems(call.request as never, {} as HandlerContext)).then(
          (response) => callback(null, response),
          (error: Error) => callback({ code: grpc.status.INTERNAL, details: error.message }),
        );
      },
    });
    const grpcPort = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );

    const request = create(ListItemsRequestSchema, { companyId: BigInt(companyId), limit: 10 });
    const connectClientTo = (port: number) => {
      const sessionManager = new Http2SessionManager(`http://127.0.0.1:${port}`);
      sessions.push(sessionManager);
      const withCredential: Interceptor = (next) => (call) => {
        call.header.set("x-service-credential", front.credential);
        return next(call);
      };
      const caller = createRemoteCaller(
        createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}`, sessionManager, interceptors: [withCredential] }),
      );
      const method = DataService.method.listItems;
      return () =>
        caller.call({
          method,
          input: request,
          headers: new Headers(),
          values: createContextValues(),
          signal: new AbortController().signal,
          url: "",
        });
    };
    const grpcJsClientTo = (port: number) => {
      const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
      grpcClients.push(client);
      const metadata = new grpc.Metadata();
      metadata.set("x-service-credential", front.credential);
      return () =>
        new Promise((resolve, reject) =>
          client.makeUnaryRequest(
            `/${DataService.typeName}/ListItems`,
            (message: typeof request) => Buffer.from(toBinary(ListItemsRequestSchema, message)),
            (bytes: Buffer) => fromBinary(ListItemsResponseSchema, bytes),
            request,
            metadata,
            (error, response) => (error ? reject(error) : resolve(response)),
          ),
        );
    };
    const direct = () => impl.listItems(request, {} as HandlerContext) as Promise<unknown>;

    const cases: Array<[string, () => Promise<unknown>]> = [
      ["direct call of the ServiceImpl (no hop)", direct],
      ["connect-node bare (no interceptors), connect-node client", connectClientTo(barePort)],
      ["connect-node server, connect-node client", connectClientTo(connectPort)],
      ["grpc-js server, connect-node client", connectClientTo(grpcPort)],
      ["connect-node server, grpc-js client", grpcJsClientTo(connectPort)],
      ["grpc-js server, grpc-js client", grpcJsClientTo(grpcPort)],
    ];
    const lines = [
      `ListItems(limit 10), ${calls} calls, ${concurrency} in flight, ${database.embedded ? "embedded PGlite" : "PostgreSQL"}, Node ${process.version}`,
    ];
    const line = (name: string, result: { rate: number; p50: number; p99: number }) =>
      `${name.padEnd(66)} ${result.rate.toFixed(0).padStart(7)} calls/s   p50 ${result.p50.toFixed(1).padStart(6)} ms   p99 ${result.p99.toFixed(1).padStart(6)} ms`;
    for (const [name, call] of cases) lines.push(line(name, await measure(call)));

    // The production hop: a data role in its own process, on its own copy of the data when embedded (one owner).
    const roleDir = join(dataDir, "data-role");
    if (database.embedded) {
      const own = await openDatabase({ url: undefined, dataDir: roleDir, logger: silentLogger });
      await migrateRegion(own.sql, "uk", silentLogger);
      await seedMerchantData(own.sql, "uk", companyId, {
        storeCount: 1,
        itemCount: 50,
        salesDays: 0,
        onlineOrderCount: 0,
        now: new Date(),
      });
      await own.close();
    }
    dataRole = await startService({
      args: ["--role", "data", "--region", "uk"],
      env: {
        GRPC_PORT: "0",
        REGION_GRPC_PORT: "0",
        DATA_DIR: roleDir,
        GRPC_CREDENTIALS_FILE: credentialsFile,
        ...(process.env["DATABASE_URL"] ? { DATABASE_URL: process.env["DATABASE_URL"] } : {}),
      },
      dataDir,
      readyMessage: "data service ready",
    });
    const method = DataService.method.listItems;
    const viaRegionCaller = (remote: ReturnType<typeof createRemoteCaller>) => {
      const caller = createRegionCaller("uk", remote, silentLogger);
      return () => caller.call({ method, input: request, headers: new Headers() });
    };
    const grpcJs = createGrpcJsCaller(String(dataRole.ready["regionGrpc"]), {
      credential: front.credential,
      timeoutMs: 10_000,
    });
    grpcJsCallers.push(grpcJs);
    const connectUrl = String(dataRole.ready["grpc"]);
    const connectSession = new Http2SessionManager(connectUrl);
    sessions.push(connectSession);
    const withCredential: Interceptor = (next) => (call) => {
      call.header.set("x-service-credential", front.credential);
      return next(call);
    };
    const connectHop = createRemoteCaller(
      createGrpcTransport({ baseUrl: connectUrl, sessionManager: connectSession, interceptors: [withCredential] }),
      10_000,
    );
    const before = await measure(viaRegionCaller(connectHop));
    const after = await measure(viaRegionCaller(grpcJs));
    lines.push(line("data role process: connect-node internal port (the hop before)", before));
    lines.push(line("data role process: grpc-js REGION_GRPC_PORT (the hop), createRegionCaller", after));
    lines.push(
      `the hop on grpc-js / on connect-node: ${(after.rate / before.rate).toFixed(2)}x calls/s, p50 ${(after.p50 / before.p50).toFixed(2)}x, p99 ${(after.p99 / before.p99).toFixed(2)}x`,
    );
    process.stdout.write(lines.join("\n") + "\n");
  } finally {
    for (const session of sessions) session.abort();
    for (const client of grpcClients) client.close();
    for (const caller of grpcJsCallers) caller.close();
    await dataRole?.stop();
    grpcServer.forceShutdown();
    await connectServer?.close(100);
    bare?.close();
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
