// The region hop's wire on grpc-js: an error written by the data role's server reads back as the ConnectError the
// front had over connect (code, message, ErrorInfo, other details, metadata); grpc-js's own errors map to the codes
// createRegionCaller turns into 503 / 504 (src/gateway/regional-data.ts). The hop between processes:
// test/gateway/region-hop.test.ts.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { DataService, ListItemsRequestSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { readServiceError, serviceError, serviceErrorWithDetails } from "../../src/errors/index.js";
import {
  connectErrorOf,
  deserializerOf,
  grpcStatusOf,
  headersOf,
  metadataOf,
  serializerOf,
} from "../../src/runtime/grpc-js-wire.js";

const Wire = suite("runtime/grpc-js-wire");

/** What a grpc-js client hands its callback for a status the server sent (grpc-js keeps the trailers as metadata). */
function received(status: grpc.StatusObject): grpc.ServiceError {
  return Object.assign(new Error(`${status.code} ${status.details}`), {
    code: status.code,
    details: status.details,
    metadata: status.metadata,
  });
}

/** An error grpc-js raises itself: no trailers from the server. */
function local(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

Wire(
  "a catalogue error crosses as the gRPC status and google.rpc.Status: the same code, ErrorInfo and metadata",
  () => {
    const sent = serviceError(DataService.typeName, "partner.order_not_found");
    sent.metadata.set("x-correlation-id", "corr-7");
    const status = grpcStatusOf(sent);
    assert.is(status.code, grpc.status.NOT_FOUND);
    assert.is(status.details, sent.rawMessage);
    assert.is(status.metadata.get("grpc-status-details-bin").length, 1);
    assert.ok(Buffer.isBuffer(status.metadata.get("grpc-status-details-bin")[0]));
    const read = connectErrorOf(received(status));
    assert.is(read.code, Code.NotFound);
    assert.is(read.rawMessage, sent.rawMessage);
    assert.equal(readServiceError(read), readServiceError(sent));
    assert.is(read.findDetails(ErrorInfoSchema)[0]?.reason, "partner.order_not_found");
    assert.is(read.metadata.get("x-correlation-id"), "corr-7");
  },
);

Wire("every detail crosses, not only the ErrorInfo (request.invalid_fields and its violations)", () => {
  const sent = serviceErrorWithDetails(DataService.typeName, "request.invalid_fields", { fields: "limit" }, [
    { field: "limit", rule: "must be at most 100" },
  ]);
  const read = connectErrorOf(received(grpcStatusOf(sent)));
  assert.is(read.code, Code.InvalidArgument);
  assert.equal(readServiceError(read), readServiceError(sent));
  assert.is(read.details.length, sent.details.length);
});

Wire(
  "grpc-js's own errors: a reset is Aborted, a refused connection Unavailable, the deadline DeadlineExceeded",
  () => {
    const cases: Array<[grpc.status, string, Code]> = [
      [grpc.status.INTERNAL, "Received RST_STREAM with code 2 (Internal server error)", Code.Aborted],
      [grpc.status.UNAVAILABLE, "Connection dropped", Code.Aborted],
      [grpc.status.UNAVAILABLE, "read ECONNRESET", Code.Aborted],
      [
        grpc.status.UNAVAILABLE,
        "No connection established. Last error: Failed to connect (2026-11-23T16:12:57.539Z). Resolution note: ",
        Code.Aborted,
      ],
      [
        grpc.status.UNAVAILABLE,
        "No connection established. Last error: connect ECONNREFUSED 127.0.0.1:9 (2026-11-23T16:12:57.539Z). Resolution note: ",
        Code.Unavailable,
      ],
      [grpc.status.DEADLINE_EXCEEDED, "Deadline exceeded after 10.001s", Code.DeadlineExceeded],
      [grpc.status.CANCELLED, "Cancelled on client", Code.Canceled],
    ];
    for (const [code, details, expected] of cases) {
      const read = connectErrorOf(local(code, details));
      assert.instance(read, ConnectError);
      assert.is(read.code, expected, details);
      assert.is(read.rawMessage, details);
      assert.is(read.findDetails(ErrorInfoSchema).length, 0, "uncoded: createRegionCaller decides what it means");
    }
  },
);

Wire("messages and headers: protobuf-es both ways; text metadata as Headers, binary left out", () => {
  const bytes = serializerOf(ListItemsRequestSchema)({ companyId: 42n, limit: 3 });
  assert.equal(
    deserializerOf(ListItemsRequestSchema)(bytes),
    create(ListItemsRequestSchema, { companyId: 42n, limit: 3 }),
  );
  const metadata = metadataOf(new Headers({ "x-correlation-id": "c-1", "accept-language": "hi", "grpc-status": "0" }));
  assert.equal(metadata.get("x-correlation-id"), ["c-1"]);
  assert.equal(metadata.get("grpc-status"), [], "the wire's own keys are grpc-js's to write");
  metadata.set("trace-bin", Buffer.from([1, 2, 3]));
  assert.equal([...headersOf(metadata).entries()].sort(), [
    ["accept-language", "hi"],
    ["x-correlation-id", "c-1"],
  ]);
});

Wire.run();
