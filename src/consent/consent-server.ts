// The consent site (AUTH_URL, its own listener): the merchant-facing pages of the OAuth authorization endpoint.
// Every page refuses to be framed (spec: "The consent screen refuses to be framed").
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../runtime/logger.js";
import { closeGracefully, listen, trackSockets } from "../runtime/http-shutdown.js";

export interface ConsentServerOptions {
  logger: Logger;
}

export interface ConsentServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
}

/** Headers on every page: no framing (X-Frame-Options and CSP frame-ancestors), no sniffing, no referrer leaks. */
export const pageSecurityHeaders = {
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
} as const;

export function createConsentServer(options: ConsentServerOptions): ConsentServer {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://consent.invalid");
    if (url.pathname === "/healthz") {
      response.writeHead(200, { ...pageSecurityHeaders, "Content-Type": "text/plain; charset=utf-8" });
      response.end("ok\n");
      return;
    }
    // The authorization endpoint is not built yet: say so plainly (501), never pretend to authorize.
    const status = url.pathname === "/oauth/authorize" ? 501 : 404;
    const text = status === 501 ? "Connecting apps is not available yet." : "Page not found.";
    response.writeHead(status, { ...pageSecurityHeaders, "Content-Type": "text/html; charset=utf-8" });
    response.end(page(text));
    options.logger.info("consent request", { method: request.method, path: url.pathname, status });
  });
  const sockets = trackSockets(server);
  return {
    listen: (port, host) => listen(server, port, host),
    close: (graceMs) => closeGracefully(server, sockets, graceMs, () => server.closeIdleConnections()),
  };
}

function page(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner connection</title></head><body><main><h1>Partner connection</h1><p>${message}</p></main></body></html>`;
}
