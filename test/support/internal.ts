// What suites of the internal port share: a credentials file with one credential per role, and Connect
// transports (gRPC over h2c, Connect over HTTP/1.1) or a grpc-js metadata that present one of them.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  type HealthCheckRequest,
  type HealthCheckResponse_ServingStatus,
} from "../../gen/grpc/health/v1/health_pb.js";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import {
  loadServiceCredentials,
  newServiceCredential,
  type ServiceCredentials,
  type ServiceRole,
} from "../../src/internal/service-credentials.js";
import { systemClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";

/** One credential per role, and the credentials file that accepts them. */
export type InternalCredentials = Record<ServiceRole, string> & { file: string };

/** Writes a credentials file accepting a new operator, staff, front and pos credential; DATA_DIR's default name in `dir`. */
export async function writeInternalCredentials(
  dir: string,
  name = "internal-credentials",
): Promise<InternalCredentials> {
  const operator = newServiceCredential("operator", "test-operator");
  const staff = newServiceCredential("staff", "test-staff");
  const front = newServiceCredential("front", "test-front");
  const pos = newServiceCredential("pos", "test-pos");
  const file = join(dir, name);
  await writeFile(file, [operator.line, staff.line, front.line, pos.line].join("\n") + "\n", { mode: 0o600 });
  return { operator: operator.credential, staff: staff.credential, front: front.credential, pos: pos.credential, file };
}

/** Presents `credential` as the service credential (X-Service-Credential) on every call. */
export function presenting(credential: string): Interceptor {
  return (next) => (request) => {
    request.header.set("x-service-credential", credential);
    return next(request);
  };
}

/** gRPC over h2c to the internal port at `port`, presenting `credential` (none when undefined). */
export function grpcTransport(port: number, credential: string | undefined): Transport {
  return createGrpcTransport({
    baseUrl: `http://127.0.0.1:${port}`,
    interceptors: credential ? [presenting(credential)] : [],
  });
}

/** The Connect protocol over HTTP/1.1 to the internal port at `port`, presenting `credential`. */
export function connectTransport(port: number, credential: string | undefined): Transport {
  return createConnectTransport({
    baseUrl: `http://127.0.0.1:${port}`,
    httpVersion: "1.1",
    interceptors: credential ? [presenting(credential)] : [],
  });
}

/** grpc-js call metadata presenting `credential`. */
export function grpcMetadata(credential: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("x-service-credential", credential);
  return metadata;
}

/** A loaded credentials store accepting one new credential per role (for suites that build an InternalServer). */
export async function testServiceCredentials(): Promise<{
  credentials: ServiceCredentials;
  tokens: InternalCredentials;
}> {
  const dir = await mkdtemp(join(tmpdir(), "pa-internal-"));
  const tokens = await writeInternalCredentials(dir);
  const credentials = await loadServiceCredentials({ file: tokens.file, clock: systemClock, logger: silentLogger });
  await rm(dir, { recursive: true, force: true });
  return { credentials, tokens };
}

/** A self-signed certificate for localhost and 127.0.0.1 (it is its own CA), made with the openssl CLI. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, "internal.crt");
  const key = join(dir, "internal.key");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  return { cert, key };
}

/** grpc.health.v1.Health/Check of `service` ("" for the server) through grpc-js, as a load balancer asks. */
export function grpcHealthCheck(port: number, service: string): Promise<HealthCheckResponse_ServingStatus> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      (request: HealthCheckRequest) => Buffer.from(toBinary(HealthCheckRequestSchema, request)),
      (bytes: Buffer) => fromBinary(HealthCheckResponseSchema, bytes),
      create(HealthCheckRequestSchema, { service }),
      (error, response) => {
        client.close();
        if (error) reject(error);
        else resolve(response!.status);
      },
    );
  });
}
