// What a span per database statement or Redis command shares (issue 41, TRACE_STORAGE_SPANS=1; docs/decisions.md,
// "Traces"): a client span (database semantic conventions: db.system.name, db.namespace, db.operation.name), started
// only as the child of a span that records, so background work (the queues' polls, migrations) and sampled-out
// requests make none, and only in stores opened while the setting was on (./traced-sql.ts, ./traced-key-value.ts).
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import { ATTR_DB_RESPONSE_STATUS_CODE, ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { activeTracer } from "../runtime/tracing.js";

export type StoreSpanAttributes = Record<string, string | number>;

/** The active context when its span records (sampled, traced), else undefined: no store span is started then. */
export function recordingParent(): Context | undefined {
  const active = context.active();
  return trace.getSpan(active)?.isRecording() ? active : undefined;
}

/** A client span named `name`, child of `parent` (recordingParent); undefined when tracing has stopped since. */
export function startStoreSpan(name: string, attributes: StoreSpanAttributes, parent: Context): Span | undefined {
  return activeTracer()?.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
}

/** Ends `span` as failed: the server's error code (a SQLSTATE, a Redis error prefix) when the error carries one. */
export function endStoreSpanWithError(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string") span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
  span.setAttribute(ATTR_ERROR_TYPE, typeof code === "string" ? code : ((error as Error)?.name ?? "Error"));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
  span.end();
}

/** Runs `work` (one store call) in a span when there is a recording parent, else just runs it. */
export async function inStoreSpan<T>(
  name: string,
  attributes: StoreSpanAttributes,
  work: () => Promise<T>,
): Promise<T> {
  const parent = recordingParent();
  const span = parent && startStoreSpan(name, attributes, parent);
  if (!span) return work();
  try {
    const result = await work();
    span.end();
    return result;
  } catch (error) {
    endStoreSpanWithError(span, error);
    throw error;
  }
}
