// The last line of defence of a listener: a failure while writing an answer (a header value node:http refuses, a
// socket gone) must cost one response, never the process (an unhandled rejection would end it).
import type { ServerResponse } from "node:http";
import type { Logger } from "./logger.js";

/** Logs `error` and ends `response`: a bare 500 when nothing was sent yet, otherwise the connection is dropped. */
export function endAfterFailure(response: ServerResponse, logger: Logger, error: unknown, path: string): void {
  logger.error("response failed", { path, error });
  if (response.headersSent) {
    response.destroy();
    return;
  }
  try {
    response.writeHead(500, {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
    response.end("Internal server error\n");
  } catch {
    response.destroy();
  }
}
