// Traces through OpenTelemetry (issue 41): on only when an OTLP endpoint is configured, by the standard variables of
// the OpenTelemetry specification ("Environment Variable Specification", "OTLP Exporter Configuration"); off, nothing
// is registered and the spans of ./spans.ts are not even started (the API stays on its no-op tracer).
//
// Read here, from the environment main.ts passes: OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER (otlp or none),
// OTEL_EXPORTER_OTLP_ENDPOINT (the base: /v1/traces appended), OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is),
// OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG. The exporter reads its own headers, timeout and
// compression (OTEL_EXPORTER_OTLP_[TRACES_]HEADERS, _TIMEOUT, _COMPRESSION) from the process environment. The payload
// is OTLP/HTTP (OTLP specification, "OTLP/HTTP"), binary protobuf by default as the specification's default protocol
// is http/protobuf, or JSON with OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/json; grpc is a ConfigError. Our own
// TRACE_STORAGE_SPANS=1 adds a span per database statement and Redis command (src/storage/store-spans.ts).
import { trace, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  type Sampler,
} from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { ConfigError } from "../config/config.js";

/** Every variable this module reads (the configuration page documents each; deployment manifests may set them). */
export const tracingEnvironmentNames: readonly string[] = [
  "OTEL_SDK_DISABLED",
  "OTEL_TRACES_EXPORTER",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
  "OTEL_SERVICE_NAME",
  "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG",
  "TRACE_STORAGE_SPANS",
];

/** The service name when OTEL_SERVICE_NAME is not set. */
export const defaultServiceName = "partner-api";

/** The resource attribute naming which role (`all`, `front`, `worker`, `data`) a process runs. */
export const roleAttribute = "partner_api.role";

type Environment = Record<string, string | undefined>;

export interface Tracing {
  /** Exports what is buffered now (tests; a stop shuts down instead). */
  flush(): Promise<void>;
  /** Exports what is buffered, then stops: the last thing a stopping process does. */
  shutdown(): Promise<void>;
}

let tracer: Tracer | undefined;
let storageSpans = false;

/** The tracer when tracing is on, else undefined: the one check every span site makes (./spans.ts). */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/**
 * Whether stores opened now wrap their calls in spans: tracing on and TRACE_STORAGE_SPANS=1. Asked once, when a
 * database or Redis is opened, so with it off a statement pays not even a check.
 */
export function storageSpansOn(): boolean {
  return tracer !== undefined && storageSpans;
}

/** The OTLP/HTTP encodings this program sends: OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL's values. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** Where and how traces go, or undefined when tracing is off. */
export function tracesExport(env: Environment): { url: string; protocol: OtlpProtocol } | undefined {
  const url = tracesEndpoint(env);
  return url === undefined ? undefined : { url, protocol: protocolOf(env) };
}

/** The OTLP/HTTP traces URL the environment names, or undefined when tracing is off. */
export function tracesEndpoint(env: Environment): string | undefined {
  if (env["OTEL_SDK_DISABLED"]?.trim().toLowerCase() === "true") return undefined;
  const exporter = env["OTEL_TRACES_EXPORTER"]?.trim().toLowerCase();
  if (exporter === "none") return undefined;
  if (exporter && exporter !== "otlp")
    throw new ConfigError(`OTEL_TRACES_EXPORTER: "${exporter}" is not supported here (otlp or none)`);
  const traces = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim();
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim();
  // The signal-specific URL is used as is; the base gets the signal's path (OTLP Exporter Configuration).
  const url = traces || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (url === undefined) return undefined;
  protocolOf(env);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "${url}" is not an http(s) URL`,
    );
  return url;
}

/**
 * OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else `http/protobuf`: the specification's
 * default ("OTLP Exporter Configuration"; docs/decisions.md, "Traces"). `http/json` sends the JSON encoding (what
 * an unset variable sent before protobuf was added: set it to keep that). `grpc` is refused at start rather than
 * answered with another protocol than the one named: a collector's gRPC port (4317) would refuse HTTP, and every
 * span would be lost.
 */
function protocolOf(env: Environment): OtlpProtocol {
  const name = env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = env[name]?.trim().toLowerCase();
  if (!protocol || protocol === "http/protobuf") return "http/protobuf";
  if (protocol === "http/json") return "http/json";
  throw new ConfigError(
    `${name}: "${protocol}" is not supported here: traces are sent over OTLP/HTTP, as http/protobuf (the default) ` +
      "or http/json; point the endpoint at the collector's OTLP/HTTP receiver (port 4318), not its gRPC one (4317)",
  );
}

/** TRACE_STORAGE_SPANS: `1` for a span per database statement and Redis command, unset or `0` for none. */
function storageSpansOf(env: Environment): boolean {
  const value = env["TRACE_STORAGE_SPANS"]?.trim() ?? "";
  if (value === "" || value === "0") return false;
  if (value === "1") return true;
  throw new ConfigError(`TRACE_STORAGE_SPANS: "${value}" is neither 1 (a span per statement and command) nor 0`);
}

/** The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name; parentbased_always_on by default. */
export function samplerOf(env: Environment): Sampler {
  const name = env["OTEL_TRACES_SAMPLER"]?.trim().toLowerCase() || "parentbased_always_on";
  const ratio = () => {
    const arg = env["OTEL_TRACES_SAMPLER_ARG"]?.trim();
    if (!arg) return 1;
    const value = Number(arg);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG: "${arg}" is not a ratio between 0 and 1`);
    return value;
  };
  switch (name) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio());
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new ConfigError(
        `OTEL_TRACES_SAMPLER: "${name}" is not one of always_on, always_off, traceidratio, parentbased_always_on, ` +
          "parentbased_always_off, parentbased_traceidratio",
      );
  }
}

/**
 * A trace started here takes the request's own trace id when one is offered (./spans.ts, startRootSpan), so the
 * correlation id a partner quotes is the trace's id as a UUID; any other id is random. Offered and taken within one
 * synchronous startSpan call, so no other request can take it.
 */
class OfferedTraceIds extends RandomIdGenerator {
  offered: string | undefined;
  override generateTraceId = (): string => {
    const offered = this.offered;
    this.offered = undefined;
    return offered ?? this.randomTraceId();
  };
  private readonly randomTraceId = new RandomIdGenerator().generateTraceId;
}

const idGenerator = new OfferedTraceIds();

/** Runs `start` (a synchronous startSpan) with `traceId` offered to a trace that starts in it. */
export function withOfferedTraceId<T>(traceId: string, start: () => T): T {
  idGenerator.offered = traceId;
  try {
    return start();
  } finally {
    idGenerator.offered = undefined;
  }
}

/**
 * Starts tracing for this process when the environment names an endpoint, else returns undefined and registers
 * nothing. Throws ConfigError on a variable it cannot honour (the program exits 2 naming it). `attributes` are the
 * process's own (its role, a data role's region).
 */
export function startTracing(env: Environment, attributes: Record<string, string>): Tracing | undefined {
  const target = tracesExport(env);
  if (target === undefined) return undefined;
  // Every setting checked before anything is made: a ConfigError leaves nothing behind.
  const sampler = samplerOf(env);
  const withStorageSpans = storageSpansOf(env);
  const exporter =
    target.protocol === "http/json"
      ? new JsonTraceExporter({ url: target.url })
      : new ProtobufTraceExporter({ url: target.url });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: env["OTEL_SERVICE_NAME"]?.trim() || defaultServiceName,
      ...attributes,
    }),
    sampler,
    idGenerator,
    // Batched off the request path; the queue drops spans (never blocks a request) when the collector is away.
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // The AsyncLocalStorage context manager and the W3C traceparent/baggage propagator (Trace Context, section 3).
  provider.register();
  tracer = trace.getTracer("partner-api");
  storageSpans = withStorageSpans;
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      tracer = undefined;
      storageSpans = false;
      await provider.shutdown();
      trace.disable();
    },
  };
}
