// The internal port: one port serving gRPC over h2c (to a plain @grpc/grpc-js client, as internal callers use) and
// Connect over HTTP/1.1, with coded errors arriving as a google.rpc.Status carrying an ErrorInfo.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  ExchangeTokenRequestSchema,
  ExchangeTokenResponseSchema,
  GetJwksRequestSchema,
  GetJwksResponseSchema,
  TokenService,
} from "../../gen/partnerapi/v1/token_service_pb.js";
import { serviceError } from "../../src/errors/index.js";
import { createInternalServer, type InternalServer } from "../../src/internal/internal-server.js";
import { silentLogger } from "../../src/runtime/logger.js";

type Context = { server: InternalServer; port: number; client: grpc.Client };
const Internal = suite<Context>("internal/internal-server", {} as Context);

Internal.before(async (context) => {
  context.server = createInternalServer({
    logger: silentLogger,
    routes: (router) =>
      router.service(TokenService, {
        exchangeToken: (request) => {
          throw serviceError(TokenService.typeName, "oauth.code_expired", {}, new Error(`code ${request.code} expired`));
        },
        getJwks: () => ({ keys: [{ kty: "RSA", kid: "k1" }] }),
      }),
  });
  const address = await context.server.listen(0, "127.0.0.1");
  context.port = address.port;
  context.client = new grpc.Client(`127.0.0.1:${address.port}`, grpc.credentials.createInsecure());
});

Internal.after(async (context) => {
  context.client.close();
  await context.server.close(100);
});

function unary<I, O>(client: grpc.Client, path: string, request: I, encode: (i: I) => Uint8Array, decode: (b: Uint8Array) => O) {
  return new Promise<O>((resolve, reject) => {
    client.makeUnaryRequest(path, (value: I) => Buffer.from(encode(value)), (bytes: Buffer) => decode(bytes), request, (error, value) =>
      error ? reject(error) : resolve(value as O),
    );
  });
}

Internal("a grpc-js client gets the coded error as its status code and an ErrorInfo whose reason is the code", async ({ client }) => {
  const request = create(ExchangeTokenRequestSchema, { grantType: "authorization_code", code: "c1" });
  const error = await unary(
    client,
    "/partnerapi.v1.TokenService/ExchangeToken",
    request,
    (value) => toBinary(ExchangeTokenRequestSchema, value),
    (bytes) => fromBinary(ExchangeTokenResponseSchema, bytes),
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
});

Internal("the same port answers gRPC over h2c and Connect JSON over HTTP/1.1", async ({ client, port }) => {
  const viaGrpc = await unary(
    client,
    "/partnerapi.v1.TokenService/GetJwks",
    create(GetJwksRequestSchema),
    (value) => toBinary(GetJwksRequestSchema, value),
    (bytes) => fromBinary(GetJwksResponseSchema, bytes),
  );
  assert.is(viaGrpc.keys[0]!.kid, "k1");
  const viaConnect = await fetch(`http://127.0.0.1:${port}/partnerapi.v1.TokenService/GetJwks`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  assert.is(viaConnect.status, 200);
  assert.equal(await viaConnect.json(), { keys: [{ kty: "RSA", kid: "k1" }] });
});

Internal("an RPC that is not built answers UNIMPLEMENTED", async ({ client }) => {
  const error = await unary(
    client,
    "/partnerapi.v1.TokenService/RevokeToken",
    create(GetJwksRequestSchema),
    (value) => toBinary(GetJwksRequestSchema, value),
    (bytes) => bytes,
  ).then(
    () => {
      throw new Error("the call must fail");
    },
    (err: grpc.ServiceError) => err,
  );
  assert.is(error.code, grpc.status.UNIMPLEMENTED);
});

Internal.run();
