// The public /v1 front: a transcoder from JSON and form HTTP onto the services' unary RPCs. One request is a readable
// list of steps: match the route, admit a partner call (token, checks, rate limit, region: src/gateway), read the
// body, bind path and query, authenticate the client (Basic), validate strictly, call the service in process (or
// remotely, through the same interface), render the message or the error.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fromJson, type DescService, type JsonValue } from "@bufbuild/protobuf";
import { createContextValues } from "@connectrpc/connect";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { servedGracefully } from "../runtime/http-shutdown.js";
import { endAfterFailure } from "../runtime/last-resort.js";
import { callerInfoKey, correlationHeader } from "../runtime/caller-context.js";
import { clientAddress } from "../runtime/client-address.js";
import { vouchedClientHeader, type VouchedClients } from "../runtime/vouched-client.js";
import { addressRanges } from "../config/ip-addresses.js";
import { parseBasicCredentials } from "./client-credentials.js";
import { collectParams, readBody, maxRequestFields, tooManyFields } from "./request-body.js";
import { parseUrlEncoded, type UrlEncoded } from "../runtime/urlencoded.js";
import { FrontCall, type FrontCallDeps } from "./front-call.js";
import { Refusal } from "./refusal.js";
import { createRequestSchema, messageToJson, type InputKind, type RequestSchema } from "../runtime/wire/index.js";
import { validationCode } from "./render-error.js";
import type { AdmittedCall, PartnerAdmission, PartnerIdentity } from "./partner-admission.js";
import type { PartnerCallRecord } from "../request-log/index.js";
import { createRouteTable, type Route } from "./route-table.js";
import { buildOpenApiDocument, openApiPath, type OpenApiOptions } from "./openapi.js";
import type { ReferenceFiles } from "./reference-page.js";
import type { ServiceCaller } from "../runtime/service-caller.js";
import type { Metrics } from "../runtime/metrics.js";
import { addToLogContext, runWithLogContext } from "../runtime/log-context.js";
import { answeredAsProbe, type Readiness } from "./probes.js";
import { answerHeaderOverflow } from "./header-overflow.js";
import { requestIdHeader, traceContextOf, traceparentFor, traceparentHeader } from "../runtime/trace-context.js";
import { endRequestSpan, inRpcSpan, nameRequestSpan, startRequestSpan, withSpanContext } from "../runtime/spans.js";

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
  readiness?: Readiness;
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
  /**
   * The app of a client id: the calls of the OAuth endpoints that authenticate a client (token, pushed requests,
   * revocation) go in that app's request log, refused ones too, when the id they sent is one. Absent: not logged.
   */
  identifyClient?: (clientId: string) => Promise<PartnerIdentity | undefined>;
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

  const callDeps: FrontCallDeps = {
    clock: options.clock,
    logger: options.logger,
    metrics: options.metrics,
    requestLog: options.requestLog,
    identifyClient: options.identifyClient,
    requestTimeoutMs,
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
    const spanned = startRequestSpan(
      () => ({
        method: request.method ?? "GET",
        path: (request.url ?? "/").split("?")[0] ?? "/",
        headers: spanHeaders(request),
      }),
      trace.traceId,
    );
    if (!spanned)
      return runWithLogContext({ correlationId: trace.correlationId, traceId: trace.traceId }, () =>
        handleTraced(request, response, trace),
      );
    // Tracing on: the log lines carry the span's trace and span ids, so logs and traces join (issue 41).
    const { traceId, spanId } = spanned.span.spanContext();
    response.once("close", () => endRequestSpan(spanned.span, response.statusCode));
    return withSpanContext(spanned.context, () =>
      runWithLogContext({ correlationId: trace.correlationId, traceId, spanId }, () =>
        handleTraced(request, response, trace),
      ),
    );
  };

  /** One request, step by step; a step that cannot go on throws, and the call answers what it threw. */
  const handleTraced = async (request: http.IncomingMessage, response: http.ServerResponse, trace: Trace) => {
    const url = new URL(request.url ?? "/", "http://front.invalid");
    const call = new FrontCall(callDeps, request, response, url, trace.correlationId);
    try {
      if (await answeredAsProbe(call, options.readiness)) return;
      if (answeredAsDocument(call)) return;
      const { prepared, pathParams } = routeOf(call);
      const clientIp = clientAddressOf(request);
      // The query string, decoded once in time linear in its length (src/runtime/urlencoded.ts); its problems are
      // answered after authentication, like those of a body.
      const query = parseUrlEncoded(url.search.slice(1), maxRequestFields);
      const admitted = await admitPartner(call, prepared, query, clientIp);
      const fields = withBasicCredentials(call, prepared, await readFields(call, prepared, query));
      if (prepared.takesClientCredentials && typeof fields.fields["client_id"] === "string")
        call.clientId = fields.fields["client_id"];
      const input = validated(prepared, fields, pathParams);
      const output = await send(call, prepared, { admitted, input, trace, clientIp });
      render(call, prepared, output);
    } catch (thrown) {
      call.settle(thrown);
    }
  };

  /** The OpenAPI document, built at start from this route table (anonymous, not a partner call, not limited), and
   * the reference page's files. */
  const answeredAsDocument = (call: FrontCall): boolean => {
    if (call.request.method !== "GET") return false;
    const { pathname } = call.url;
    if (pathname === openApiPath && openApiDocument) {
      call.label("openapi", openApiPath);
      call.answer(200, { "Cache-Control": "public, max-age=300" }, openApiDocument);
      return true;
    }
    const referenceFile = options.reference?.get(pathname);
    if (referenceFile) call.answerFile(referenceFile);
    return referenceFile !== undefined;
  };

  /** The route of the method and path: 404, or 405 naming the methods it has (Allow). */
  const routeOf = (call: FrontCall): { prepared: PreparedRoute; pathParams: Record<string, string> } => {
    const match = table.match(call.request.method ?? "GET", call.url.pathname);
    call.label(
      match.kind === "found" ? match.route.family : match.family,
      match.kind === "found" ? match.route.template.source : "unmatched",
    );
    if (match.kind === "not_found") {
      throw Refusal.of(
        call.url.pathname === "/.well-known/openid-configuration"
          ? { code: "request.not_an_openid_provider", params: {} }
          : { code: "request.route_not_found", params: {} },
      );
    }
    if (match.kind === "method_not_allowed") {
      const allow = match.allow.join(", ");
      call.response.setHeader("Allow", allow);
      throw Refusal.of({ code: "request.method_not_allowed", params: { allow } });
    }
    addToLogContext({ route: call.routeLabel });
    nameRequestSpan(call.request.method ?? "GET", call.routeLabel);
    return { prepared: prepared.get(match.route)!, pathParams: match.pathParams };
  };

  /** Partner calls: authentication precedes reading and validating anything the client sent. */
  const admitPartner = async (
    call: FrontCall,
    { route }: PreparedRoute,
    query: UrlEncoded,
    clientIp: string,
  ): Promise<AdmittedCall | undefined> => {
    if (!options.partner || !route.partnerCall) return undefined;
    const outcome = await options.partner.admit({
      authorization: call.request.headers.authorization,
      dpop: call.request.headers.dpop,
      method: call.request.method ?? "GET",
      path: call.url.pathname,
      apiKey: headerValue(call.request.headers["x-api-key"]),
      companyId: pairsOf(query).find(([name]) => name === "companyId")?.[1],
      clientAddress: clientIp,
      scope: route.scope,
      sandboxOnly: route.sandboxOnly,
    });
    call.callHeaders = outcome.headers;
    call.partner = outcome.partner;
    if (!outcome.ok) throw Refusal.of(outcome.error);
    return outcome;
  };

  /** The fields: the body for body:"*" routes, the query string otherwise; names not UTF-8 are refused by name. */
  const readFields = async (call: FrontCall, { route }: PreparedRoute, query: UrlEncoded): Promise<ReadFields> => {
    if (query.kind === "too_many") throw Refusal.invalid(tooManyFields("(query)").violations);
    if (!route.bodyIsRequest) {
      refuseNotUtf8(query.notUtf8);
      return { fields: collectParams(query.pairs), kind: "text" };
    }
    const body = await readBody(call.request, options.bodyLimitBytes);
    if (body.kind === "error") throw Refusal.of({ code: body.code, params: paramsOfBodyError(body) });
    if (body.kind === "invalid") throw Refusal.invalid(body.violations);
    if (body.kind === "json" && (typeof body.value !== "object" || body.value === null || Array.isArray(body.value)))
      throw Refusal.of({ code: "request.malformed_body", params: {} });
    // Parameters of a body route travel in the body only (RFC 6749 section 3.2 for the token endpoint).
    const inQuery = [...new Set(query.pairs.map(([name]) => name))];
    if (inQuery.length > 0)
      throw Refusal.invalid(
        inQuery.map((field) => ({ field, rule: "must be sent in the body, not the query string" })),
      );
    if (body.kind === "form") refuseNotUtf8(body.invalidUtf8);
    return {
      fields: body.kind === "empty" ? {} : (body.value as Record<string, unknown>),
      kind: body.kind === "json" ? "json" : "text",
    };
  };

  /** Client authentication by HTTP Basic (RFC 6749 section 2.3.1), never together with body credentials. */
  const withBasicCredentials = (call: FrontCall, prepared: PreparedRoute, read: ReadFields): ReadFields => {
    if (!prepared.takesClientCredentials) return read;
    const basic = parseBasicCredentials(call.request.headers.authorization);
    if (basic === "malformed") throw Refusal.of({ code: "developer.invalid_client", params: {} });
    if (!basic) return read;
    const { fields } = read;
    if ("client_secret" in fields || ("client_id" in fields && fields["client_id"] !== basic.clientId))
      throw Refusal.of({ code: validationCode[call.family], params: { fields: "client_id, client_secret" } });
    return { ...read, fields: { ...fields, client_id: basic.clientId, client_secret: basic.clientSecret } };
  };

  /** Validates strictly, before any service code runs: the request message, or every violation at once. */
  const validated = (
    { route, schema }: PreparedRoute,
    { fields, kind }: ReadFields,
    pathParams: Record<string, string>,
  ) => {
    const checked = schema.validate(fields, kind, pathParams);
    if (!checked.ok) throw Refusal.invalid(checked.violations);
    return fromJson(route.method.input, checked.value as JsonValue);
  };

  /** Calls the service: a partner call through its admission (to its merchant's region), any other in process. */
  const send = (
    call: FrontCall,
    { route, caller, forwarded }: PreparedRoute,
    { admitted, input, trace, clientIp }: { admitted?: AdmittedCall; input: Message; trace: Trace; clientIp: string },
  ) => {
    // The trace crosses a hop as W3C traceparent, with a new parent-id for the hop (Trace Context section 3.2).
    const headers = new Headers({
      [correlationHeader]: trace.correlationId,
      [traceparentHeader]: traceparentFor(trace),
    });
    for (const name of forwarded) {
      const value = call.request.headers[name];
      if (typeof value === "string") headers.set(name, value);
    }
    const values = createContextValues().set(callerInfoKey, {
      clientAddress: clientIp,
      path: call.url.pathname,
      correlationId: trace.correlationId,
    });
    const unary = { method: route.method, input, headers, values, signal: call.abort.signal, url: call.url.href };
    // The service's call, in process or over a region's hop, is a child span of the request's.
    return inRpcSpan({ kind: "internal", service: route.service.typeName, method: route.method.name }, () =>
      admitted ? admitted.send(unary) : caller.call(unary),
    );
  };

  /** The answer: the output message in the route's content type and caching. */
  const render = (call: FrontCall, { route }: PreparedRoute, output: Message) => {
    const successHeaders: Record<string, string> = { "Content-Type": route.contentType };
    if (route.cacheControl) successHeaders["Cache-Control"] = route.cacheControl;
    if (route.cacheControl === "no-store") successHeaders["Pragma"] = "no-cache";
    call.answer(route.successStatus, successHeaders, messageToJson(route.method.output, output));
  };

  /** The client address after TRUST_PROXY (or a vouched client's, src/runtime/vouched-client.ts). */
  const clientAddressOf = (request: http.IncomingMessage) =>
    options.vouchedClients?.addressOf(request.headers[vouchedClientHeader]) ??
    clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"], trustedProxies);

  const server = http.createServer((request, response) => {
    listener.track(
      handle(request, response).catch((error: unknown) =>
        endAfterFailure(response, options.logger, error, request.url ?? ""),
      ),
    );
  });
  const listener = servedGracefully(server);
  server.on("clientError", answerHeaderOverflow({ ...options, table }));
  return { handle, listen: listener.listen, close: listener.close, routes: table.routes };
}

type Trace = ReturnType<typeof traceContextOf>;
type Message = ReturnType<typeof fromJson>;

/** The fields a request sent, and how they were spelled (JSON values, or text of a query string or form). */
interface ReadFields {
  fields: Record<string, unknown>;
  kind: InputKind;
}

/** The W3C trace headers a request sent, as the propagator reads them (only these two: nothing else is copied). */
function spanHeaders(request: http.IncomingMessage): Headers {
  const headers = new Headers();
  const traceparent = headerValue(request.headers[traceparentHeader]);
  const tracestate = headerValue(request.headers["tracestate"]);
  if (traceparent !== undefined) headers.set(traceparentHeader, traceparent);
  if (tracestate !== undefined) headers.set("tracestate", tracestate);
  return headers;
}

/** The decoded query's pairs; none when it had too many (refused once the call is admitted). */
function pairsOf(query: UrlEncoded): ReadonlyArray<[string, string]> {
  return query.kind === "pairs" ? query.pairs : [];
}

/** Names whose percent-encoded text is not UTF-8 are refused, naming them, like any other bad value. */
function refuseNotUtf8(names: readonly string[]): void {
  if (names.length > 0)
    throw Refusal.invalid(names.map((field) => ({ field, rule: "must be valid UTF-8 once percent-decoded" })));
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
