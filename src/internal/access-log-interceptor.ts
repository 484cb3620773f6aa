// The internal port's access log, and the start of every call's correlation id: one line per call with the method,
// the caller, the gRPC code (and catalogue reason), the duration and the correlation id, which is also answered in
// X-Correlation-Id. The outermost interceptor, so it logs what the caller finally got.
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { correlationHeader } from "../runtime/caller-context.js";
import { correlationIdPattern, internalCallKey, type InternalCall } from "./internal-call.js";

export function createAccessLogInterceptor(options: { logger: Logger; ids: IdSource }): Interceptor {
  const { logger, ids } = options;
  return (next) => async (request) => {
    const started = performance.now();
    const incoming = request.header.get(correlationHeader);
    const call: InternalCall = { correlationId: incoming && correlationIdPattern.test(incoming) ? incoming : ids.uuid() };
    request.contextValues.set(internalCallKey, call);
    // Names only, never values: which metadata crossed a hop is what propagation problems need to see.
    logger.debug("internal call headers", { method: `/${request.service.typeName}/${request.method.name}`, names: [...request.header.keys()], correlationId: call.correlationId });
    const line = (code: Code | "ok", reason?: string) =>
      logger.info("internal call", {
        method: `/${request.service.typeName}/${request.method.name}`,
        caller: call.caller?.id,
        role: call.caller?.role,
        grpcCode: code === "ok" ? "ok" : Code[code],
        reason,
        ms: Math.round((performance.now() - started) * 10) / 10,
        correlationId: call.correlationId,
      });
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
  };
}
