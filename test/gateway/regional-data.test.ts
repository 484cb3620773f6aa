// The front's side of the hop to a remote region, over a recording remote: which headers cross, and what each way
// the hop can fail becomes for the partner (a refused credential, a reset connection, the region's own answer, the
// partner's own disconnect). The real hop over TLS between processes: processes.test.ts.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Code, ConnectError } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { readServiceError, serviceError } from "../../src/errors/index.js";
import { createRegionCaller } from "../../src/gateway/regional-data.js";
import { createLogger } from "../../src/runtime/logger.js";
import type { ServiceCaller, UnaryCall } from "../../src/runtime/service-caller.js";

const Hop = suite("gateway/regional-data");

/** A remote that records the headers it got and fails with `failure` (answers `{ items: [] }` when none). */
function recordingRemote(failure?: unknown) {
  const seen: Headers[] = [];
  const remote: ServiceCaller = {
    async call(call) {
      seen.push(new Headers(call.headers));
      if (failure !== undefined) throw failure;
      return { items: [] } as never;
    },
  };
  return { remote, seen };
}

function hop(failure?: unknown) {
  const logs: Array<Record<string, unknown>> = [];
  const { remote, seen } = recordingRemote(failure);
  const caller = createRegionCaller(
    "us",
    remote,
    createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) }),
  );
  const call = (signal?: AbortSignal) => {
    const request: UnaryCall<typeof DataService.method.listItems> = {
      method: DataService.method.listItems,
      input: { companyId: 1n },
      headers: new Headers({
        authorization: "Bearer partner-token",
        "x-api-key": "lp_ak_pk_partner",
        "accept-language": "hi",
        "x-correlation-id": "corr-1",
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "x-partner-store-scope": "11,12",
        "x-partner-app-id": "app_123",
        "x-partner-environment": "SANDBOX",
        cookie: "a=b",
      }),
      signal,
    };
    return caller.call(request).then(
      () => undefined,
      (error: unknown) => ConnectError.from(error),
    );
  };
  return { call, seen, logs };
}

Hop(
  "only Accept-Language, the correlation id, the trace context, the store scope and the partner's app and environment cross; never Authorization or X-API-Key",
  async () => {
    const { call, seen } = hop();
    assert.is(await call(), undefined);
    assert.equal([...seen[0]!.keys()].sort(), [
      "accept-language",
      "traceparent",
      "x-correlation-id",
      "x-partner-app-id",
      "x-partner-environment",
      "x-partner-store-scope",
    ]);
    assert.is(seen[0]!.get("traceparent"), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  },
);

Hop(
  "a region refusing the credential (unauthenticated or not admitted) is 503 partner.region_unavailable, logged with the gRPC code",
  async () => {
    for (const [reason, code] of [
      ["internal.unauthenticated", "Unauthenticated"],
      ["internal.permission_denied", "PermissionDenied"],
    ] as const) {
      const { call, logs } = hop(serviceError(DataService.typeName, reason));
      const error = await call();
      assert.is(readServiceError(error).code, "partner.region_unavailable");
      const line = logs.find((entry) => entry["msg"] === "region refused this front's service credential");
      assert.equal(
        { region: line?.["region"], grpcCode: line?.["grpcCode"], correlationId: line?.["correlationId"] },
        { region: "us", grpcCode: code, correlationId: "corr-1" },
      );
    }
  },
);

Hop(
  "a reset stream or connection (canceled, aborted) the front did not ask for is 503 server.unavailable, never a 500",
  async () => {
    for (const code of [Code.Canceled, Code.Aborted]) {
      const { call, logs } = hop(new ConnectError("read ECONNRESET", code));
      const error = await call();
      assert.is(error?.code, Code.Unavailable, Code[code]);
      assert.is(readServiceError(error).code, "server.unavailable");
      const line = logs.find((entry) => entry["msg"] === "region hop failed: the connection was reset");
      assert.equal(
        { region: line?.["region"], grpcCode: line?.["grpcCode"], correlationId: line?.["correlationId"] },
        { region: "us", grpcCode: Code[code], correlationId: "corr-1" },
      );
    }
  },
);

Hop(
  "a region that is not there (Unavailable, ECONNREFUSED as the cause) is 503 server.unavailable, never the front's own database_unavailable",
  async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 10.77.0.21:8090"), { code: "ECONNREFUSED" });
    const { call, logs } = hop(
      new ConnectError("connect ECONNREFUSED 10.77.0.21:8090", Code.Unavailable, undefined, undefined, refused),
    );
    const error = await call();
    assert.is(error?.code, Code.Unavailable);
    assert.equal(readServiceError(error), { code: "server.unavailable", params: {} });
    const line = logs.find((entry) => entry["msg"] === "region hop failed: the region is unreachable");
    assert.equal(
      { region: line?.["region"], correlationId: line?.["correlationId"] },
      { region: "us", correlationId: "corr-1" },
    );
  },
);

Hop("the partner's own disconnect stays canceled; the region's own coded answers pass unchanged", async () => {
  const gone = new AbortController();
  gone.abort();
  assert.is((await hop(new ConnectError("canceled", Code.Canceled)).call(gone.signal))?.code, Code.Canceled);
  const answered = await hop(serviceError(DataService.typeName, "partner.order_not_found")).call();
  assert.is(readServiceError(answered).code, "partner.order_not_found");
  assert.is(answered?.code, Code.NotFound);
});

Hop.run();
