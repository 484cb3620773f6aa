// What both web sites (consent, console) do for every request before their own routes: the trace context the front
// uses (a well-formed X-Request-Id or traceparent reused, else a new id; src/runtime/trace-context.ts) on every log
// line and answered as X-Correlation-Id, so a merchant's or developer's report of a failed page can be found in the
// logs; and the probes, which need no session, cookie or language.
import type http from "node:http";
import type { IdSource } from "../runtime/ids.js";
import { runWithLogContext } from "../runtime/log-context.js";
import { isProbePath, probePaths } from "../runtime/probe-paths.js";
import { requestIdHeader, traceContextOf, traceparentHeader } from "../runtime/trace-context.js";
import { queryParams } from "../runtime/urlencoded.js";

/** A site's reply before headers are written. */
export interface SiteReply {
  status: number;
  html?: string;
  headers?: Record<string, string>;
}

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** Wraps a site's request listener: the request's correlation id is on every line it logs and in its answer. */
export function tracedSiteRequests(ids: IdSource, listener: http.RequestListener): http.RequestListener {
  return (request, response) => {
    const trace = traceContextOf(
      { requestId: single(request.headers[requestIdHeader]), traceparent: single(request.headers[traceparentHeader]) },
      ids.uuid,
    );
    response.setHeader("X-Correlation-Id", trace.correlationId);
    runWithLogContext({ correlationId: trace.correlationId, traceId: trace.traceId }, () =>
      listener(request, response),
    );
  };
}

/**
 * GET /healthz (liveness: nothing) and GET /readyz (the databases this process uses, as `readiness` says),
 * as plain text, and HEAD of both (the same answer without its body); undefined for any other request.
 */
export async function probeReply(
  method: string,
  path: string,
  readiness: (() => Promise<{ ready: boolean; down: string[] }>) | undefined,
  retryAfterSeconds: number,
): Promise<SiteReply | undefined> {
  if (!probePaths.some((probe) => probe.path === path && probe.methods.includes(method))) return undefined;
  if (path === "/healthz") return { status: 200, html: "ok\n" };
  if (path === "/readyz") {
    // A site given nothing to check (a test's) has nothing to wait for.
    const { ready, down } = readiness ? await readiness() : { ready: true, down: [] };
    return ready
      ? { status: 200, html: "ready\n" }
      : { status: 503, headers: { "Retry-After": String(retryAfterSeconds) }, html: `not ready: ${down.join(", ")}\n` };
  }
  return undefined;
}

/** The Content-Type of a site's reply: the probes answer plain text, every other page HTML. */
export function siteContentType(path: string): string {
  return isProbePath(path) ? "text/plain; charset=utf-8" : "text/html; charset=utf-8";
}

/**
 * The URL of a site's request, its query string decoded once in linear time (src/runtime/urlencoded.ts) and written
 * back encoded: URLSearchParams, which the pages read, takes a slow path on bytes that are not UTF-8 (a 16 KiB query
 * of `%FF&` cost tens of milliseconds of the event loop), and never meets them here. Such bytes read as U+FFFD, as
 * before. Throws on a request target no URL can be made of.
 */
export function siteUrl(target: string | undefined, base: string): URL {
  const url = new URL(target ?? "/", base);
  if (url.search.includes("%")) url.search = queryParams(url.search).toString();
  return url;
}
