// The internal port's access log, and the start of every call's correlation id: one line per call with the method,
// the caller, the gRPC code (and catalogue reason), the duration and the correlation id, which is also answered in
// X-Correlation-Id. The outermost interceptor, so it logs what the caller finally got. Every line logged while the
// call runs carries its correlation id and the trace id of an incoming W3C traceparent (a front's hop sends both).
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { correlationHeader } from "../runtime/caller-context.js";
import { runWithLogContext } from "../runtime/log-context.js";
import type { Metrics } from "../runtime/metrics.js";
import { parseTraceparent, traceparentHeader } from "../runtime/trace-context.js";
import { activeSpanIds } from "../runtime/spans.js";
import { correlationIdPattern, internalCallKey, type InternalCall } from "./internal-call.js";

export function createAccessLogInterceptor(options: { logger: Logger; ids: IdSource; metrics?: Metrics }): Interceptor {
  const { logger, ids, metrics } = options;
  return (next) => (request) => {
    const incoming = request.header.get(correlationHeader);
    const correlationId = incoming && correlationIdPattern.test(incoming) ? incoming : ids.uuid();
    // Tracing on: the ids of the call's span (./tracing-interceptor.ts), so logs and traces join.
    const spanIds = activeSpanIds();
    const traceId = spanIds?.traceId ?? parseTraceparent(request.header.get(traceparentHeader) ?? undefined)?.traceId;
    return runWithLogContext({ correlationId, traceId, spanId: spanIds?.spanId }, () =>
      logged(next, request, correlationId),
    );
  };

  async function logged(
    next: Parameters<Interceptor>[0],
    request: Parameters<ReturnType<Interceptor>>[0],
    correlationId: string,
  ) {
    const started = performance.now();
    const call: InternalCall = { correlationId };
    request.contextValues.set(internalCallKey, call);
    // Names only, never values: which metadata crossed a hop is what propagation problems need to see.
    logger.debug("internal call headers", {
      method: `/${request.service.typeName}/${request.method.name}`,
      names: [...request.header.keys()],
      correlationId: call.correlationId,
    });
    const line = (code: Code | "ok", reason?: string) => {
      metrics?.internalCalls.inc({
        method: `/${request.service.typeName}/${request.method.name}`,
        grpc_code: code === "ok" ? "OK" : Code[code],
      });
      logger.info("internal call", {
        method: `/${request.service.typeName}/${request.method.name}`,
        caller: call.caller?.id,
        role: call.caller?.role,
        grpcCode: code === "ok" ? "ok" : Code[code],
        reason,
        ms: Math.round((performance.now() - started) * 10) / 10,
        correlationId: call.correlationId,
      });
    };
    try {
      const response = await next(request);
      response.header.set(correlationHeader, call.correlationId);
      line("ok");
      return response;
    } catch (error) {
      const connectError = ConnectError.from(error);
      connectError.metadata.set(correlationHeader, call.correlationId);
      line(connectError.code, connectError.findDetails(ErrorInfoSchema)[0]?.reason);
      throw connectError;
    }
  }
}
