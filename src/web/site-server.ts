// The listener of both web sites (consent, console): what every request goes through around the site's own routes,
// written once. In order: the trace context (src/web/site-request.ts), the URL, the stylesheet and scripts, the
// probes, then the site's answer; a failure becomes its page (the session store or a database away: 503 with
// Retry-After; anything else: 500, its detail in the log); the kit's security headers on every page, HEAD without
// a body, and one log line per request.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { codeHeaders, entryOf, readServiceError } from "../errors/index.js";
import { ClientGone, clientClosedStatus } from "../runtime/client-gone.js";
import { servedGracefully } from "../runtime/http-shutdown.js";
import type { IdSource } from "../runtime/ids.js";
import { endAfterFailure } from "../runtime/last-resort.js";
import type { Logger } from "../runtime/logger.js";
import { databaseRetryAfterSeconds } from "../storage/unavailable.js";
import { assetReply } from "./assets.js";
import type { Locale } from "./i18n.js";
import { SessionStoreUnavailable, storeRetryAfterSeconds } from "./session-store.js";
import { probeReply, siteContentType, siteUrl, tracedSiteRequests } from "./site-request.js";

/** A site's answer before the listener writes it. */
export interface PageReply {
  status: number;
  html?: string;
  location?: string;
  headers?: Record<string, string>;
  cookies?: string[];
  /** The page's language (Content-Language), when the site says it. */
  language?: Locale;
}

/** The failures a site shows a page of its own for. */
export type FailureCode = "server.unavailable" | "server.database_unavailable" | "server.internal";

/** What a site does with one request. */
export interface SiteVisit {
  /** The site's answer: its routes and their steps. */
  answer(): Promise<PageReply>;
  /** The body of the page that says `code`, in the site's look and the visitor's language. */
  failurePage(code: FailureCode, params: Record<string, string>): string;
  /** What every reply of this request gets, a failure's too (the language chosen and its cookie). */
  finish?(reply: PageReply): PageReply;
}

export interface SiteServerOptions {
  ids: IdSource;
  logger: Logger;
  /** The site as its log lines name it ("consent site"). */
  name: string;
  /** The message of each request's log line ("consent request"). */
  requestLine: string;
  /** The base a request target is read against (an .invalid origin: only the path and query are used). */
  base: string;
  /** The kit's page headers (src/web/layout.ts pageHeaders), on every answer but the assets'. */
  headers: Record<string, string>;
  /** GET /readyz asks it; absent: no /readyz. */
  readiness?: () => Promise<{ ready: boolean; down: string[] }>;
  visit(request: http.IncomingMessage, url: URL): SiteVisit;
}

export interface SiteServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
}

export function createSiteServer(options: SiteServerOptions): SiteServer {
  const { logger, name } = options;

  /** A failed answer as the visitor sees it; logged once, at the level it deserves. */
  const failed = (cause: unknown, visit: SiteVisit, path: string): PageReply => {
    // Its own doing, not an outage: logged at info and counted 499; nothing reaches the closed socket.
    if (cause instanceof ClientGone) return { status: clientClosedStatus };
    if (cause instanceof SessionStoreUnavailable) {
      logger.warn(`${name}: session store unavailable`, {
        path,
        error: (cause.cause as Error | undefined)?.message,
      });
      const html = visit.failurePage("server.unavailable", {});
      return { status: 503, html, headers: { "Retry-After": String(storeRetryAfterSeconds) } };
    }
    // A database that is down is no internal error: the page says so in the visitor's language, 503 with
    // Retry-After (RFC 9110 section 10.2.3), and the visitor reloads once it is back.
    const read = readServiceError(cause);
    if (read.code === "server.database_unavailable") {
      logger.warn(`${name}: database unavailable`, { path, error: cause });
      const params = Object.fromEntries(Object.entries(read.params).map(([key, value]) => [key, String(value)]));
      return {
        status: entryOf(read.code).status,
        html: visit.failurePage(read.code, params),
        headers: codeHeaders(read.code, params),
      };
    }
    logger.error(`${name} failure`, { path, error: cause });
    return { status: 500, html: visit.failurePage("server.internal", {}) };
  };

  const write = (response: http.ServerResponse, path: string, reply: PageReply) => {
    const headers: Record<string, string | string[]> = { ...options.headers, ...reply.headers };
    if (reply.cookies && reply.cookies.length > 0) headers["Set-Cookie"] = reply.cookies;
    if (reply.language && reply.html !== undefined) headers["Content-Language"] = reply.language;
    if (reply.location) headers["Location"] = reply.location;
    if (reply.html !== undefined) headers["Content-Type"] = siteContentType(path);
    // The length GET's body has, for HEAD too (RFC 9110 section 8.6): one write, no chunks.
    const body = reply.html ?? "";
    headers["Content-Length"] = String(Buffer.byteLength(body));
    response.writeHead(reply.status, headers);
    response.end(body); // node:http sends a HEAD answer's head only
  };

  const server = http.createServer(
    tracedSiteRequests(options.ids, (request, response) => {
      const started = performance.now();
      const method = request.method ?? "GET";
      let url: URL;
      try {
        url = siteUrl(request.url, options.base);
      } catch (error) {
        endAfterFailure(response, logger, error, "(unparsable)");
        return;
      }
      const path = url.pathname;
      // The stylesheet and scripts (hashed URLs, cacheable): no session, no language, none of the page headers.
      const asset = assetReply(method, path, request.headers["if-none-match"]);
      if (asset) {
        response.writeHead(asset.status, asset.headers);
        response.end(asset.body);
        return;
      }
      const visit = options.visit(request, url);
      const finish = (reply: PageReply) => (visit.finish ? visit.finish(reply) : reply);
      // Counted until it settles, so that shutdown waits for it even when its client has gone.
      const handling = probeReply(method, path, options.readiness, databaseRetryAfterSeconds)
        // Probes first: liveness needs nothing, readiness only the databases (no session read, no cookie).
        .then((probe) => probe ?? visit.answer())
        .catch((cause: unknown) => failed(cause, visit, path))
        .then((reply) => {
          write(response, path, finish(reply));
          logger.info(options.requestLine, {
            method: request.method,
            path,
            status: reply.status,
            ms: Math.round(performance.now() - started),
          });
        })
        .catch((error: unknown) => endAfterFailure(response, logger, error, path));
      listener.track(handling);
    }),
  );
  const listener = servedGracefully(server);
  return { listen: listener.listen, close: listener.close };
}
