// Server reflection against a real h2c server: buf curl resolves our schemas with it, and direct v1/v1alpha queries.
import { execFile } from "node:child_process";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { createClient, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { file_google_rpc_error_details } from "../../gen/google/rpc/error_details_pb.js";
import { createHealthService } from "../../src/internal/health.js";
import { createReflectionIndex, reflectionServices, registerReflection } from "../../src/internal/reflection.js";

const bufBin = fileURLToPath(new URL("../../node_modules/.bin/buf", import.meta.url));

type Context = { baseUrl: string; close: () => Promise<void> };

const Reflection = suite<Context>("internal/reflection", { baseUrl: "", close: async () => {} });

Reflection.before(async (context) => {
  const health = createHealthService();
  const routes = (router: ConnectRouter): void => {
    router.service(TokenService, {});
    router.service(GrantService, {});
    router.service(Health, health.impl);
    registerReflection(
      router,
      [TokenService, GrantService, ...reflectionServices, Health],
      [file_google_rpc_error_details],
    );
  };
  const server = http2.createServer(connectNodeAdapter({ routes }));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  context.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  context.close = () =>
    new Promise<void>((resolve) => {
      for (const session of sessions) session.destroy();
      server.close(() => resolve());
    });
});

Reflection.after(async (context) => {
  await context.close();
});

/** Runs buf curl over h2c gRPC; resolves with exit code and output, never rejects on a non-zero exit. */
function bufCurl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      bufBin,
      ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args],
      { timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function lines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .sort();
}

const allServices = [
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
  "partnerapi.v1.GrantService",
  "partnerapi.v1.TokenService",
];

for (const protocol of ["grpc-v1", "grpc-v1alpha"]) {
  Reflection(`buf curl --list-services over ${protocol}`, async ({ baseUrl }) => {
    const result = await bufCurl(["--reflect-protocol", protocol, "--list-services", baseUrl]);
    assert.is(result.code, 0, result.stderr);
    assert.equal(lines(result.stdout), allServices);
  });
}

// buf curl wants the base URL here ("must be a base URL, not including a service or method name") and lists every
// method of every service; we check TokenService's.
Reflection("buf curl --list-methods resolves TokenService", async ({ baseUrl }) => {
  const result = await bufCurl(["--list-methods", baseUrl]);
  assert.is(result.code, 0, result.stderr);
  assert.equal(
    lines(result.stdout).filter((line) => line.startsWith("partnerapi.v1.TokenService/")),
    [
      "partnerapi.v1.TokenService/ExchangeToken",
      "partnerapi.v1.TokenService/GetAuthorizationServerMetadata",
      "partnerapi.v1.TokenService/GetJwks",
      "partnerapi.v1.TokenService/MintSandboxToken",
      "partnerapi.v1.TokenService/PushAuthorizationRequest",
      "partnerapi.v1.TokenService/RevokeToken",
      "partnerapi.v1.TokenService/RotateSigningKey",
    ],
  );
});

Reflection("buf curl calls GetJwks with the schema from reflection: unimplemented", async ({ baseUrl }) => {
  const result = await bufCurl(["-d", "{}", `${baseUrl}/partnerapi.v1.TokenService/GetJwks`]);
  assert.is.not(result.code, 0);
  assert.match(result.stderr, /"code":\s*"unimplemented"/);
});

Reflection("buf curl describes Health through the vendored schema", async ({ baseUrl }) => {
  const result = await bufCurl(["-d", '{"service":""}', `${baseUrl}/grpc.health.v1.Health/Check`]);
  assert.is(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout), { status: "SERVING" });
});

Reflection("v1 file_containing_symbol answers token_service.proto and its imports", async ({ baseUrl }) => {
  const client = createClient(v1.ServerReflection, createGrpcTransport({ baseUrl }));
  const names: string[][] = [];
  const requests = async function* () {
    yield { messageRequest: { case: "fileContainingSymbol" as const, value: "partnerapi.v1.TokenService" } };
    // Again on the same stream: the file itself comes back, the imports already sent do not.
    yield { messageRequest: { case: "fileContainingSymbol" as const, value: "partnerapi.v1.TokenService.GetJwks" } };
  };
  for await (const response of client.serverReflectionInfo(requests())) {
    assert.is(response.messageResponse.case, "fileDescriptorResponse");
    if (response.messageResponse.case !== "fileDescriptorResponse") return;
    names.push(
      response.messageResponse.value.fileDescriptorProto.map(
        (bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name,
      ),
    );
  }
  assert.is(names.length, 2);
  assert.is(names[0]?.[0], "partnerapi/v1/token_service.proto");
  assert.equal([...(names[0] ?? [])].sort(), [
    "google/api/annotations.proto",
    "google/api/http.proto",
    "google/protobuf/descriptor.proto",
    "partnerapi/v1/options.proto",
    "partnerapi/v1/token_service.proto",
  ]);
  assert.equal(names[1], ["partnerapi/v1/token_service.proto"]);
});

Reflection("v1 unknown symbol: error_response NOT_FOUND, request echoed", async ({ baseUrl }) => {
  const client = createClient(v1.ServerReflection, createGrpcTransport({ baseUrl }));
  const requests = async function* () {
    yield { host: "here", messageRequest: { case: "fileContainingSymbol" as const, value: "partnerapi.v1.Nope" } };
  };
  for await (const response of client.serverReflectionInfo(requests())) {
    assert.is(response.validHost, "here");
    assert.is(response.originalRequest?.messageRequest.value, "partnerapi.v1.Nope");
    assert.is(response.messageResponse.case, "errorResponse");
    if (response.messageResponse.case === "errorResponse") assert.is(response.messageResponse.value.errorCode, 5);
  }
});

Reflection(
  "extra files: error details resolve with their imports, and stay out of list_services",
  async ({ baseUrl }) => {
    const client = createClient(v1.ServerReflection, createGrpcTransport({ baseUrl }));
    const requests = async function* () {
      yield { messageRequest: { case: "fileContainingSymbol" as const, value: "google.rpc.ErrorInfo" } };
    };
    for await (const response of client.serverReflectionInfo(requests())) {
      assert.equal(
        response.messageResponse.case === "fileDescriptorResponse"
          ? response.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b).name)
          : [],
        ["google/rpc/error_details.proto", "google/protobuf/duration.proto"],
      );
    }
  },
);

Reflection("v1alpha answers list_services, files by name and unknown files", async ({ baseUrl }) => {
  const client = createClient(v1alpha.ServerReflection, createGrpcTransport({ baseUrl }));
  const requests = async function* () {
    yield { messageRequest: { case: "listServices" as const, value: "*" } };
    yield { messageRequest: { case: "fileByFilename" as const, value: "grpc/health/v1/health.proto" } };
    yield { messageRequest: { case: "fileByFilename" as const, value: "nope.proto" } };
  };
  const responses: v1alpha.ServerReflectionResponse[] = [];
  for await (const response of client.serverReflectionInfo(requests())) responses.push(response);
  const [list, file, missing] = responses;
  assert.equal(
    list?.messageResponse.case === "listServicesResponse"
      ? list.messageResponse.value.service.map((s) => s.name).sort()
      : [],
    allServices,
  );
  assert.equal(
    file?.messageResponse.case === "fileDescriptorResponse"
      ? file.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b).name)
      : [],
    ["grpc/health/v1/health.proto"],
  );
  assert.equal(missing?.messageResponse.case === "errorResponse" ? missing.messageResponse.value.errorCode : 0, 5);
});

Reflection("extensions: by number, all numbers of a type, unknown ones", () => {
  const index = createReflectionIndex([TokenService]);
  const sent = new Set<string>();
  const byNumber = index.answer(
    {
      messageRequest: {
        case: "fileContainingExtension",
        value: { containingType: "google.protobuf.MethodOptions", extensionNumber: 72295728 },
      },
    },
    sent,
  );
  assert.is(byNumber.case, "fileDescriptorResponse");
  if (byNumber.case === "fileDescriptorResponse") {
    assert.is(
      fromBinary(FileDescriptorProtoSchema, byNumber.value.fileDescriptorProto[0]!).name,
      "google/api/annotations.proto",
    );
  }
  const numbers = index.answer(
    { messageRequest: { case: "allExtensionNumbersOfType", value: "google.protobuf.MethodOptions" } },
    sent,
  );
  assert.is(numbers.case, "allExtensionNumbersResponse");
  if (numbers.case === "allExtensionNumbersResponse") assert.ok(numbers.value.extensionNumber.includes(72295728));
  const unknownNumber = index.answer(
    {
      messageRequest: {
        case: "fileContainingExtension",
        value: { containingType: "google.protobuf.MethodOptions", extensionNumber: 1 },
      },
    },
    sent,
  );
  assert.equal(unknownNumber.case === "errorResponse" ? unknownNumber.value.errorCode : 0, 5);
  const unknownType = index.answer({ messageRequest: { case: "allExtensionNumbersOfType", value: "x.Y" } }, sent);
  assert.equal(unknownType.case === "errorResponse" ? unknownType.value.errorCode : 0, 5);
});

Reflection.run();
