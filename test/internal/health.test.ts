// The health service on a real h2c server, asked by a plain @grpc/grpc-js client as load balancers would.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthListRequestSchema,
  HealthListResponseSchema,
  type HealthCheckResponse,
  type HealthListResponse,
} from "../../gen/grpc/health/v1/health_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { createHealthService, ServingStatus, type HealthService } from "../../src/internal/health.js";
import { createManualClock } from "../../src/runtime/clock.js";

type Context = { health: HealthService; client: grpc.Client; close: () => Promise<void> };

const HealthSuite = suite<Context>("internal/health", {} as Context);

HealthSuite.before(async (context) => {
  const health = createHealthService({
    "": ServingStatus.SERVING,
    "partnerapi.v1.TokenService": ServingStatus.SERVING,
  });
  const routes = (router: ConnectRouter): void => {
    router.service(TokenService, {});
    router.service(Health, health.impl);
  };
  const server = http2.createServer(connectNodeAdapter({ routes }));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  context.health = health;
  context.client = client;
  context.close = () =>
    new Promise<void>((resolve) => {
      client.close();
      for (const session of sessions) session.destroy();
      server.close(() => resolve());
    });
});

HealthSuite.after(async (context) => {
  await context.close();
});

const serializeCheck = (service: string): Buffer =>
  Buffer.from(toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service })));
const deserializeCheck = (bytes: Buffer): HealthCheckResponse => fromBinary(HealthCheckResponseSchema, bytes);

/** Health/Check through grpc-js: resolves with the status, or with the gRPC error code. */
function check(client: grpc.Client, service: string): Promise<{ status?: ServingStatus; code?: grpc.status }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      (arg: string) => serializeCheck(arg),
      deserializeCheck,
      service,
      (error, response) => resolve(error ? { code: error.code } : { status: response?.status }),
    );
  });
}

HealthSuite("Check of the whole server answers SERVING", async ({ client }) => {
  assert.equal(await check(client, ""), { status: ServingStatus.SERVING });
});

HealthSuite("Check of a registered service answers its status", async ({ client, health }) => {
  health.setStatus("partnerapi.v1.TokenService", ServingStatus.NOT_SERVING);
  assert.equal(await check(client, "partnerapi.v1.TokenService"), { status: ServingStatus.NOT_SERVING });
  health.setStatus("partnerapi.v1.TokenService", ServingStatus.SERVING);
});

HealthSuite("Check of an unknown service answers NOT_FOUND", async ({ client }) => {
  assert.equal(await check(client, "partnerapi.v1.Nope"), { code: grpc.status.NOT_FOUND });
});

/** Health/List through grpc-js: service name to status. */
async function list(client: grpc.Client): Promise<Record<string, ServingStatus>> {
  const answer = await new Promise<HealthListResponse>((resolve, reject) => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/List",
      () => Buffer.from(toBinary(HealthListRequestSchema, create(HealthListRequestSchema))),
      (bytes: Buffer) => fromBinary(HealthListResponseSchema, bytes),
      null,
      (error, response) => (error || !response ? reject(error) : resolve(response)),
    );
  });
  return Object.fromEntries(Object.entries(answer.statuses).map(([name, response]) => [name, response.status]));
}

HealthSuite("List answers every registered service", async ({ client }) => {
  assert.equal(await list(client), { "": ServingStatus.SERVING, "partnerapi.v1.TokenService": ServingStatus.SERVING });
});

/** Opens Health/Watch through grpc-js and hands back each status as it arrives. */
function watch(client: grpc.Client, service: string): { next: () => Promise<ServingStatus>; cancel: () => void } {
  const call = client.makeServerStreamRequest(
    "/grpc.health.v1.Health/Watch",
    (arg: string) => serializeCheck(arg),
    deserializeCheck,
    service,
  );
  const received: ServingStatus[] = [];
  let waiting: ((status: ServingStatus) => void) | undefined;
  call.on("data", (response: HealthCheckResponse) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(response.status);
    } else received.push(response.status);
  });
  call.on("error", () => {}); // cancel() ends the call with CANCELLED
  return {
    next: () => {
      const first = received.shift();
      return first !== undefined ? Promise.resolve(first) : new Promise((resolve) => (waiting = resolve));
    },
    cancel: () => call.cancel(),
  };
}

HealthSuite("Watch of an unknown service sees SERVICE_UNKNOWN, then the service appearing", async (context) => {
  const watcher = watch(context.client, "partnerapi.v1.Later");
  assert.is(await watcher.next(), ServingStatus.SERVICE_UNKNOWN);
  context.health.setStatus("partnerapi.v1.Later", ServingStatus.SERVING);
  assert.is(await watcher.next(), ServingStatus.SERVING);
  context.health.clearStatus("partnerapi.v1.Later");
  assert.is(await watcher.next(), ServingStatus.SERVICE_UNKNOWN);
  watcher.cancel();
});

HealthSuite("Watch sees SERVING, then NOT_SERVING when the server shuts down", async (context) => {
  const watcher = watch(context.client, "");
  assert.is(await watcher.next(), ServingStatus.SERVING);
  context.health.shutdown();
  assert.is(await watcher.next(), ServingStatus.NOT_SERVING);
  // After shutdown updates are ignored until resume.
  context.health.setStatus("", ServingStatus.SERVING);
  assert.is(context.health.getStatus(""), ServingStatus.NOT_SERVING);
  context.health.resume();
  assert.is(await watcher.next(), ServingStatus.SERVING);
  watcher.cancel();
  assert.equal(await check(context.client, ""), { status: ServingStatus.SERVING });
});

HealthSuite(
  "Check and List follow readiness: NOT_SERVING for the server and each service while not ready, SERVING when back",
  async (context) => {
    const state = { ready: true, asked: 0 };
    context.health.followReadiness(
      async () => {
        state.asked += 1;
        return { ready: state.ready };
      },
      { clock: createManualClock(), intervalMs: 2000 },
    );
    assert.equal(await check(context.client, ""), { status: ServingStatus.SERVING });
    state.ready = false;
    // Asked afresh on each Check: no poll has run (the manual clock has not moved).
    assert.equal(await check(context.client, ""), { status: ServingStatus.NOT_SERVING });
    assert.equal(await check(context.client, "partnerapi.v1.TokenService"), { status: ServingStatus.NOT_SERVING });
    assert.equal(await check(context.client, "partnerapi.v1.Unknown"), { code: grpc.status.NOT_FOUND });
    assert.equal(await list(context.client), {
      "": ServingStatus.NOT_SERVING,
      "partnerapi.v1.TokenService": ServingStatus.NOT_SERVING,
    });
    assert.is(context.health.getStatus(""), ServingStatus.NOT_SERVING);
    state.ready = true;
    assert.equal(await check(context.client, "partnerapi.v1.TokenService"), { status: ServingStatus.SERVING });
    assert.equal(await check(context.client, ""), { status: ServingStatus.SERVING });
    assert.is(state.asked, 7, "once per Check and List");
  },
);

HealthSuite("a readiness that throws counts as not ready", async (context) => {
  context.health.followReadiness(
    async () => {
      throw new Error("connection refused");
    },
    { clock: createManualClock(), intervalMs: 2000 },
  );
  assert.equal(await check(context.client, ""), { status: ServingStatus.NOT_SERVING });
  context.health.followReadiness(async () => ({ ready: true }), { clock: createManualClock(), intervalMs: 2000 });
  assert.equal(await check(context.client, ""), { status: ServingStatus.SERVING });
});

HealthSuite(
  "Watch streams follow readiness through the poll on the injected clock, and the poll ends at shutdown",
  async (context) => {
    const clock = createManualClock();
    const state = { ready: true, asked: 0 };
    context.health.followReadiness(
      async () => {
        state.asked += 1;
        return { ready: state.ready };
      },
      { clock, intervalMs: 2000 },
    );
    const server = watch(context.client, "");
    const token = watch(context.client, "partnerapi.v1.TokenService");
    assert.is(await server.next(), ServingStatus.SERVING);
    assert.is(await token.next(), ServingStatus.SERVING);
    state.ready = false;
    clock.advance(1999);
    assert.is(state.asked, 0, "no poll before the interval has passed");
    clock.advance(1);
    assert.is(await server.next(), ServingStatus.NOT_SERVING);
    assert.is(await token.next(), ServingStatus.NOT_SERVING);
    assert.is(state.asked, 1);
    state.ready = true;
    clock.advance(2000);
    assert.is(await server.next(), ServingStatus.SERVING);
    assert.is(await token.next(), ServingStatus.SERVING);
    assert.is(state.asked, 2);
    context.health.shutdown();
    assert.is(await server.next(), ServingStatus.NOT_SERVING);
    clock.advance(10_000);
    assert.is(state.asked, 2, "no poll after shutdown");
    // Ready or not, a shut-down server stays NOT_SERVING.
    assert.equal(await check(context.client, ""), { status: ServingStatus.NOT_SERVING });
    assert.is(state.asked, 2, "Check does not ask readiness after shutdown");
    server.cancel();
    token.cancel();
  },
);

HealthSuite.run();
