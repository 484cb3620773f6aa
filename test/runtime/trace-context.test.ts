// Which incoming X-Request-Id and traceparent values are reused as the correlation and trace ids (W3C Trace Context
// section 3.2), and what crosses a hop.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { parseTraceparent, requestIdBits, traceContextOf, traceparentFor } from "../../src/runtime/trace-context.js";

const Trace = suite("runtime/trace-context");
const fresh = () => "0b6f3a52-3c1e-4f7e-9a43-1d2b5f8c9e10";
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;

Trace("X-Request-Id is reused when it is 128 bits as a UUID or 32 hex digits (any case), never all zero", () => {
  assert.is(requestIdBits("0B6F3A52-3C1E-4F7E-9A43-1D2B5F8C9E10"), "0b6f3a523c1e4f7e9a431d2b5f8c9e10");
  assert.is(requestIdBits("0b6f3a523c1e4f7e9a431d2b5f8c9e10"), "0b6f3a523c1e4f7e9a431d2b5f8c9e10");
  for (const bad of [
    "",
    "chosen-by-the-client",
    "0b6f3a52-3c1e-4f7e-9a43-1d2b5f8c9e1",
    "00000000-0000-0000-0000-000000000000",
    "0b6f3a52-3c1e-4f7e-9a43-1d2b5f8c9e10\n",
    "g".repeat(32),
    " 0b6f3a523c1e4f7e9a431d2b5f8c9e10",
  ]) {
    assert.is(requestIdBits(bad), undefined, JSON.stringify(bad));
  }
});

Trace(
  "traceparent: version 00 exactly, lowercase hex, trace-id and parent-id not all zero; a later version may append fields; ff never",
  () => {
    assert.equal(parseTraceparent(traceparent), { traceId, parentId: "00f067aa0ba902b7", flags: "01" });
    assert.equal(parseTraceparent(`01-${traceId}-00f067aa0ba902b7-00-future`), {
      traceId,
      parentId: "00f067aa0ba902b7",
      flags: "00",
    });
    for (const bad of [
      `00-${traceId}-00f067aa0ba902b7-01-extra`,
      `ff-${traceId}-00f067aa0ba902b7-01`,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-${traceId}-${"0".repeat(16)}-01`,
      `00-${traceId.toUpperCase()}-00f067aa0ba902b7-01`,
      `00-${traceId}-00f067aa0ba902b7-1`,
      "garbage",
    ]) {
      assert.is(parseTraceparent(bad), undefined, bad);
    }
  },
);

Trace(
  "the correlation id is X-Request-Id, else traceparent's trace-id, else new; the trace id follows traceparent when there is one",
  () => {
    assert.equal(traceContextOf({}, fresh), {
      correlationId: fresh(),
      traceId: "0b6f3a523c1e4f7e9a431d2b5f8c9e10",
      flags: "00",
    });
    assert.equal(traceContextOf({ traceparent }, fresh), {
      correlationId: "4bf92f35-77b3-4da6-a3ce-929d0e0e4736",
      traceId,
      flags: "01",
    });
    assert.equal(traceContextOf({ requestId: "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE", traceparent }, fresh), {
      correlationId: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
      traceId,
      flags: "01",
    });
    assert.equal(traceContextOf({ requestId: "not-an-id", traceparent: "00-bad" }, fresh), {
      correlationId: fresh(),
      traceId: "0b6f3a523c1e4f7e9a431d2b5f8c9e10",
      flags: "00",
    });
  },
);

Trace("a hop's traceparent keeps the trace and the flags, with a new non-zero parent-id each time", () => {
  const first = traceparentFor({ traceId, flags: "01" });
  const second = traceparentFor({ traceId, flags: "01" });
  assert.match(first, new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  assert.is.not(first, second);
  assert.equal(parseTraceparent(first)?.traceId, traceId);
});

Trace("parent-ids stay distinct and well formed across the random pool's refills (512 to a refill)", () => {
  const spans = Array.from({ length: 2_000 }, () => traceparentFor({ traceId, flags: "00" }).split("-")[2]);
  assert.is(new Set(spans).size, 2_000);
  for (const span of spans) {
    assert.match(span!, /^[0-9a-f]{16}$/);
    assert.is.not(span, "0000000000000000");
  }
});

Trace.run();
