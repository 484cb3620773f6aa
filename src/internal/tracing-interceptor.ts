// A server span per internal call (issue 41), child of the caller's W3C `traceparent` (a front's region hop, a
// service client's call): RPC semantic conventions, rpc.system `grpc` for gRPC (the region hop's grpc-js port, or
// gRPC on this port) and `connect_rpc` for the Connect protocol. The outermost interceptor, so the access log and
// everything the call logs run inside the span and carry its ids. Off (no OTLP endpoint): it only calls on.
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { inRpcSpan } from "../runtime/spans.js";
import { activeTracer } from "../runtime/tracing.js";

export function createTracingInterceptor(): Interceptor {
  return (next) => (request) => {
    if (!activeTracer()) return next(request);
    const grpc =
      request.url.startsWith("grpc://") || (request.header.get("content-type") ?? "").startsWith("application/grpc");
    return inRpcSpan(
      {
        kind: "server",
        service: request.service.typeName,
        method: request.method.name,
        system: grpc ? "grpc" : "connect_rpc",
        headers: request.header,
        codeOf: (error) => ConnectError.from(error).code,
      },
      () => next(request),
    );
  };
}
