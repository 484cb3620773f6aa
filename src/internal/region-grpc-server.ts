// The region hop's port (REGION_GRPC_PORT): a `--role data` process serves its DataService to fronts on a
// @grpc/grpc-js Server, measured about three times cheaper per call than connect-node (`npm run bench:hop`).
// grpc-js binds its own listener, so the hop has a port of its own; the internal port (GRPC_PORT, connect-node)
// keeps health, reflection, /metrics and the operator's DataService. Every call passes the internal port's own
// interceptors (./internal-server.ts, internalInterceptors): access log and correlation id, error normalisation,
// service-credential authentication against the same access policy, request validation. Errors leave as the gRPC
// status with google.rpc.Status in grpc-status-details-bin, as connect writes them (src/runtime/grpc-js-wire.ts).
import type { AddressInfo } from "node:net";
import { isIPv6 } from "node:net";
import {
  create,
  type DescMessage,
  type DescMethodUnary,
  type DescService,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type HandlerContext,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { LazyHandlerContext } from "../runtime/handler-context.js";
import * as grpc from "@grpc/grpc-js";
import {
  deserializerOf,
  grpcPath,
  grpcStatusOf,
  headersOf,
  metadataOf,
  serializerOf,
} from "../runtime/grpc-js-wire.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { accessPolicy, checkAccessPolicy, type AccessPolicy } from "./access-policy.js";
import { internalInterceptors, type InternalServer } from "./internal-server.js";
import type { ServiceCredentials } from "./service-credentials.js";

export interface RegionGrpcServerOptions {
  /** The service fronts call (the region's DataService) and its implementation. */
  service: DescService;
  impl: object;
  credentials: ServiceCredentials;
  /** PEM certificate chain and key: TLS only; absent: cleartext (h2c). */
  tls?: { cert: Buffer; key: Buffer };
  logger: Logger;
  ids: IdSource;
  policy?: AccessPolicy;
  /** Counts the calls as the internal port does (served at the internal port's /metrics). */
  metrics?: Metrics;
}

type AnyHandler = (request: unknown, context: HandlerContext) => unknown;
type Next = (request: UnaryRequest) => Promise<UnaryResponse>;

/** Builds the server; throws AccessPolicyError when a served RPC has no row in the access policy. */
export function createRegionGrpcServer(options: RegionGrpcServerOptions): InternalServer {
  const policy = options.policy ?? accessPolicy;
  checkAccessPolicy([options.service], policy);
  const interceptors = internalInterceptors({ ...options, policy }, [options.service]);
  const handlers = options.impl as Record<string, AnyHandler | undefined>;
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of options.service.methods) {
    const handler = handlers[method.localName];
    if (method.methodKind !== "unary" || !handler) continue;
    const unary = method as DescMethodUnary;
    definition[method.localName] = {
      path: grpcPath(unary),
      requestStream: false,
      responseStream: false,
      requestSerialize: serializerOf(unary.input),
      requestDeserialize: deserializerOf(unary.input),
      responseSerialize: serializerOf(unary.output),
      responseDeserialize: deserializerOf(unary.output),
    };
    const chain = interceptors.reduceRight<Next>(
      (next, interceptor) => (interceptor as (next: Next) => Next)(next),
      invoke(unary, handler),
    );
    implementation[method.localName] = serve(unary, chain);
  }
  const server = new grpc.Server({
    // A front keeps one channel per region: ping it so a dead peer is noticed, and let it ping back.
    "grpc.keepalive_time_ms": 60_000,
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.http2.min_ping_interval_without_data_ms": 30_000,
  });
  server.addService(definition, implementation);
  const credentials = options.tls
    ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: options.tls.cert, private_key: options.tls.key }], false)
    : grpc.ServerCredentials.createInsecure();
  return {
    listen: (port, host) =>
      new Promise<AddressInfo>((resolve, reject) =>
        server.bindAsync(`${isIPv6(host) ? `[${host}]` : host}:${port}`, credentials, (error, bound) =>
          error ? reject(error) : resolve({ address: host, family: isIPv6(host) ? "IPv6" : "IPv4", port: bound }),
        ),
      ),
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        // Stop accepting, let calls in flight finish for up to graceMs, then cut what is left.
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/** The innermost step: the implementation, with the call's context (deadline, signal, headers). */
function invoke(method: DescMethodUnary, handler: AnyHandler): Next {
  return async (request) => {
    // The signal is the call's own, aborted when grpc-js ends the call early (the caller's cancel, or the grpc-timeout
    // deadline: grpc-js answers DEADLINE_EXCEEDED itself).
    const context = new LazyHandlerContext(method.parent, method, "grpc", {
      url: request.url,
      signal: request.signal,
      headers: request.header,
      values: request.contextValues,
      deadline: deadlines.get(request),
    });
    const output = await handler(request.message, context);
    return {
      stream: false,
      service: method.parent,
      method,
      header: context.responseHeader,
      trailer: context.responseTrailer,
      message: create(method.output as DescMessage, output as never),
    };
  };
}

/** The call's deadline (epoch ms), from grpc-timeout, keyed by its connect request. */
const deadlines = new WeakMap<UnaryRequest, number>();

/** The grpc-js handler: the call as connect's request, through the interceptors, answered as connect would. */
function serve(
  method: DescMethodUnary,
  chain: Next,
): grpc.handleUnaryCall<MessageShape<DescMessage>, MessageShape<DescMessage>> {
  return (call, callback) => {
    const aborted = new AbortController();
    let answered = false;
    // grpc-js reports every ended call as cancelled, answered or not: only an unanswered one is aborted.
    call.on(
      "cancelled",
      () => answered || aborted.abort(new ConnectError("the call was canceled or its deadline passed", Code.Canceled)),
    );
    const request: UnaryRequest = {
      stream: false,
      service: method.parent,
      method,
      requestMethod: "POST",
      url: `grpc://${call.getPath()}`,
      signal: aborted.signal,
      header: headersOf(call.metadata),
      contextValues: createContextValues(),
      message: call.request,
    };
    const deadline = call.getDeadline();
    const at = deadline instanceof Date ? deadline.getTime() : deadline;
    if (Number.isFinite(at)) deadlines.set(request, at);
    chain(request).then(
      (response) => {
        answered = true;
        call.sendMetadata(metadataOf(response.header));
        callback(null, response.message, metadataOf(response.trailer));
      },
      (error: unknown) => {
        answered = true;
        callback(grpcStatusOf(error));
      },
    );
  };
}
