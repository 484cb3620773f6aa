// The spans the program makes (issue 41), one helper per kind, each a no-op that costs one check when tracing is off
// (./tracing.ts, activeTracer): a public request's server span (HTTP semantic conventions), an RPC's client, server or
// in-process span (RPC semantic conventions), and the ids a log line carries so logs and traces join.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from "@opentelemetry/api";
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from "@opentelemetry/semantic-conventions";
import { activeTracer, withOfferedTraceId } from "./tracing.js";

// RPC attributes (semantic conventions, "RPC spans"); still "development" there, so not exported by the stable entry.
export const rpcSystemAttribute = "rpc.system";
export const rpcServiceAttribute = "rpc.service";
export const rpcMethodAttribute = "rpc.method";
export const grpcStatusAttribute = "rpc.grpc.status_code";

const headersGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};
const headersSetter: TextMapSetter<Headers> = { set: (carrier, key, value) => carrier.set(key, value) };

/** The trace and span ids of the active span, for log lines; undefined when tracing is off or outside a span. */
export function activeSpanIds(): { traceId: string; spanId: string } | undefined {
  if (!activeTracer()) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** The context carried by W3C `traceparent` (and `tracestate`) in `headers`; the root context without them. */
export function contextFromHeaders(headers: Headers): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headersGetter);
}

/**
 * A public request's server span, child of the caller's sampled or unsampled `traceparent` when it sent one, else
 * the root of a trace whose id is `traceId` (the request's correlation id in hex: src/runtime/trace-context.ts).
 * Undefined when tracing is off. Named `{method}` until its route is known (nameRequestSpan).
 */
export function startRequestSpan(
  describe: () => { method: string; path: string; headers: Headers },
  traceId: string,
): { span: Span; context: Context } | undefined {
  const tracer = activeTracer();
  if (!tracer) return undefined;
  // The request is described only when tracing is on: off, a request pays for nothing here but the check.
  const request = describe();
  const parent = contextFromHeaders(request.headers);
  const span = withOfferedTraceId(traceId, () =>
    tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: request.path,
          [ATTR_URL_SCHEME]: "http",
        },
      },
      parent,
    ),
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** Names the active request span by its route template (`GET /v1/items`), as HTTP semantic conventions ask. */
export function nameRequestSpan(method: string, route: string): void {
  const span = activeTracer() ? trace.getActiveSpan() : undefined;
  if (!span) return;
  span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.updateName(`${method} ${route}`);
}

/** Ends a request span with the status answered; a 5xx is an error of the server (HTTP semantic conventions). */
export function endRequestSpan(span: Span, status: number): void {
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

export interface RpcSpanOptions {
  kind: "client" | "server" | "internal";
  /** The protobuf service's full name and the method's name (`partnerapi.v1.DataService`, `ListItems`). */
  service: string;
  method: string;
  /** `grpc`, `connect_rpc`; none for a call in process. */
  system?: string;
  /** A client span writes its `traceparent` here; a server span reads its parent from here. */
  headers?: Headers;
  /** Spans this one follows from without being their child (a webhook attempt and the request that made it). */
  links?: Link[];
  /** The gRPC status code of an error (rpc.grpc.status_code), when it has one. */
  codeOf?: (error: unknown) => number | undefined;
}

/** Runs `work` in an RPC span (undefined tracer: just runs it). The span ends when `work` settles. */
export async function inRpcSpan<T>(options: RpcSpanOptions, work: () => Promise<T>): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return work();
  const parent = options.kind === "server" && options.headers ? contextFromHeaders(options.headers) : context.active();
  const attributes: Record<string, string> = {
    [rpcServiceAttribute]: options.service,
    [rpcMethodAttribute]: options.method,
  };
  if (options.system) attributes[rpcSystemAttribute] = options.system;
  const kind = { client: SpanKind.CLIENT, server: SpanKind.SERVER, internal: SpanKind.INTERNAL }[options.kind];
  const span = tracer.startSpan(
    `${options.service}/${options.method}`,
    { kind, attributes, links: options.links },
    parent,
  );
  const active = trace.setSpan(parent, span);
  if (options.kind === "client" && options.headers) propagation.inject(active, options.headers, headersSetter);
  try {
    const result = await context.with(active, work);
    if (options.system === "grpc") span.setAttribute(grpcStatusAttribute, 0);
    return result;
  } catch (error) {
    const code = options.codeOf?.(error);
    if (code !== undefined && options.system === "grpc") span.setAttribute(grpcStatusAttribute, code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
    throw error;
  } finally {
    span.end();
  }
}

/** Runs `work` (synchronous or not) with `spanContext` active: the front's request, inside its server span. */
export function withSpanContext<T>(active: Context, work: () => T): T {
  return context.with(active, work);
}

/**
 * The W3C `traceparent` of the active span when tracing is on and it is sampled (Trace Context section 3.2), to be
 * stored beside what the request commits (an outbox event) so later work can link back to it; else undefined.
 */
export function sampledTraceparent(): string | undefined {
  if (!activeTracer()) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || (spanContext.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-01`;
}

export interface LinkedSpanOptions {
  name: string;
  kind: "client" | "internal";
  attributes: Record<string, string | number>;
  /** The `traceparent` of the work this follows from (sampledTraceparent, stored): a link, not a parent. */
  linkedTo?: string | null;
}

/**
 * Runs `work` in the root span of a trace of its own, linked to the span that caused it (OpenTelemetry's "Links
 * between spans": work done later, for one or many requests); `work` may add attributes to the span (undefined when
 * tracing is off, and then `work` just runs).
 */
export async function inLinkedSpan<T>(
  options: LinkedSpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return work(undefined);
  const linked = options.linkedTo
    ? trace.getSpanContext(contextFromHeaders(new Headers({ traceparent: options.linkedTo })))
    : undefined;
  const span = tracer.startSpan(
    options.name,
    {
      kind: options.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
      attributes: options.attributes,
      links: linked ? [{ context: linked }] : [],
      root: true,
    },
    ROOT_CONTEXT,
  );
  try {
    return await context.with(trace.setSpan(ROOT_CONTEXT, span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
    throw error;
  } finally {
    span.end();
  }
}
