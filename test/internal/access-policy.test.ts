// The internal port's access-policy table against the real app: the start check (every served RPC has a row, every
// row an RPC), then every unary RPC of the five services called by each kind of caller (none, operator, staff,
// front) over a real port with a plain grpc-js client and with Connect over HTTP/1.1, each outcome read from the
// table; a few rows pinned by hand so a wrong table cannot pass; health and reflection open to anyone.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMethodUnary, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";
import * as reflectionV1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { internalServices } from "../../src/app.js";
import { readServiceError } from "../../src/errors/index.js";
import {
  accessPolicy,
  AccessPolicyError,
  admissionOf,
  checkAccessPolicy,
  type AccessPolicy,
} from "../../src/internal/access-policy.js";
import { reflectionServices } from "../../src/internal/reflection.js";
import type { ServiceRole } from "../../src/internal/service-credentials.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { connectTransport, grpcMetadata } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Policy = suite("internal/access-policy");
const clock = createManualClock(Date.now());
let test: TestApp;

Policy.before(async () => {
  test = await startTestApp({ clock, redis: Boolean(process.env["TEST_REDIS_URL"]) });
});
Policy.after(async () => {
  await test?.stop();
});

/** Everything the app's internal port serves, as the app registers it. */
const servedServices: readonly DescService[] = [...internalServices, Health, ...reflectionServices];

Policy("the app's table covers exactly the RPCs the app serves", () => {
  checkAccessPolicy(servedServices);
  assert.equal(
    internalServices.map((service) => service.typeName),
    [
      TokenService.typeName,
      GrantService.typeName,
      CredentialService.typeName,
      DataService.typeName,
      ConsoleService.typeName,
    ],
  );
  assert.equal(
    Object.keys(accessPolicy).sort(),
    servedServices.map((service) => service.typeName).sort(),
    "no row for a service nobody serves",
  );
});

Policy("a missing row and a stale row each stop the check, named exactly", () => {
  const { GetJwks: _getJwks, ...tokenRows } = accessPolicy[TokenService.typeName]!;
  const broken: AccessPolicy = {
    ...accessPolicy,
    [TokenService.typeName]: tokenRows,
    [GrantService.typeName]: { ...accessPolicy[GrantService.typeName], ListGrantz: ["operator"] },
  };
  assert.throws(
    () => checkAccessPolicy(servedServices, broken),
    (error: Error) =>
      error instanceof AccessPolicyError &&
      error.message ===
        "internal access policy: partnerapi.v1.TokenService/GetJwks has no entry; partnerapi.v1.GrantService/ListGrantz is not an RPC",
  );
  // A service with no rows at all: each of its RPCs is named.
  const { [Health.typeName]: _health, ...withoutHealth } = accessPolicy;
  assert.throws(
    () => checkAccessPolicy([Health], withoutHealth),
    (error: Error) =>
      error.message ===
      "internal access policy: grpc.health.v1.Health/Check has no entry; grpc.health.v1.Health/List has no entry; grpc.health.v1.Health/Watch has no entry",
  );
});

Policy("rows pinned by hand: the table says what the design says", () => {
  const admits = (service: DescService, method: string) => {
    const admission = admissionOf(service.typeName, method);
    return admission === "anonymous" ? admission : [...admission].sort();
  };
  assert.equal(admits(CredentialService, "CreateMerchantUser"), ["operator"]);
  assert.equal(admits(CredentialService, "ApproveApp"), ["staff"]);
  assert.equal(admits(CredentialService, "RejectApp"), ["staff"]);
  assert.equal(admits(CredentialService, "VerifyClientCredentials"), []);
  assert.equal(admits(CredentialService, "VerifyApiKey"), []);
  assert.equal(admits(DataService, "ListItems"), ["front", "operator"]);
  assert.equal(admits(ConsoleService, "SignIn"), []);
  assert.equal(admits(ConsoleService, "DecideProgramApplication"), ["staff"]);
  assert.equal(admits(TokenService, "GetJwks"), ["front", "operator", "staff"]);
  assert.equal(admits(TokenService, "ExchangeToken"), []);
  assert.equal(admits(TokenService, "RotateSigningKey"), ["operator"]);
  assert.equal(admits(Health, "Check"), "anonymous");
  // The front reaches remote DataServices and nothing else that changes anything.
  const frontOutsideData = internalServices
    .filter((service) => service !== DataService)
    .flatMap((service) =>
      service.methods
        .filter((method) => (admissionOf(service.typeName, method.name) as readonly string[]).includes("front"))
        .map((method) => method.name),
    );
  assert.equal(frontOutsideData.sort(), ["GetAuthorizationServerMetadata", "GetJwks"]);
});

type Caller = "none" | ServiceRole;
const callers: readonly Caller[] = ["none", "operator", "staff", "front", "pos"];

/** What the table says `caller` gets from `method`: refused before the handler, or let through. */
function expected(
  service: DescService,
  method: DescMethodUnary,
  caller: Caller,
): "internal.unauthenticated" | "internal.permission_denied" | "admitted" {
  const admission = admissionOf(service.typeName, method.name);
  if (admission === "anonymous") return "admitted";
  if (caller === "none") return "internal.unauthenticated";
  return admission.includes(caller) ? "admitted" : "internal.permission_denied";
}

/** A call's outcome as a ConnectError (undefined on success), whichever client made it. */
type Outcome = ConnectError | undefined;

/** One unary call through a plain grpc-js client with an empty request; a failure becomes a ConnectError with its details. */
function viaGrpcJs(
  client: grpc.Client,
  service: DescService,
  method: DescMethodUnary,
  credential: string | undefined,
): Promise<Outcome> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/${service.typeName}/${method.name}`,
      (value: ReturnType<typeof create<typeof method.input>>) => Buffer.from(toBinary(method.input, value)),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      create(method.input),
      credential === undefined ? new grpc.Metadata() : grpcMetadata(credential),
      (error) => {
        if (!error) return resolve(undefined);
        const [details] = error.metadata.get("grpc-status-details-bin") as Buffer[];
        const status = details ? fromBinary(StatusSchema, details) : undefined;
        const incoming = (status?.details ?? []).map((any) => ({
          type: any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1),
          value: any.value,
        }));
        const failure = new ConnectError(error.details, error.code as number as Code);
        failure.details.push(...incoming);
        resolve(failure);
      },
    );
  });
}

/** The same call with Connect over HTTP/1.1. */
function viaConnect(port: number, method: DescMethodUnary, credential: string | undefined): Promise<Outcome> {
  return connectTransport(port, credential)
    .unary(method, undefined, undefined, undefined, {})
    .then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );
}

/** Checks one outcome against the table; returns a description of the mismatch, or undefined. */
function mismatch(outcome: Outcome, want: ReturnType<typeof expected>): string | undefined {
  const reason = outcome ? readServiceError(outcome).code : "ok";
  if (want === "internal.unauthenticated")
    return outcome?.code === Code.Unauthenticated && reason === want
      ? undefined
      : `${Code[outcome?.code ?? 0]} ${reason}`;
  if (want === "internal.permission_denied")
    return outcome?.code === Code.PermissionDenied && reason === want
      ? undefined
      : `${Code[outcome?.code ?? 0]} ${reason}`;
  // Admitted: the handler or the validation answers. An empty request is bad input, so never a 500 either.
  const refusedOrBroken = ["internal.unauthenticated", "internal.permission_denied", "server.internal"].includes(
    reason,
  );
  return refusedOrBroken || outcome?.code === Code.Unimplemented ? `${Code[outcome?.code ?? 0]} ${reason}` : undefined;
}

Policy(
  "every unary RPC of the five services, for every caller, over grpc-js and Connect/HTTP 1.1: as the table says",
  async () => {
    const port = test.app.grpc.port;
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const credentialOf = (caller: Caller) => (caller === "none" ? undefined : test.internal[caller]);
    const problems: string[] = [];
    const counted = { calls: 0, admitted: 0, unauthenticated: 0, denied: 0 };
    try {
      for (const service of internalServices) {
        const methods = service.methods.filter((method): method is DescMethodUnary => method.methodKind === "unary");
        assert.is(methods.length, service.methods.length, `${service.typeName} has only unary RPCs`);
        for (const method of methods) {
          for (const caller of callers) {
            const want = expected(service, method, caller);
            const outcomes = {
              "grpc-js": await viaGrpcJs(client, service, method, credentialOf(caller)),
              "connect/http1.1": await viaConnect(port, method, credentialOf(caller)),
            };
            for (const [protocol, outcome] of Object.entries(outcomes)) {
              counted.calls += 1;
              counted[
                want === "admitted" ? "admitted" : want === "internal.unauthenticated" ? "unauthenticated" : "denied"
              ] += 1;
              const problem = mismatch(outcome, want);
              if (problem)
                problems.push(
                  `${service.typeName}/${method.name} as ${caller} over ${protocol}: want ${want}, got ${problem}`,
                );
            }
          }
        }
      }
    } finally {
      client.close();
    }
    assert.equal(problems, []);
    const rpcs = internalServices.reduce((sum, service) => sum + service.methods.length, 0);
    assert.is(counted.calls, rpcs * callers.length * 2);
    assert.is(counted.unauthenticated, rpcs * 2, "no credential: every RPC refuses");
    assert.ok(counted.admitted > 0 && counted.denied > 0);
  },
);

Policy("the hand-pinned rows hold on the wire too", async () => {
  const port = test.app.grpc.port;
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = async (service: DescService, name: string, caller: ServiceRole): Promise<string> => {
    const method = service.methods.find((m) => m.name === name) as DescMethodUnary;
    const [a, b] = [
      await viaGrpcJs(client, service, method, test.internal[caller]),
      await viaConnect(port, method, test.internal[caller]),
    ];
    const reasons = [a, b].map((outcome) => (outcome ? readServiceError(outcome).code : "ok"));
    assert.is(reasons[0], reasons[1], `${name} as ${caller}: both protocols agree`);
    return reasons[0] === "internal.permission_denied"
      ? "denied"
      : reasons[0] === "internal.unauthenticated"
        ? "unauthenticated"
        : "admitted";
  };
  try {
    const rows: Array<[DescService, string, Record<ServiceRole, "denied" | "admitted">]> = [
      [
        CredentialService,
        "CreateMerchantUser",
        { operator: "admitted", staff: "denied", front: "denied", pos: "denied" },
      ],
      [CredentialService, "ApproveApp", { operator: "denied", staff: "admitted", front: "denied", pos: "denied" }],
      [DataService, "ListItems", { operator: "admitted", staff: "denied", front: "admitted", pos: "denied" }],
      [DataService, "AcceptOnlineOrder", { operator: "denied", staff: "denied", front: "denied", pos: "admitted" }],
      [DataService, "PlaceOnlineOrder", { operator: "denied", staff: "denied", front: "admitted", pos: "denied" }],
      [DataService, "GetOnlineOrder", { operator: "admitted", staff: "denied", front: "admitted", pos: "admitted" }],
      [ConsoleService, "SignIn", { operator: "denied", staff: "denied", front: "denied", pos: "denied" }],
      [TokenService, "GetJwks", { operator: "admitted", staff: "admitted", front: "admitted", pos: "denied" }],
    ];
    for (const [service, name, want] of rows) {
      for (const caller of ["operator", "staff", "front", "pos"] as const)
        assert.is(await call(service, name, caller), want[caller], `${name} as ${caller}`);
    }
  } finally {
    client.close();
  }
});

Policy("health Check and reflection answer without a credential", async () => {
  const port = test.app.grpc.port;
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    for (const service of ["", ...internalServices.map((s) => s.typeName)]) {
      const status = await new Promise<HealthCheckResponse_ServingStatus>((resolve, reject) =>
        client.makeUnaryRequest(
          "/grpc.health.v1.Health/Check",
          (value: ReturnType<typeof create<typeof HealthCheckRequestSchema>>) =>
            Buffer.from(toBinary(HealthCheckRequestSchema, value)),
          (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
          create(HealthCheckRequestSchema, { service }),
          new grpc.Metadata(),
          (error, answer) => (error ? reject(error) : resolve(answer!.status)),
        ),
      );
      assert.is(status, HealthCheckResponse_ServingStatus.SERVING, `health of "${service}"`);
    }
  } finally {
    client.close();
  }
  const reflection = createClient(
    reflectionV1.ServerReflection,
    createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }),
  );
  const listed: string[] = [];
  const requests = async function* () {
    yield { messageRequest: { case: "listServices" as const, value: "*" } };
  };
  for await (const response of reflection.serverReflectionInfo(requests())) {
    if (response.messageResponse.case === "listServicesResponse")
      listed.push(...response.messageResponse.value.service.map((s) => s.name));
  }
  assert.equal(listed.sort(), servedServices.map((service) => service.typeName).sort());
});

Policy.run();
