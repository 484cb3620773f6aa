// Tracing's switch and settings (src/runtime/tracing.ts): off unless an OTLP endpoint is named, and then nothing is
// registered (the API's no-op tracer answers, the span helpers just run their work); the endpoint, sampler and
// disabling variables read as the OpenTelemetry specification says; a value it cannot honour is a ConfigError.
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { SamplingDecision } from "@opentelemetry/sdk-trace-node";
import * as assert from "uvu/assert";
import { ConfigError } from "../../src/config/config.js";
import { activeSpanIds, inRpcSpan, startRequestSpan } from "../../src/runtime/spans.js";
import {
  activeTracer,
  samplerOf,
  startTracing,
  storageSpansOn,
  tracesEndpoint,
  tracesExport,
} from "../../src/runtime/tracing.js";
import { suite } from "../support/suite.js";

const Tracing = suite("runtime/tracing");

Tracing(
  "off without an endpoint: nothing registered, the API's tracer records nothing, spans are not started",
  async () => {
    assert.is(startTracing({}, {}), undefined);
    assert.is(activeTracer(), undefined);
    const span = trace.getTracer("any").startSpan("a span");
    assert.is(span.isRecording(), false);
    assert.is(span.spanContext().traceId, "0".repeat(32), "the no-op tracer's invalid span");
    // Off, the request is not even described (the front's per-request cost is the check alone).
    let described = 0;
    assert.is(
      startRequestSpan(() => {
        described++;
        return { method: "GET", path: "/v1/items", headers: new Headers() };
      }, "a".repeat(32)),
      undefined,
    );
    assert.is(described, 0);
    assert.is(await inRpcSpan({ kind: "client", service: "s", method: "m" }, async () => activeSpanIds()), undefined);
  },
);

Tracing("off when disabled or when the exporter is none, whatever the endpoint", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
  assert.is(tracesEndpoint({ ...endpoint, OTEL_SDK_DISABLED: "true" }), undefined);
  assert.is(tracesEndpoint({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" }), undefined);
  assert.is(tracesEndpoint({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }), undefined);
  assert.is(startTracing({ ...endpoint, OTEL_SDK_DISABLED: "true" }, {}), undefined);
  assert.is(activeTracer(), undefined);
});

Tracing("the protocol: http/protobuf by default or named, http/json when named, grpc refused by name at start", () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
  const url = "http://collector:4318/v1/traces";
  assert.equal(tracesExport(endpoint), { url, protocol: "http/protobuf" }, "the specification's default");
  assert.equal(tracesExport({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }), {
    url,
    protocol: "http/protobuf",
  });
  assert.equal(tracesExport({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "HTTP/JSON" }), { url, protocol: "http/json" });
  assert.equal(
    tracesExport({
      ...endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    }),
    { url, protocol: "http/json" },
    "the signal's own variable wins",
  );
  const refused = (env: Record<string, string>, name: string) =>
    assert.throws(
      () => tracesEndpoint({ ...endpoint, ...env }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.startsWith(`${name}: "`) &&
        /http\/protobuf/.test(error.message) &&
        /4318/.test(error.message),
    );
  refused({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_PROTOCOL");
  refused({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml" }, "OTEL_EXPORTER_OTLP_PROTOCOL");
  refused({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
  // Off, the variable is not read: a platform's default environment does not stop a process that does not trace.
  assert.is(tracesEndpoint({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), undefined);
});

Tracing(
  "TRACE_STORAGE_SPANS: 1 turns store spans on with tracing, 0 or unset leaves them off, else refused",
  async () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_TRACES_SAMPLER: "always_off" };
    assert.is(storageSpansOn(), false);
    assert.throws(
      () => startTracing({ ...endpoint, TRACE_STORAGE_SPANS: "yes" }, {}),
      (error: unknown) => error instanceof ConfigError && /TRACE_STORAGE_SPANS: "yes"/.test(error.message),
    );
    assert.is(activeTracer(), undefined, "refused before anything was registered");
    assert.is(startTracing({ TRACE_STORAGE_SPANS: "1" }, {}), undefined, "no endpoint: no tracing, no store spans");
    assert.is(storageSpansOn(), false);
    for (const [value, on] of [
      ["0", false],
      ["", false],
      ["1", true],
    ] as const) {
      const tracing = startTracing({ ...endpoint, TRACE_STORAGE_SPANS: value }, {})!;
      assert.is(storageSpansOn(), on, `TRACE_STORAGE_SPANS=${value}`);
      await tracing.shutdown();
      assert.is(storageSpansOn(), false, "off again with tracing");
    }
  },
);

Tracing("the traces URL: the base endpoint gets /v1/traces, the signal's own endpoint is taken as is", () => {
  assert.is(
    tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }),
    "http://collector:4318/v1/traces",
  );
  assert.is(
    tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }),
    "http://collector:4318/v1/traces",
  );
  assert.is(
    tracesEndpoint({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/ingest",
    }),
    "https://traces.example/ingest",
  );
  assert.is(tracesEndpoint({ OTEL_SDK_DISABLED: "false", OTEL_EXPORTER_OTLP_ENDPOINT: "" }), undefined);
  assert.throws(
    () => tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4317" }),
    (error: unknown) => error instanceof ConfigError && /OTEL_EXPORTER_OTLP_ENDPOINT/.test(error.message),
  );
  assert.throws(
    () => tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "zipkin" }),
    (error: unknown) => error instanceof ConfigError && /OTEL_TRACES_EXPORTER/.test(error.message),
  );
});

/** The decision of the sampler `env` names for a root span (no parent) of `traceId`. */
const rootDecision = (env: Record<string, string>, traceId: string): SamplingDecision =>
  samplerOf(env).shouldSample(ROOT_CONTEXT, traceId, "span", SpanKind.SERVER, {}, []).decision;

/** The decision under a remote parent with `flags` (01 sampled, 00 not). */
const childDecision = (env: Record<string, string>, flags: number): SamplingDecision => {
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: flags,
    isRemote: true,
  });
  return samplerOf(env).shouldSample(parent, "4bf92f3577b34da6a3ce929d0e0e4736", "span", SpanKind.SERVER, {}, [])
    .decision;
};

Tracing(
  "sampling: parent-based always-on by default, a caller's decision honoured, the standard names and ratio",
  () => {
    const sampled = SamplingDecision.RECORD_AND_SAMPLED;
    const dropped = SamplingDecision.NOT_RECORD;
    const low = "00000000000000000000000000000001";
    // The JavaScript ratio sampler compares the XOR of the trace id's four 32-bit words with ratio x 2^32.
    const high = "ffffffff000000000000000000000000";
    assert.equal([rootDecision({}, high), childDecision({}, 1), childDecision({}, 0)], [sampled, sampled, dropped]);
    assert.equal(
      [
        rootDecision({ OTEL_TRACES_SAMPLER: "always_off" }, low),
        childDecision({ OTEL_TRACES_SAMPLER: "always_on" }, 0),
      ],
      [dropped, sampled],
    );
    const ratio = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" };
    assert.equal(
      [rootDecision(ratio, low), rootDecision(ratio, high), childDecision(ratio, 1)],
      [sampled, dropped, sampled],
    );
    assert.is(rootDecision({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }, low), dropped);
    assert.throws(
      () => samplerOf({ OTEL_TRACES_SAMPLER: "sometimes" }),
      (error: unknown) => error instanceof ConfigError && /OTEL_TRACES_SAMPLER: "sometimes"/.test(error.message),
    );
    assert.throws(
      () => samplerOf({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" }),
      (error: unknown) => error instanceof ConfigError && /OTEL_TRACES_SAMPLER_ARG/.test(error.message),
    );
  },
);

Tracing("on: a request's root span takes the offered trace id; shut down, nothing is registered again", async () => {
  // An endpoint nothing listens on: nothing is exported before the shutdown, which drops what it cannot send.
  const tracing = startTracing(
    { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_TRACES_SAMPLER: "always_off" },
    {},
  );
  assert.ok(tracing);
  assert.ok(activeTracer());
  const offered = "0af7651916cd43dd8448eb211c80319c";
  const started = startRequestSpan(() => ({ method: "GET", path: "/v1/items", headers: new Headers() }), offered)!;
  assert.is(started.span.spanContext().traceId, offered);
  assert.is(started.span.isRecording(), false, "always_off: sampled out, still a trace id for the logs");
  const caller = new Headers({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" });
  const continued = startRequestSpan(() => ({ method: "GET", path: "/v1/items", headers: caller }), offered)!;
  assert.is(continued.span.spanContext().traceId, "4bf92f3577b34da6a3ce929d0e0e4736", "the caller's trace");
  const next = startRequestSpan(() => ({ method: "GET", path: "/v1/items", headers: new Headers() }), offered)!;
  assert.is(next.span.spanContext().traceId, offered, "offered per request, not left over");
  await tracing!.shutdown();
  assert.is(activeTracer(), undefined);
  assert.is(trace.getTracer("any").startSpan("after").isRecording(), false);
});

Tracing.run();
