// Error normalisation on the internal port (DESIGN.md, "One error model"): a catalogue error goes out as raised; an
// unexpected throw becomes INTERNAL server.internal with the call's correlation id, its detail only in the log, so
// no database message or stack reaches a caller. A database that is unavailable is not internal: it goes out as
// UNAVAILABLE server.database_unavailable with its retryAfter (src/storage/unavailable.ts decides, as at the front).
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { databaseUnavailable, isErrorCode, readServiceError, serviceError } from "../errors/index.js";
import type { Logger } from "../runtime/logger.js";
import { internalCallKey } from "./internal-call.js";

/** Codes connect raises itself whose message says nothing of our internals (a client's cancel, a deadline). */
const ownCodes = new Set([Code.Canceled, Code.DeadlineExceeded, Code.Unimplemented]);

export function createErrorInterceptor(options: { logger: Logger }): Interceptor {
  return (next) => async (request) => {
    try {
      return await next(request);
    } catch (error) {
      const reason = error instanceof ConnectError ? error.findDetails(ErrorInfoSchema)[0]?.reason : undefined;
      const known = reason !== undefined && isErrorCode(reason);
      const correlationId = request.contextValues.get(internalCallKey)?.correlationId;
      if (known && reason !== "server.internal") throw error;
      if (!known && error instanceof ConnectError && ownCodes.has(error.code)) throw error;
      if (!known && readServiceError(error).code === "server.database_unavailable") {
        options.logger.warn("database unavailable", {
          method: `/${request.service.typeName}/${request.method.name}`,
          correlationId,
          error,
        });
        throw serviceError(
          request.service.typeName,
          "server.database_unavailable",
          { retryAfter: databaseUnavailable().params["retryAfter"]! },
          error,
        );
      }
      options.logger.error("internal call failed unexpectedly", {
        method: `/${request.service.typeName}/${request.method.name}`,
        correlationId,
        error: known ? ((error as ConnectError).cause ?? error) : error,
      });
      throw serviceError(request.service.typeName, "server.internal");
    }
  };
}
