// The internal port on a real port: gRPC over h2c (a plain @grpc/grpc-js client, as internal callers use) and Connect
// over HTTP/1.1 on one port; coded errors as a google.rpc.Status with an ErrorInfo; and the interceptors: service
// credentials (none or a wrong one UNAUTHENTICATED, a role the RPC does not admit PERMISSION_DENIED, health open),
// rotation with two credentials valid at once, validation by the field rules, error normalisation, the access log,
// the access-policy check at start, and TLS. Time moves on a manual clock.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import {
  ExchangeTokenRequestSchema,
  ExchangeTokenResponseSchema,
  GetJwksRequestSchema,
  GetJwksResponseSchema,
  TokenService,
} from "../../gen/partnerapi/v1/token_service_pb.js";
import { readServiceError, serviceError } from "../../src/errors/index.js";
import { accessPolicy, AccessPolicyError, type AccessPolicy } from "../../src/internal/access-policy.js";
import { createHealthService, ServingStatus } from "../../src/internal/health.js";
import { createInternalServer, type InternalServer } from "../../src/internal/internal-server.js";
import { loadServiceCredentials, newServiceCredential } from "../../src/internal/service-credentials.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { createLogger } from "../../src/runtime/logger.js";
import {
  presenting,
  grpcMetadata,
  selfSignedCertificate,
  writeInternalCredentials,
  type InternalCredentials,
} from "../support/internal.js";

type Context = {
  server: InternalServer;
  port: number;
  client: grpc.Client;
  tokens: InternalCredentials;
  dir: string;
  logs: string[];
  listed: number;
};
const Internal = suite<Context>("internal/internal-server", {} as Context);
const clock = createManualClock();

// The suite's own policy: the app's, with the token endpoint's RPCs admitted to the operator so their wire errors
// can be exercised (in the app they are in-process only).
const policy: AccessPolicy = {
  ...accessPolicy,
  [TokenService.typeName]: {
    ...accessPolicy[TokenService.typeName],
    ExchangeToken: ["operator"],
    RevokeToken: ["operator"],
  },
};

/** What the unexpected failure below carries: it must reach the log and never the caller. */
const leakedDetail = "connection to 10.0.0.7 failed: password authentication failed for user app_rw";

Internal.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), "pa-internal-server-"));
  context.tokens = await writeInternalCredentials(context.dir);
  context.logs = [];
  context.listed = 0;
  const logger = createLogger({ level: "debug", write: (line) => context.logs.push(line), now: clock.now });
  const credentials = await loadServiceCredentials({ file: context.tokens.file, clock, logger });
  const health = createHealthService({ "": ServingStatus.SERVING });
  context.server = createInternalServer({
    credentials,
    logger,
    ids: cryptoIds,
    policy,
    routes: (router) => {
      router.service(TokenService, {
        exchangeToken: (request) => {
          throw serviceError(
            TokenService.typeName,
            "oauth.code_expired",
            {},
            new Error(`code ${request.code} expired`),
          );
        },
        getJwks: () => ({ keys: [{ kty: "RSA", kid: "k1" }] }),
        rotateSigningKey: () => {
          throw new Error(leakedDetail);
        },
      });
      router.service(DataService, {
        listItems: () => {
          context.listed += 1;
          return { items: [] };
        },
      });
      router.service(Health, health.impl);
    },
  });
  const address = await context.server.listen(0, "127.0.0.1");
  context.port = address.port;
  context.client = new grpc.Client(`127.0.0.1:${address.port}`, grpc.credentials.createInsecure());
});

Internal.after(async (context) => {
  context.client.close();
  await context.server.close(100);
  await rm(context.dir, { recursive: true, force: true });
});

function unary<I, O>(
  client: grpc.Client,
  path: string,
  request: I,
  encode: (i: I) => Uint8Array,
  decode: (b: Uint8Array) => O,
  metadata = new grpc.Metadata(),
) {
  return new Promise<O>((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (value: I) => Buffer.from(encode(value)),
      (bytes: Buffer) => decode(bytes),
      request,
      metadata,
      (error, value) => (error ? reject(error) : resolve(value as O)),
    );
  });
}

/** GetJwks through grpc-js with `metadata`; resolves with the failure, or undefined on success. */
function jwksFailure(client: grpc.Client, metadata: grpc.Metadata): Promise<grpc.ServiceError | undefined> {
  return unary(
    client,
    "/partnerapi.v1.TokenService/GetJwks",
    create(GetJwksRequestSchema),
    (v) => toBinary(GetJwksRequestSchema, v),
    (b) => b,
    metadata,
  ).then(
    () => undefined,
    (error: grpc.ServiceError) => error,
  );
}

/** The gRPC code and ErrorInfo reason of a grpc-js failure. */
function statusOf(error: grpc.ServiceError | undefined): { code: grpc.status; reason: string | undefined } | undefined {
  if (!error) return undefined;
  const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
  const info = details ? anyUnpack(fromBinary(StatusSchema, details).details[0]!, ErrorInfoSchema) : undefined;
  return { code: error.code, reason: info?.reason };
}

const entries = (logs: string[]) => logs.map((line) => JSON.parse(line) as Record<string, unknown>);

Internal(
  "a grpc-js client gets the coded error as its status code and an ErrorInfo whose reason is the code",
  async ({ client, tokens }) => {
    const request = create(ExchangeTokenRequestSchema, { grantType: "authorization_code", code: "c1" });
    const error = await unary(
      client,
      "/partnerapi.v1.TokenService/ExchangeToken",
      request,
      (value) => toBinary(ExchangeTokenRequestSchema, value),
      (bytes) => fromBinary(ExchangeTokenResponseSchema, bytes),
      grpcMetadata(tokens.operator),
    ).then(
      () => {
        throw new Error("the call must fail");
      },
      (err: grpc.ServiceError) => err,
    );
    assert.is(error.code, grpc.status.FAILED_PRECONDITION);
    const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
    assert.ok(details, "grpc-status-details-bin trailer");
    const status = fromBinary(StatusSchema, details!);
    assert.is(status.code, grpc.status.FAILED_PRECONDITION);
    const info = anyUnpack(status.details[0]!, ErrorInfoSchema);
    assert.ok(info);
    assert.is(info.reason, "oauth.code_expired");
    assert.is(info.domain, "partnerapi.v1.TokenService");
    // The cause stays on the server.
    assert.not.match(error.details, "c1");
  },
);

Internal("the same port answers gRPC over h2c and Connect JSON over HTTP/1.1", async ({ client, port, tokens }) => {
  const viaGrpc = await unary(
    client,
    "/partnerapi.v1.TokenService/GetJwks",
    create(GetJwksRequestSchema),
    (value) => toBinary(GetJwksRequestSchema, value),
    (bytes) => fromBinary(GetJwksResponseSchema, bytes),
    grpcMetadata(tokens.staff),
  );
  assert.is(viaGrpc.keys[0]!.kid, "k1");
  const viaConnect = await fetch(`http://127.0.0.1:${port}/partnerapi.v1.TokenService/GetJwks`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Service-Credential": tokens.front },
    body: "{}",
  });
  assert.is(viaConnect.status, 200);
  assert.equal(await viaConnect.json(), { keys: [{ kty: "RSA", kid: "k1" }] });
});

Internal("an RPC that is not built answers UNIMPLEMENTED", async ({ port, tokens }) => {
  const data = createClient(
    DataService,
    createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}`, interceptors: [presenting(tokens.front)] }),
  );
  const error = await data.listStores({ companyId: 1n }).then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  assert.is(error?.code, Code.Unimplemented);
});

Internal(
  "no credential, a malformed one, an unknown id and a wrong secret are all UNAUTHENTICATED internal.unauthenticated",
  async (context) => {
    const { client, tokens } = context;
    const unauthenticated = { code: grpc.status.UNAUTHENTICATED, reason: "internal.unauthenticated" };
    const wrongSecret = tokens.operator.slice(0, -4) + (tokens.operator.endsWith("AAAA") ? "BBBB" : "AAAA");
    const unknownId = tokens.operator.replace("svc_test-operator_", "svc_test-nobody_");
    const before = context.logs.length;
    assert.equal(statusOf(await jwksFailure(client, new grpc.Metadata())), unauthenticated, "none");
    assert.equal(statusOf(await jwksFailure(client, grpcMetadata("not-a-credential"))), unauthenticated, "malformed");
    assert.equal(statusOf(await jwksFailure(client, grpcMetadata(unknownId))), unauthenticated, "unknown id");
    assert.equal(statusOf(await jwksFailure(client, grpcMetadata(wrongSecret))), unauthenticated, "wrong secret");
    // A credential in Authorization is not read: that header belongs to partners and developers.
    const misplaced = new grpc.Metadata();
    misplaced.set("authorization", `Bearer ${tokens.operator}`);
    assert.equal(statusOf(await jwksFailure(client, misplaced)), unauthenticated, "in Authorization");
    // Over Connect / HTTP/1.1: 401 with the code.
    const answer = await fetch(`http://127.0.0.1:${context.port}/partnerapi.v1.TokenService/GetJwks`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    assert.is(answer.status, 401);
    assert.is(((await answer.json()) as { code: string }).code, "unauthenticated");
    // Each refusal is logged with the id the credential claims, never the credential.
    const refusals = entries(context.logs.slice(before)).filter(
      (entry) => entry["msg"] === "internal call refused: no valid service credential",
    );
    assert.equal(
      refusals.map((entry) => entry["claimedId"]),
      [undefined, "(malformed)", "test-nobody", "test-operator", undefined, undefined],
    );
    const written = context.logs.slice(before).join("\n");
    assert.not.ok(written.includes(wrongSecret.slice(-43)), "the secret is not logged");
    assert.not.ok(written.includes(tokens.operator.slice(-43)), "the real secret is not logged");
  },
);

Internal(
  "a role the RPC does not admit is PERMISSION_DENIED internal.permission_denied, logged with the caller",
  async (context) => {
    const items = createClient(
      DataService,
      createGrpcTransport({
        baseUrl: `http://127.0.0.1:${context.port}`,
        interceptors: [presenting(context.tokens.staff)],
      }),
    );
    const before = context.logs.length;
    const error = await items.listItems({ companyId: 1n }).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    assert.is(error?.code, Code.PermissionDenied);
    assert.is(readServiceError(error).code, "internal.permission_denied");
    assert.is(context.listed, 0, "the handler never ran");
    const refusal = entries(context.logs.slice(before)).find(
      (entry) => entry["msg"] === "internal call refused: role not admitted",
    );
    assert.equal(
      { method: refusal?.["method"], caller: refusal?.["caller"], role: refusal?.["role"] },
      { method: "/partnerapi.v1.DataService/ListItems", caller: "test-staff", role: "staff" },
    );
    // The roles it admits get through.
    const front = createClient(
      DataService,
      createGrpcTransport({
        baseUrl: `http://127.0.0.1:${context.port}`,
        interceptors: [presenting(context.tokens.front)],
      }),
    );
    assert.equal((await front.listItems({ companyId: 1n })).items, []);
    assert.is(context.listed, 1);
  },
);

Internal("health answers without a credential", async ({ client }) => {
  const answer = await unary(
    client,
    "/grpc.health.v1.Health/Check",
    create(HealthCheckRequestSchema),
    (value) => toBinary(HealthCheckRequestSchema, value),
    (bytes) => fromBinary(HealthCheckResponseSchema, bytes),
  );
  assert.is(answer.status, HealthCheckResponse_ServingStatus.SERVING);
});

Internal(
  "a request that breaks a field rule is INVALID_ARGUMENT request.invalid_fields naming the field, before the service",
  async (context) => {
    for (const transport of [
      createGrpcTransport({
        baseUrl: `http://127.0.0.1:${context.port}`,
        interceptors: [presenting(context.tokens.front)],
      }),
      createConnectTransport({
        baseUrl: `http://127.0.0.1:${context.port}`,
        httpVersion: "1.1",
        interceptors: [presenting(context.tokens.front)],
      }),
    ]) {
      const items = createClient(DataService, transport);
      const listed = context.listed;
      const error = await items.listItems({ companyId: 1n, limit: 1000 }).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      assert.is(error?.code, Code.InvalidArgument);
      const read = readServiceError(error);
      assert.equal(
        { code: read.code, params: read.params, details: read.details },
        {
          code: "request.invalid_fields",
          params: { fields: "limit" },
          details: [{ field: "limit", rule: "must be at most 100" }],
        },
      );
      // An id beyond what our wire carries is refused too, as the front refuses it.
      const huge = await items.listItems({ companyId: 2n ** 60n }).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      assert.equal(readServiceError(huge).params, { fields: "companyId" });
      assert.is(context.listed, listed, "the handler never ran");
    }
  },
);

Internal(
  "an unexpected throw is INTERNAL server.internal with the correlation id; its detail only in the log",
  async (context) => {
    const tokens = createClient(
      TokenService,
      createGrpcTransport({
        baseUrl: `http://127.0.0.1:${context.port}`,
        interceptors: [presenting(context.tokens.operator)],
      }),
    );
    const before = context.logs.length;
    const error = await tokens.rotateSigningKey({}, { headers: { "x-correlation-id": "trace-4711" } }).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    assert.is(error?.code, Code.Internal);
    assert.is(readServiceError(error).code, "server.internal");
    assert.is(error?.rawMessage, "An unexpected error occurred. Please try again later.");
    assert.is(error?.metadata.get("x-correlation-id"), "trace-4711");
    const logged = entries(context.logs.slice(before));
    const failure = logged.find((entry) => entry["msg"] === "internal call failed unexpectedly");
    assert.is(failure?.["correlationId"], "trace-4711");
    assert.ok(JSON.stringify(failure).includes(leakedDetail), "the detail is in the log");
  },
);

Internal(
  "one access-log line per call: method, caller, code, duration, correlation id (reused when well-formed)",
  async (context) => {
    const before = context.logs.length;
    const answer = await fetch(`http://127.0.0.1:${context.port}/partnerapi.v1.TokenService/GetJwks`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Service-Credential": context.tokens.operator,
        "X-Correlation-Id": "req-1.a:b",
      },
      body: "{}",
    });
    assert.is(answer.status, 200);
    assert.is(answer.headers.get("x-correlation-id"), "req-1.a:b");
    const refused = await fetch(`http://127.0.0.1:${context.port}/partnerapi.v1.TokenService/GetJwks`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Correlation-Id": "not a valid id" },
      body: "{}",
    });
    assert.is(refused.status, 401);
    const lines = entries(context.logs.slice(before)).filter((entry) => entry["msg"] === "internal call");
    assert.is(lines.length, 2);
    const [ok, denied] = lines;
    assert.equal(
      { ...ok, time: undefined, ms: undefined },
      {
        time: undefined,
        level: "info",
        msg: "internal call",
        method: "/partnerapi.v1.TokenService/GetJwks",
        caller: "test-operator",
        role: "operator",
        grpcCode: "ok",
        ms: undefined,
        correlationId: "req-1.a:b",
      },
    );
    assert.type(ok!["ms"], "number");
    assert.is(denied!["grpcCode"], "Unauthenticated");
    assert.is(denied!["reason"], "internal.unauthenticated");
    assert.match(String(denied!["correlationId"]), /^[0-9a-f-]{36}$/, "a malformed incoming id is replaced");
  },
);

Internal("rotation: two credentials of a role are valid at once, and the file is re-read when it changes", async () => {
  const dir = await mkdtemp(join(tmpdir(), "pa-rotation-"));
  const file = join(dir, "internal-credentials");
  const old = newServiceCredential("operator", "ops-2026-10");
  const next = newServiceCredential("operator", "ops-2026-11");
  await writeFile(file, old.line + "\n");
  const logger = createLogger({ level: "error", write: () => {} });
  const credentials = await loadServiceCredentials({ file, clock, logger });
  const server = createInternalServer({
    credentials,
    logger,
    ids: cryptoIds,
    routes: (router) => router.service(TokenService, { getJwks: () => ({ keys: [] }) }),
  });
  const { port } = await server.listen(0, "127.0.0.1");
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    assert.is(await jwksFailure(client, grpcMetadata(old.credential)), undefined, "the old one works");
    assert.is(
      statusOf(await jwksFailure(client, grpcMetadata(next.credential)))?.code,
      grpc.status.UNAUTHENTICATED,
      "the new one is not known yet",
    );
    await writeFile(file, `${old.line}\n${next.line}\n`);
    clock.advance(5_000);
    assert.is(await jwksFailure(client, grpcMetadata(old.credential)), undefined, "both: the old one");
    assert.is(await jwksFailure(client, grpcMetadata(next.credential)), undefined, "both: the new one");
    await writeFile(file, next.line + "\n");
    clock.advance(5_000);
    assert.is(
      statusOf(await jwksFailure(client, grpcMetadata(old.credential)))?.code,
      grpc.status.UNAUTHENTICATED,
      "the old one is gone",
    );
    assert.is(await jwksFailure(client, grpcMetadata(next.credential)), undefined, "the new one stays");
    // A malformed new version is not half-read: the last good one stays.
    await writeFile(file, next.line + "\nnot a line\n");
    clock.advance(5_000);
    assert.is(await jwksFailure(client, grpcMetadata(next.credential)), undefined);
  } finally {
    client.close();
    await server.close(100);
    await rm(dir, { recursive: true, force: true });
  }
});

Internal("a served RPC without a row in the access policy stops the start, naming it", () => {
  const { [DataService.typeName]: data, ...rest } = accessPolicy;
  const { ListItems: _listItems, ...others } = data!;
  assert.throws(
    () =>
      createInternalServer({
        credentials: { verify: async () => undefined, counts: () => ({ operator: 0, staff: 0, front: 0, pos: 0 }) },
        logger: createLogger({ write: () => {} }),
        ids: cryptoIds,
        policy: { ...rest, [DataService.typeName]: others },
        routes: (router) => router.service(DataService, {}),
      }),
    (error: Error) =>
      error instanceof AccessPolicyError &&
      error.message === "internal access policy: partnerapi.v1.DataService/ListItems has no entry",
  );
});

Internal(
  "with a certificate the port speaks TLS only: gRPC over h2 and Connect over HTTP/1.1, each verified against the CA",
  async (context) => {
    const dir = await mkdtemp(join(tmpdir(), "pa-tls-"));
    const certificate = selfSignedCertificate(dir);
    const logger = createLogger({ level: "error", write: () => {} });
    const credentials = await loadServiceCredentials({ file: context.tokens.file, clock, logger });
    const server = createInternalServer({
      credentials,
      logger,
      ids: cryptoIds,
      tls: { cert: await readFile(certificate.cert), key: await readFile(certificate.key) },
      routes: (router) => router.service(TokenService, { getJwks: () => ({ keys: [{ kty: "RSA", kid: "tls" }] }) }),
    });
    const { port } = await server.listen(0, "127.0.0.1");
    const ca = await readFile(certificate.cert);
    const sessionManager = new Http2SessionManager(`https://localhost:${port}`, undefined, { ca });
    try {
      const overH2 = createClient(
        TokenService,
        createGrpcTransport({
          baseUrl: `https://localhost:${port}`,
          sessionManager,
          interceptors: [presenting(context.tokens.operator)],
        }),
      );
      assert.is((await overH2.getJwks({})).keys[0]!.kid, "tls");
      const overH1 = createClient(
        TokenService,
        createConnectTransport({
          baseUrl: `https://localhost:${port}`,
          httpVersion: "1.1",
          nodeOptions: { ca },
          interceptors: [presenting(context.tokens.operator)],
        }),
      );
      assert.is((await overH1.getJwks({})).keys[0]!.kid, "tls");
      // Without the CA the certificate is not trusted; cleartext is not spoken at all.
      const untrusted = createClient(
        TokenService,
        createConnectTransport({
          baseUrl: `https://localhost:${port}`,
          httpVersion: "1.1",
          interceptors: [presenting(context.tokens.operator)],
        }),
      );
      assert.is(
        await untrusted.getJwks({}).then(
          () => "answered",
          () => "refused",
        ),
        "refused",
      );
      const cleartext = createClient(
        TokenService,
        createConnectTransport({
          baseUrl: `http://localhost:${port}`,
          httpVersion: "1.1",
          interceptors: [presenting(context.tokens.operator)],
        }),
      );
      assert.is(
        await cleartext.getJwks({}, { timeoutMs: 2_000 }).then(
          () => "answered",
          () => "refused",
        ),
        "refused",
      );
    } finally {
      sessionManager.abort();
      await server.close(100);
      await rm(dir, { recursive: true, force: true });
    }
  },
);

Internal.run();
