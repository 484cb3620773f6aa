// The public /v1 front: a transcoder from JSON and form HTTP onto the services' unary RPCs. One request is a readable
// list of steps: match the route, admit a partner call (token, checks, rate limit, region: src/gateway), read the
// body, bind path and query, authenticate the client (Basic), validate strictly, call the service in process (or
// remotely, through the same interface), render the message or the error.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fromJson, type DescService, type JsonValue } from "@bufbuild/protobuf";
import { createContextValues, type ConnectError } from "@connectrpc/connect";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { servedGracefully } from "../runtime/http-shutdown.js";
import { endAfterFailure } from "../runtime/last-resort.js";
import { readServiceError, type ErrorToRender } from "../errors/index.js";
import { databaseRetryAfterSeconds } from "../storage/unavailable.js";
import { callerInfoKey, correlationHeader } from "../runtime/caller-context.js";
import { clientAddress } from "../runtime/client-address.js";
import { vouchedClientHeader, type VouchedClients } from "../runtime/vouched-client.js";
import { addressRanges } from "../config/ip-addresses.js";
import { parseBasicCredentials } from "./client-credentials.js";
import { collectParams, readBody, maxRequestFields, tooManyFields } from "./request-body.js";
import { parseUrlEncoded } from "../runtime/urlencoded.js";
import { ClientGone, clientClosedStatus } from "../runtime/client-gone.js";
import { summarizeViolations } from "./violation-summary.js";
import {
  createRequestSchema,
  messageToJson,
  type FieldViolation,
  type InputKind,
  type RequestSchema,
} from "../runtime/wire/index.js";
import { renderError, validationCode } from "./render-error.js";
import type { AdmittedCall, PartnerAdmission, PartnerIdentity } from "./partner-admission.js";
import type { PartnerCallRecord } from "../request-log/index.js";
import { createRouteTable, type Family, type Route } from "./route-table.js";
import { buildOpenApiDocument, openApiPath, type OpenApiOptions } from "./openapi.js";
import type { ReferenceFile, ReferenceFiles } from "./reference-page.js";
import type { ServiceCaller } from "../runtime/service-caller.js";
import type { Metrics } from "../runtime/metrics.js";
import { addToLogContext, runWithLogContext } from "../runtime/log-context.js";
import { requestIdHeader, traceContextOf, traceparentFor, traceparentHeader } from "../runtime/trace-context.js";

export interface FrontOptions {
  /**
   * The services whose annotated RPCs become routes, each with the caller that reaches it and the request headers
   * it reads (beside Accept-Language, which every service may read for its messages). Nothing else a client sent
   * reaches a service: a partner's Authorization and X-API-Key end at the gateway.
   */
  services: ReadonlyArray<{ service: DescService; caller: ServiceCaller; reads?: readonly string[] }>;
  /** Admits calls to routes of the partner family (src/gateway/); without it they go straight to their service. */
  partner?: PartnerAdmission;
  bodyLimitBytes: number;
  /**
   * The end-to-end deadline of a request: past it the call is aborted (its service stops waiting and frees what it
   * holds) and the client gets 504 server.timeout. Default 15 s (REQUEST_TIMEOUT_SECONDS).
   */
  requestTimeoutMs?: number;
  /** Trusted proxies (TRUST_PROXY: addresses and CIDR ranges); X-Forwarded-For is read only from them. */
  trustProxy: readonly string[];
  /** Callers of this process that speak for a client, with proof (the console's first call): src/runtime/vouched-client.ts. */
  vouchedClients?: VouchedClients;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  /** GET /readyz asks it; absent: no /readyz. GET /healthz (liveness) needs nothing. */
  readiness?: () => Promise<{ ready: boolean; down: string[] }>;
  /** Serves the OpenAPI description of the routes at GET /v1/openapi.json; absent: not served. */
  openapi?: OpenApiOptions;
  /** Serves the reference page rendering that document at GET /v1/reference, with its files (loadReferenceFiles). */
  reference?: ReferenceFiles;
  /** Request counts and latencies by family, route template and status; absent: not counted. */
  metrics?: Metrics;
  /**
   * The partner request log (src/request-log/): every answered partner call whose app the admission named, handed
   * over after the answer is written; `record` only buffers. Absent: nothing recorded.
   */
  requestLog?: { record(call: PartnerCallRecord): void };
}

export interface FrontServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
  /** The request handler, for embedding in another server. */
  handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void>;
  /** Every route this front serves, from its services' annotations (the fuzzer in CI walks them all). */
  routes: readonly Route[];
}

/** The one client header every service may read. */
const alwaysForwarded = ["accept-language"] as const;

interface PreparedRoute {
  route: Route;
  schema: RequestSchema;
  caller: ServiceCaller;
  /** The client headers this route's service reads. */
  forwarded: readonly string[];
  /** Whether the request message carries client credentials that may also come as HTTP Basic. */
  takesClientCredentials: boolean;
}

export function createFrontServer(options: FrontOptions): FrontServer {
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const trustedProxies = addressRanges(options.trustProxy);
  const byService = new Map(options.services.map((entry) => [entry.service.typeName, entry]));
  const table = createRouteTable(options.services.map(({ service }) => service));
  const prepared = new Map<Route, PreparedRoute>();
  const openApiDocument = options.openapi ? buildOpenApiDocument(table, options.openapi) : undefined;
  for (const route of table.routes) {
    const pathFields = route.template.segments.flatMap((segment) => ("variable" in segment ? [segment.variable] : []));
    const fieldNames = new Set(route.method.input.fields.map((field) => field.name));
    prepared.set(route, {
      route,
      schema: createRequestSchema(route.method.input, pathFields),
      caller: byService.get(route.service.typeName)!.caller,
      forwarded: [...alwaysForwarded, ...(byService.get(route.service.typeName)!.reads ?? [])],
      takesClientCredentials: fieldNames.has("client_id") && fieldNames.has("client_secret"),
    });
  }

  /** Bounded label values only: a route template, a probe's fixed path, or "unmatched"; never the raw path. */
  const count = (
    labels: { family: string; route: string; method: string | undefined; status: number },
    seconds: number,
  ) => {
    if (!options.metrics) return;
    const values = {
      family: labels.family,
      route: labels.route,
      method: knownMethods.has(labels.method ?? "") ? labels.method! : "other",
      status: String(labels.status),
    };
    options.metrics.httpRequests.inc(values);
    options.metrics.httpRequestDuration.observe(values, seconds);
  };

  // Every line logged while serving a request (here, in the gateway, in the services) carries its correlation and
  // trace ids, and its route, app and company once known (src/runtime/log-context.ts).
  const handle = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const trace = traceContextOf(
      {
        requestId: headerValue(request.headers[requestIdHeader]),
        traceparent: headerValue(request.headers[traceparentHeader]),
      },
      options.ids.uuid,
    );
    return runWithLogContext({ correlationId: trace.correlationId, traceId: trace.traceId }, () =>
      handleTraced(request, response, trace),
    );
  };

  const handleTraced = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    trace: ReturnType<typeof traceContextOf>,
  ) => {
    const started = performance.now();
    const { correlationId } = trace;
    const url = new URL(request.url ?? "/", "http://front.invalid");
    const acceptLanguage = request.headers["accept-language"];
    let family: Family = "partner";
    // The metrics' labels: a family of the route table, or "probe" / "openapi"; a route template or "unmatched".
    let familyLabel: string = family;
    let routeLabel = "unmatched";
    // Headers every answer from here on carries (a partner call's X-RateLimit-*, once the gateway knows the app).
    let callHeaders: Record<string, string> = {};
    // Who the call is from, once the gateway says: the request log records the answer under it.
    let partnerOf: PartnerIdentity | undefined;
    let errorCode: string | undefined;
    const answer = (status: number, headers: Record<string, string>, body: object) => {
      // Already answered (the deadline below, or a client gone): the late outcome of the call is dropped.
      if (response.headersSent || response.destroyed) return;
      clearTimeout(deadline);
      // nosniff: every answer is JSON and must never be read as HTML or script, errors and 404s included.
      response.writeHead(status, {
        "Content-Type": "application/json",
        "X-Content-Type-Options": "nosniff",
        "X-Correlation-Id": correlationId,
        ...callHeaders,
        ...headers,
      });
      response.end(JSON.stringify(body));
      const seconds = (performance.now() - started) / 1000;
      if (partnerOf && options.requestLog) {
        // After the answer is written; a success's body is never recorded, a refusal's (our own envelope) is.
        options.requestLog.record({
          appId: partnerOf.appId,
          environment: partnerOf.environment,
          at: options.clock.now(),
          method: request.method ?? "GET",
          path: url.pathname,
          status,
          errorCode,
          companyId: partnerOf.companyId,
          correlationId,
          latencyMs: Math.round(seconds * 10_000) / 10,
          errorBody: status >= 400 ? body : undefined,
        });
      }
      // The request line: correlation and trace ids, route, app and company come from the log context.
      options.logger.info("request", {
        method: request.method,
        path: url.pathname,
        family: familyLabel,
        route: routeLabel,
        status,
        ms: Math.round(seconds * 10_000) / 10,
      });
      count({ family: familyLabel, route: routeLabel, method: request.method, status }, seconds);
    };
    // The reference page and its files: HTML, script, style, image, with their own type, cache and CSP headers.
    const answerFile = (file: ReferenceFile) => {
      response.writeHead(200, {
        "X-Correlation-Id": correlationId,
        "Content-Length": String(file.body.length),
        ...file.headers,
      });
      response.end(file.body);
      const seconds = (performance.now() - started) / 1000;
      // The file's path is one of the reference page's fixed set: a bounded label.
      options.logger.info("request", {
        method: request.method,
        path: url.pathname,
        family: "reference",
        route: url.pathname,
        status: 200,
        ms: Math.round(seconds * 10_000) / 10,
      });
      count({ family: "reference", route: url.pathname, method: request.method, status: 200 }, seconds);
    };
    // The client closing before its answer is written aborts the service call; it is counted and logged as what it
    // is (499, info), never as an outage or a 5xx (src/runtime/client-gone.ts).
    const abort = new AbortController();
    response.once("close", () => {
      if (!response.writableFinished) abort.abort();
    });
    // The request's own deadline, end to end: whatever it waits for (the body, the database, a region), the client
    // hears 504 server.timeout by then, and the call is aborted so that it stops waiting and frees what it holds.
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      abort.abort();
      options.logger.warn("request deadline passed", { path: url.pathname, route: routeLabel, ms: requestTimeoutMs });
      // Whatever of its body is still coming is not read: the connection ends with the answer.
      if (!response.headersSent) response.setHeader("Connection", "close");
      fail({ code: "server.timeout", params: {} });
    }, requestTimeoutMs);
    deadline.unref();
    const gone = (cause: unknown) => {
      clearTimeout(deadline);
      const seconds = (performance.now() - started) / 1000;
      options.logger.info("client went away", {
        method: request.method,
        path: url.pathname,
        family: familyLabel,
        route: routeLabel,
        status: clientClosedStatus,
        ms: Math.round(seconds * 10_000) / 10,
        reason: cause instanceof ClientGone ? "closed while sending its request" : "closed before its answer",
      });
      count({ family: familyLabel, route: routeLabel, method: request.method, status: clientClosedStatus }, seconds);
      response.destroy();
    };
    const fail = (error: ErrorToRender, cause?: unknown) => {
      if (error.code === "server.internal") {
        options.logger.error("unexpected failure", { correlationId, path: url.pathname, error: cause });
      } else if (error.code === "server.database_unavailable") {
        options.logger.warn("database unavailable", { correlationId, path: url.pathname, error: cause });
      }
      const timestamp = new Date(options.clock.now()).toISOString();
      errorCode = error.code;
      const rendered = renderError(error, { family, acceptLanguage, path: url.pathname, timestamp, correlationId });
      if (error.code === "request.body_too_large") rendered.headers["Connection"] = "close";
      answer(rendered.status, rendered.headers, rendered.body);
    };
    // A validation failure names at most a few fields, each cut short: the answer's size is bounded by a constant,
    // never by the input (a body of 16,716 unknown names got a 932 KB answer; issue 27).
    const invalid = (violations: readonly FieldViolation[]) => {
      const summary = summarizeViolations(violations);
      return fail({ code: validationCode[family], params: { fields: summary.fields }, details: summary.details });
    };

    try {
      // 0. Probes, before any route, limit or authentication: /healthz is liveness (the process answers), /readyz
      // readiness (its databases answer; 503 naming those that do not, so a balancer sends traffic elsewhere).
      if (url.pathname === "/healthz" || url.pathname === "/readyz")
        [familyLabel, routeLabel] = ["probe", url.pathname];
      if (request.method === "GET" && url.pathname === "/healthz")
        return answer(200, { "Cache-Control": "no-store" }, { status: "ok" });
      if (request.method === "GET" && url.pathname === "/readyz" && options.readiness) {
        const { ready, down } = await options.readiness();
        return ready
          ? answer(200, { "Cache-Control": "no-store" }, { status: "ready" })
          : answer(
              503,
              { "Cache-Control": "no-store", "Retry-After": String(databaseRetryAfterSeconds) },
              { status: "not_ready", down },
            );
      }

      // The OpenAPI document, built at start from this route table: anonymous, not a partner call, not limited.
      if (request.method === "GET" && url.pathname === openApiPath && openApiDocument)
        [familyLabel, routeLabel] = ["openapi", openApiPath];
      if (request.method === "GET" && url.pathname === openApiPath && openApiDocument)
        return answer(200, { "Cache-Control": "public, max-age=300" }, openApiDocument);
      const referenceFile = request.method === "GET" ? options.reference?.get(url.pathname) : undefined;
      if (referenceFile) return answerFile(referenceFile);

      // 1. Route.
      const match = table.match(request.method ?? "GET", url.pathname);
      family = match.kind === "found" ? match.route.family : match.family;
      familyLabel = family;
      routeLabel = match.kind === "found" ? match.route.template.source : "unmatched";
      if (match.kind === "found") addToLogContext({ route: routeLabel });
      if (match.kind === "not_found") return fail({ code: "request.route_not_found", params: {} });
      if (match.kind === "method_not_allowed") {
        const allow = match.allow.join(", ");
        const rendered = { code: "request.method_not_allowed", params: { allow } } as const;
        response.setHeader("Allow", allow);
        return fail(rendered);
      }
      const { route, schema, caller, forwarded, takesClientCredentials } = prepared.get(match.route)!;
      const clientIp =
        options.vouchedClients?.addressOf(request.headers[vouchedClientHeader]) ??
        clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);
      // The query string, decoded once in time linear in its length (src/runtime/urlencoded.ts); its problems are
      // answered after authentication, like those of a body.
      const query = parseUrlEncoded(url.search.slice(1), maxRequestFields);
      const queryPairs = query.kind === "pairs" ? query.pairs : [];

      // 2. Partner calls: authentication precedes reading and validating anything the client sent.
      let admitted: AdmittedCall | undefined;
      if (options.partner && route.partnerCall) {
        const outcome = await options.partner.admit({
          authorization: request.headers.authorization,
          apiKey: headerValue(request.headers["x-api-key"]),
          companyId: queryPairs.find(([name]) => name === "companyId")?.[1],
          clientAddress: clientIp,
          scope: route.scope,
          sandboxOnly: route.sandboxOnly,
        });
        callHeaders = outcome.headers;
        partnerOf = outcome.partner;
        if (!outcome.ok) return fail(outcome.error);
        admitted = outcome;
      }

      // 3. Read the fields: the body for body:"*" routes, the query string otherwise.
      let fields: Record<string, unknown>;
      let kind: InputKind;
      // Names whose percent-encoded text is not UTF-8: refused below, naming them, like any other bad value.
      let notUtf8: string[] = [];
      if (query.kind === "too_many") return invalid(tooManyFields("(query)").violations);
      if (route.bodyIsRequest) {
        const body = await readBody(request, options.bodyLimitBytes);
        if (body.kind === "error") return fail({ code: body.code, params: paramsOfBodyError(body) });
        if (body.kind === "invalid") return invalid(body.violations);
        if (
          body.kind === "json" &&
          (typeof body.value !== "object" || body.value === null || Array.isArray(body.value))
        ) {
          return fail({ code: "request.malformed_body", params: {} });
        }
        fields = body.kind === "empty" ? {} : (body.value as Record<string, unknown>);
        kind = body.kind === "json" ? "json" : "text";
        if (body.kind === "form") notUtf8 = body.invalidUtf8;
        // Parameters of a body route travel in the body only (RFC 6749 section 3.2 for the token endpoint).
        const inQuery = [...new Set(queryPairs.map(([name]) => name))];
        if (inQuery.length > 0)
          return invalid(inQuery.map((field) => ({ field, rule: "must be sent in the body, not the query string" })));
      } else {
        fields = collectParams(queryPairs);
        kind = "text";
        notUtf8 = query.kind === "pairs" ? query.notUtf8 : [];
      }
      if (notUtf8.length > 0)
        return invalid(notUtf8.map((field) => ({ field, rule: "must be valid UTF-8 once percent-decoded" })));

      // 4. Client authentication by HTTP Basic (RFC 6749 section 2.3.1), never together with body credentials.
      if (takesClientCredentials) {
        const basic = parseBasicCredentials(request.headers.authorization);
        if (basic === "malformed") return fail({ code: "developer.invalid_client", params: {} });
        if (basic) {
          if ("client_secret" in fields || ("client_id" in fields && fields["client_id"] !== basic.clientId)) {
            return fail({ code: validationCode[family], params: { fields: "client_id, client_secret" } });
          }
          fields = { ...fields, client_id: basic.clientId, client_secret: basic.clientSecret };
        }
      }

      // 5. Validate strictly, before any service code runs.
      const validated = schema.validate(fields, kind, match.pathParams);
      if (!validated.ok) return invalid(validated.violations);
      const input = fromJson(route.method.input, validated.value as JsonValue);
      // The trace crosses a hop as W3C traceparent, with a new parent-id for the hop (Trace Context section 3.2).
      const headers = new Headers({ [correlationHeader]: correlationId, [traceparentHeader]: traceparentFor(trace) });
      for (const name of forwarded) {
        const value = request.headers[name];
        if (typeof value === "string") headers.set(name, value);
      }
      if (admitted) {
        const refused = options.partner!.bind(admitted, input, headers);
        if (refused) return fail(refused);
      }

      // 6. Call the service: a partner call goes to its merchant's region.
      const values = createContextValues().set(callerInfoKey, {
        clientAddress: clientIp,
        path: url.pathname,
        correlationId,
      });
      const output = await (admitted?.caller ?? caller).call({
        method: route.method,
        input,
        headers,
        values,
        signal: abort.signal,
        url: url.href,
      });

      // 7. Render.
      const successHeaders: Record<string, string> = { "Content-Type": route.contentType };
      if (route.cacheControl) successHeaders["Cache-Control"] = route.cacheControl;
      if (route.cacheControl === "no-store") successHeaders["Pragma"] = "no-cache";
      answer(200, successHeaders, messageToJson(route.method.output, output));
    } catch (err) {
      if (timedOut) return;
      if (err instanceof ClientGone || abort.signal.aborted) return gone(err);
      const error = readServiceError(err);
      fail(error, error.code === "server.internal" ? err : ((err as ConnectError).cause ?? err));
    }
  };

  const server = http.createServer((request, response) => {
    listener.track(
      handle(request, response).catch((error: unknown) =>
        endAfterFailure(response, options.logger, error, request.url ?? ""),
      ),
    );
  });
  const listener = servedGracefully(server);
  // A request line and headers over Node's limit (16 KiB: a huge query string) never reach `handle`; Node would
  // answer a bare 431 without a body. Answer it in the family of the path (RFC 6585 section 5) instead; every other
  // parse error keeps Node's own answer (400, or 408 for a timeout).
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
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
    count({ family, route, method: requestLine?.[1], status: 431 }, 0);
  });
  return { handle, listen: listener.listen, close: listener.close, routes: table.routes };
}

/** The methods a metric label may name; anything else is "other" (a label's values stay bounded). */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * X-Request-Id and traceparent read from the raw head of a request Node refused (431), so even that answer reuses
 * the caller's ids. Only the first 16 KiB are looked at; a header past it is simply not found.
 */
function requestIdsOf(rawPacket: Buffer | undefined): { requestId?: string; traceparent?: string } {
  const head = rawPacket?.subarray(0, 16_384).toString("latin1") ?? "";
  const find = (name: string) => new RegExp(`\\r\\n${name}:[ \\t]*([^\\r\\n]*)`, "i").exec(head)?.[1]?.trim();
  return { requestId: find("x-request-id"), traceparent: find("traceparent") };
}

/** A header sent once, as a string; absent (or repeated, which no single value can stand for) as undefined. */
function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function paramsOfBodyError(body: {
  code: string;
  contentType?: string;
  limit?: number;
}): Record<string, string | number> {
  if (body.code === "request.unsupported_media_type") return { contentType: body.contentType! };
  if (body.code === "request.body_too_large") return { limit: body.limit! };
  return {};
}
