// Where a request's correlation id and trace id come from, and how the trace crosses a hop (W3C Trace Context).
//
// The correlation id stays a UUID (the spec's `correlationId`, quoted in support lookups), and the trace id is the
// same 128 bits as 32 hex digits, unless the caller sent a trace of its own:
//   1. X-Request-Id, when it is 128 bits written as a UUID or as 32 hex digits (what load balancers and proxies
//      send: nginx's $request_id, Heroku's router), not all zero: reused as the correlation id;
//   2. else a valid `traceparent` (W3C Trace Context section 3.2): its trace-id, written as a UUID;
//   3. else a new random UUID.
// A valid `traceparent` always gives the trace id (joining the caller's trace) even when X-Request-Id gave the
// correlation id. Anything else is ignored, never an error: these headers are hints, not input (docs/decisions.md).
import { randomFillSync } from "node:crypto";

export const requestIdHeader = "x-request-id";
export const traceparentHeader = "traceparent";

export interface TraceContext {
  /** A lowercase UUID: answered in X-Correlation-Id, in error bodies, on every log line. */
  correlationId: string;
  /** 32 lowercase hex digits, never all zero (W3C trace-id). */
  traceId: string;
  /** The caller's trace-flags (2 hex digits); "00" when the trace starts here. */
  flags: string;
}

const uuidForm = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const hexForm = /^[0-9a-f]{32}$/;
const zeroTrace = "0".repeat(32);

/** The 32 hex digits of a well-formed request id (UUID or 32 hex, any case), or undefined. */
export function requestIdBits(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 36) return undefined;
  const lower = value.toLowerCase();
  const hex = uuidForm.test(lower) ? lower.replaceAll("-", "") : hexForm.test(lower) ? lower : undefined;
  return hex === undefined || hex === zeroTrace ? undefined : hex;
}

/**
 * A `traceparent` header's trace-id and flags, per W3C Trace Context section 3.2: version 2 hex digits other than
 * ff; for version 00 exactly `00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>`, lowercase; a later version
 * may append `-...` after those fields (section 4.3, "parse the known fields"); trace-id and parent-id not all zero.
 */
export function parseTraceparent(
  value: string | undefined,
): { traceId: string; parentId: string; flags: string } | undefined {
  if (value === undefined) return undefined;
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId, flags, rest] = match;
  // The four groups always match when the expression does; the check only tells the compiler so.
  if (version === undefined || traceId === undefined || parentId === undefined || flags === undefined) return undefined;
  if (version === "ff") return undefined;
  if (version === "00" && rest !== undefined) return undefined;
  if (traceId === zeroTrace || parentId === "0".repeat(16)) return undefined;
  return { traceId, parentId, flags };
}

/** 32 hex digits as a UUID's 8-4-4-4-12 text. */
export function asUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The request's correlation and trace ids from its headers (see the top of this file); `newId` makes a UUID. */
export function traceContextOf(
  headers: { requestId?: string | undefined; traceparent?: string | undefined },
  newId: () => string,
): TraceContext {
  const requested = requestIdBits(headers.requestId);
  const parent = parseTraceparent(headers.traceparent);
  const correlationHex = requested ?? parent?.traceId ?? newId().toLowerCase().replaceAll("-", "");
  return {
    correlationId: asUuid(correlationHex),
    traceId: parent?.traceId ?? correlationHex,
    flags: parent?.flags ?? "00",
  };
}

/**
 * Span ids are cut from a pool of random bytes refilled 4 KiB at a time, as Node's randomUUID does with its own:
 * one call into the system's generator per 512 spans rather than one per hop (a profile of the items route put
 * that per-hop call at 2.5% of the service's CPU). A span id is an identifier, not a secret.
 */
const spanPool = Buffer.alloc(4096);
let spanPoolOffset = spanPool.length;

function randomSpanId(): string {
  for (;;) {
    if (spanPoolOffset === spanPool.length) {
      randomFillSync(spanPool);
      spanPoolOffset = 0;
    }
    const spanId = spanPool.toString("hex", spanPoolOffset, spanPoolOffset + 8);
    spanPoolOffset += 8;
    // W3C Trace Context 3.2.2.4: an all-zero parent-id is invalid.
    if (spanId !== "0000000000000000") return spanId;
  }
}

/** The `traceparent` a hop sends: this trace, a new parent-id for the hop's span, the caller's flags. */
export function traceparentFor(trace: { traceId: string; flags: string }): string {
  return `00-${trace.traceId}-${randomSpanId()}-${trace.flags}`;
}
