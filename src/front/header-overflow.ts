// A request line and headers over Node's limit (16 KiB: a huge query string) never reach the front's handler; Node
// would answer a bare 431 without a body. Answer it in the family of the path (RFC 6585 section 5) instead, logged
// and counted like any answer; every other parse error keeps Node's own answer (400, or 408 for a timeout).
import type { Duplex } from "node:stream";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { traceContextOf } from "../runtime/trace-context.js";
import { countRequest } from "./front-call.js";
import { renderError } from "./render-error.js";
import type { Family, RouteTable } from "./route-table.js";

export interface HeaderOverflowDeps {
  /** The front's routes: the answer speaks in the family of the path the request line names. */
  table: RouteTable;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  metrics?: Metrics;
}

/** The server's "clientError" listener. */
export function answerHeaderOverflow(options: HeaderOverflowDeps) {
  const { table } = options;
  return (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    if (error.code !== "HPE_HEADER_OVERFLOW") {
      const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : "400 Bad Request";
      return socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    }
    const requestLine = /^([A-Z]+) (\/[^ ?#]*)/.exec(error.rawPacket?.toString("latin1") ?? "");
    const matched = requestLine ? table.match(requestLine[1]!, requestLine[2]!) : undefined;
    const family: Family = matched ? (matched.kind === "found" ? matched.route.family : matched.family) : "partner";
    const { correlationId, traceId } = traceContextOf(requestIdsOf(error.rawPacket), options.ids.uuid);
    const context = {
      family,
      acceptLanguage: undefined,
      path: requestLine?.[2] ?? "/",
      timestamp: new Date(options.clock.now()).toISOString(),
      correlationId,
    };
    const rendered = renderError({ code: "request.headers_too_large", params: {} }, context);
    const body = JSON.stringify(rendered.body);
    const headers = {
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(body)),
      "X-Content-Type-Options": "nosniff",
      "X-Correlation-Id": correlationId,
      ...rendered.headers,
      Connection: "close",
    };
    socket.end(
      `HTTP/1.1 431 Request Header Fields Too Large\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join("\r\n")}\r\n\r\n${body}`,
    );
    const route = matched?.kind === "found" ? matched.route.template.source : "unmatched";
    options.logger.info("request", {
      method: requestLine?.[1],
      path: context.path,
      family,
      route,
      status: 431,
      ms: 0,
      correlationId,
      traceId,
    });
    countRequest(options.metrics, { family, route, method: requestLine?.[1], status: 431 }, 0);
  };
}

/**
 * X-Request-Id and traceparent read from the raw head of a request Node refused (431), so even that answer reuses
 * the caller's ids. Only the first 16 KiB are looked at; a header past it is simply not found.
 */
function requestIdsOf(rawPacket: Buffer | undefined): { requestId?: string; traceparent?: string } {
  const head = rawPacket?.subarray(0, 16_384).toString("latin1") ?? "";
  const find = (name: string) => new RegExp(`\\r\\n${name}:[ \\t]*([^\\r\\n]*)`, "i").exec(head)?.[1]?.trim();
  return { requestId: find("x-request-id"), traceparent: find("traceparent") };
}
