// A small OTLP/HTTP traces receiver on a real port, for the tracing tests (issue 41): it accepts POST /v1/traces in
// either encoding of OTLP/HTTP (OTLP specification, "OTLP/HTTP"): binary protobuf (application/x-protobuf, decoded
// by ./otlp-protobuf.ts) and JSON (application/json, "JSON Protobuf Encoding": ids as hex strings, enums as numbers),
// gzip or not; it answers 200 with an empty ExportTraceServiceResponse in the request's encoding, and keeps every span
// it was sent with its resource's attributes and the encoding it came in. Anything else is answered 400 or 404 and
// recorded as a problem the test can assert on.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { decodeTraceRequest, type ExportRequest, type KeyValue } from "./otlp-protobuf.js";

export type OtlpEncoding = "protobuf" | "json";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** Status code: 0 unset, 1 ok, 2 error. */
  status: number;
  links: Array<{ traceId: string; spanId: string }>;
  /** The attributes of the resource that sent it (service.name, partner_api.role). */
  resource: Record<string, string | number | boolean>;
  /** How the export that carried it was encoded. */
  encoding: OtlpEncoding;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans(): ReceivedSpan[];
  /** Every span so far or yet to come, once `ready` says they are all there; rejects after `timeoutMs`. */
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** Requests it could not take (wrong path, type or body), described. */
  problems(): string[];
  close(): Promise<void>;
}

const flatten = (attributes: KeyValue[] | undefined): Record<string, string | number | boolean> =>
  Object.fromEntries(
    (attributes ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.boolValue ??
        value.doubleValue ??
        "",
    ]),
  );

/** The encoding a Content-Type names, or undefined for one OTLP/HTTP does not use. */
const encodingOf = (contentType: string | undefined): OtlpEncoding | undefined =>
  contentType?.startsWith("application/x-protobuf")
    ? "protobuf"
    : contentType?.startsWith("application/json")
      ? "json"
      : undefined;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const problems: string[] = [];
  const waiters = new Set<() => void>();
  const take = (body: ExportRequest, encoding: OtlpEncoding) => {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          received.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            kind: span.kind,
            attributes: flatten(span.attributes),
            status: span.status?.code ?? 0,
            links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
            resource,
            encoding,
          });
    }
    for (const waiter of waiters) waiter();
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const refuse = (status: number, problem: string) => {
        problems.push(problem);
        response.writeHead(status).end();
      };
      if (request.method !== "POST" || request.url !== "/v1/traces")
        return refuse(404, `${request.method} ${request.url}`);
      const encoding = encodingOf(request.headers["content-type"]);
      if (!encoding) return refuse(400, `content-type ${request.headers["content-type"]}`);
      try {
        const raw = Buffer.concat(chunks);
        const body = request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
        take(
          encoding === "json" ? (JSON.parse(body.toString("utf8")) as ExportRequest) : decodeTraceRequest(body),
          encoding,
        );
      } catch (error) {
        return refuse(400, `${encoding} body: ${String(error)}`);
      }
      // An empty ExportTraceServiceResponse: no bytes in protobuf, `{}` in JSON.
      if (encoding === "json") response.writeHead(200, { "content-type": "application/json" }).end("{}");
      else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    problems: () => [...problems],
    waitFor: (ready, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!ready(received)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve([...received]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the spans never were all there; received: ${JSON.stringify(received, null, 1)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
