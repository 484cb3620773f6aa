// src/runtime/service-caller.ts: calling a ServiceImpl in process, over the real generated grpc.health.v1.Health
// service: the handler gets a message built from the init shape and a handler context built as connect builds one
// (service, method, headers, context values, signal, url); the answer is normalised to a message; errors come
// through unchanged; a method of another service is refused. Also createInProcessClient, forwardedFrom and
// inProcessContext on their own.
import { create, isMessage } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextKey,
  createContextValues,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  Health,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthListResponseSchema,
  type HealthCheckRequest,
} from "../../gen/grpc/health/v1/health_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import {
  createInProcessCaller,
  createInProcessClient,
  forwardedFrom,
  inProcessContext,
} from "../../src/runtime/service-caller.js";

const Caller = suite("runtime/service-caller");

const tenant = createContextKey<string>("none", { description: "tenant" });

interface Seen {
  request: HealthCheckRequest;
  context: HandlerContext;
}

/** A small Health implementation that records what its handlers received and answers with what it is told. */
function recordingHealth(answer: () => unknown = () => ({ status: ServingStatus.SERVING })) {
  const seen: Seen[] = [];
  const impl: ServiceImpl<typeof Health> = {
    check(request, context) {
      seen.push({ request, context });
      return answer() as never;
    },
    list() {
      return {
        statuses: {
          "": { status: ServingStatus.SERVING },
          "partnerapi.v1.DataService": { status: ServingStatus.NOT_SERVING },
        },
      };
    },
    async *watch() {},
  };
  return { impl, seen };
}

Caller("the handler receives a message built from the init shape", async () => {
  const { impl, seen } = recordingHealth();
  await createInProcessCaller(Health, impl).call({
    method: Health.method.check,
    input: { service: "partnerapi.v1.TokenService" },
  });
  assert.is(seen.length, 1);
  const request = seen[0]!.request;
  assert.ok(isMessage(request, HealthCheckRequestSchema));
  assert.is(request.$typeName, "grpc.health.v1.HealthCheckRequest");
  assert.is(request.service, "partnerapi.v1.TokenService");
});

Caller("a request that already is a message reaches the handler as that very message", async () => {
  const { impl, seen } = recordingHealth();
  const request = create(HealthCheckRequestSchema, { service: "x" });
  await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: request });
  assert.is(seen[0]!.request, request);
});

Caller("an empty init shape gives the handler a message with the proto3 defaults", async () => {
  const { impl, seen } = recordingHealth();
  await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: {} });
  assert.is(seen[0]!.request.service, "");
  assert.ok(isMessage(seen[0]!.request, HealthCheckRequestSchema));
});

Caller("the context names the service and method and carries the headers and context values given", async () => {
  const { impl, seen } = recordingHealth();
  const headers = new Headers({ Authorization: "Bearer t", "Accept-Language": "ar" });
  const values = createContextValues().set(tenant, "org-7");
  await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: {}, headers, values });
  const { context } = seen[0]!;
  assert.is(context.service, Health);
  assert.is(context.service.typeName, "grpc.health.v1.Health");
  assert.is(context.method, Health.method.check);
  assert.is(context.method.name, "Check");
  assert.is(context.requestHeader.get("authorization"), "Bearer t");
  assert.is(context.requestHeader.get("accept-language"), "ar");
  assert.is(context.values, values);
  assert.is(context.values.get(tenant), "org-7");
  assert.is(context.protocolName, "in-process");
  assert.is(context.requestMethod, "POST");
  assert.is(context.url, "in-process:///grpc.health.v1.Health/Check");
});

Caller("without options the context has no headers, default context values and the in-process url", async () => {
  const { impl, seen } = recordingHealth();
  await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: {} });
  const { context } = seen[0]!;
  assert.equal([...context.requestHeader.keys()], []);
  assert.is(context.values.get(tenant), "none");
  assert.is(context.signal.aborted, false);
  assert.is(context.url, "in-process:///grpc.health.v1.Health/Check");
});

Caller("a given url is the one the context reports; an aborted signal reaches the handler aborted", async () => {
  const { impl, seen } = recordingHealth();
  const controller = new AbortController();
  controller.abort(new Error("client went away"));
  await createInProcessCaller(Health, impl).call({
    method: Health.method.check,
    input: {},
    url: "http://127.0.0.1:8080/v1/health",
    signal: controller.signal,
  });
  assert.is(seen[0]!.context.url, "http://127.0.0.1:8080/v1/health");
  assert.is(seen[0]!.context.signal.aborted, true);
});

Caller("an answer given as an init shape is normalised to a message of the output type", async () => {
  const { impl } = recordingHealth(() => ({ status: ServingStatus.NOT_SERVING }));
  const answer = await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: {} });
  assert.ok(isMessage(answer, HealthCheckResponseSchema));
  assert.is(answer.$typeName, "grpc.health.v1.HealthCheckResponse");
  assert.is(answer.status, ServingStatus.NOT_SERVING);
});

Caller(
  "an empty answer becomes the output message with its defaults; a message answer is returned as it is",
  async () => {
    const empty = await createInProcessCaller(Health, recordingHealth(() => ({})).impl).call({
      method: Health.method.check,
      input: {},
    });
    assert.is(empty.$typeName, "grpc.health.v1.HealthCheckResponse");
    assert.is(empty.status, ServingStatus.UNKNOWN);
    const message = create(HealthCheckResponseSchema, { status: ServingStatus.SERVING });
    const same = await createInProcessCaller(Health, recordingHealth(() => message).impl).call({
      method: Health.method.check,
      input: {},
    });
    assert.is(same, message);
  },
);

Caller("nested init shapes in the answer become messages too (map values of List)", async () => {
  const answer = await createInProcessCaller(Health, recordingHealth().impl).call({
    method: Health.method.list,
    input: {},
  });
  assert.ok(isMessage(answer, HealthListResponseSchema));
  assert.equal(Object.keys(answer.statuses).sort(), ["", "partnerapi.v1.DataService"]);
  assert.ok(isMessage(answer.statuses[""], HealthCheckResponseSchema));
  assert.is(answer.statuses["partnerapi.v1.DataService"]!.status, ServingStatus.NOT_SERVING);
});

Caller("an error the handler throws reaches the caller unchanged (same object, same code)", async () => {
  const thrown = new ConnectError("database is down", Code.Unavailable);
  const { impl } = recordingHealth(() => {
    throw thrown;
  });
  try {
    await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: {} });
    assert.unreachable("the call must reject");
  } catch (error) {
    assert.is(error, thrown);
    assert.is((error as ConnectError).code, Code.Unavailable);
  }
});

Caller("a rejection of an async handler reaches the caller unchanged", async () => {
  const thrown = new TypeError("boom");
  const { impl } = recordingHealth(() => Promise.reject(thrown));
  try {
    await createInProcessCaller(Health, impl).call({ method: Health.method.check, input: {} });
    assert.unreachable("the call must reject");
  } catch (error) {
    assert.is(error, thrown);
  }
});

Caller("a method of another service is refused, even when the implementation has a handler of that name", async () => {
  let called = false;
  const impl = {
    ...recordingHealth().impl,
    listGrants: () => {
      called = true;
      return {};
    },
  } as ServiceImpl<typeof Health>;
  try {
    await createInProcessCaller(Health, impl).call({
      method: GrantService.method.listGrants,
      input: { companyId: 1n },
    });
    assert.unreachable("a GrantService method must not be called on Health");
  } catch (error) {
    assert.instance(error, Error);
    assert.is((error as Error).message, "grpc.health.v1.Health has no method partnerapi.v1.GrantService/ListGrants");
  }
  assert.is(called, false);
});

Caller("a method of the service without a handler is refused naming it", async () => {
  const { list: _list, ...withoutList } = recordingHealth().impl;
  try {
    await createInProcessCaller(Health, withoutList as ServiceImpl<typeof Health>).call({
      method: Health.method.list,
      input: {},
    });
    assert.unreachable("a missing handler must be refused");
  } catch (error) {
    assert.is((error as Error).message, "grpc.health.v1.Health has no method grpc.health.v1.Health/List");
  }
});

Caller("createInProcessClient: one function per unary method (check, list; not the streaming watch)", () => {
  const client = createInProcessClient(Health, recordingHealth().impl);
  assert.equal(Object.keys(client).sort(), ["check", "list"]);
  assert.is((client as Record<string, unknown>)["watch"], undefined);
});

Caller(
  "createInProcessClient: calls the handler with the init shape as a message and the options as context",
  async () => {
    const { impl, seen } = recordingHealth(() => ({ status: ServingStatus.SERVING }));
    const client = createInProcessClient(Health, impl);
    const values = createContextValues().set(tenant, "org-9");
    const answer = await client.check({ service: "s" }, { headers: new Headers({ "X-API-Key": "k" }), values });
    assert.is(answer.$typeName, "grpc.health.v1.HealthCheckResponse");
    assert.is(answer.status, ServingStatus.SERVING);
    assert.is(seen[0]!.request.service, "s");
    assert.is(seen[0]!.context.method, Health.method.check);
    assert.is(seen[0]!.context.requestHeader.get("x-api-key"), "k");
    assert.is(seen[0]!.context.values.get(tenant), "org-9");
    await client.check({});
    assert.equal([...seen[1]!.context.requestHeader.keys()], []);
  },
);

Caller("forwardedFrom: a nested call carries the incoming headers, values and signal", () => {
  const controller = new AbortController();
  const values = createContextValues().set(tenant, "org-3");
  const incoming = inProcessContext(Health, Health.method.check, {
    headers: new Headers({ Authorization: "Bearer abc" }),
    values,
    signal: controller.signal,
  });
  const forwarded = forwardedFrom(incoming);
  assert.equal(Object.keys(forwarded).sort(), ["headers", "signal", "values"]);
  assert.is(forwarded.headers, incoming.requestHeader);
  assert.is(forwarded.headers!.get("authorization"), "Bearer abc");
  assert.is(forwarded.values, values);
  assert.is(forwarded.signal, incoming.signal);
  assert.is(forwarded.signal!.aborted, false);
  controller.abort();
  assert.is(forwarded.signal!.aborted, true, "aborting the incoming request aborts the forwarded signal");
});

Caller("forwardedFrom: the nested handler sees what the outer one was called with", async () => {
  const inner = recordingHealth();
  const innerClient = createInProcessClient(Health, inner.impl);
  const outer = recordingHealth();
  const outerImpl: ServiceImpl<typeof Health> = {
    ...outer.impl,
    async list(_request, context) {
      await innerClient.check({ service: "nested" }, forwardedFrom(context));
      return {};
    },
  };
  const values = createContextValues().set(tenant, "org-5");
  await createInProcessCaller(Health, outerImpl).call({
    method: Health.method.list,
    input: {},
    headers: new Headers({ "Accept-Language": "hi" }),
    values,
  });
  const nested = inner.seen[0]!.context;
  assert.is(nested.method, Health.method.check);
  assert.is(nested.requestHeader.get("accept-language"), "hi");
  assert.is(nested.values.get(tenant), "org-5");
  assert.is(nested.url, "in-process:///grpc.health.v1.Health/Check");
});

Caller("inProcessContext: service, method, protocol in-process, POST, default url, fresh headers and values", () => {
  const context = inProcessContext(Health, Health.method.list);
  assert.is(context.service, Health);
  assert.is(context.method, Health.method.list);
  assert.is(context.protocolName, "in-process");
  assert.is(context.requestMethod, "POST");
  assert.is(context.url, "in-process:///grpc.health.v1.Health/List");
  assert.equal([...context.requestHeader.keys()], []);
  assert.equal([...context.responseHeader.keys()], []);
  assert.is(context.values.get(tenant), "none");
  assert.is(context.timeoutMs(), undefined);
  assert.is(context.signal.aborted, false);
});

Caller("inProcessContext: the given url, headers and values", () => {
  const values = createContextValues().set(tenant, "t");
  const context = inProcessContext(Health, Health.method.check, {
    url: "https://api.example/v1/x",
    headers: new Headers({ "X-API-Key": "key" }),
    values,
  });
  assert.is(context.url, "https://api.example/v1/x");
  assert.is(context.requestHeader.get("x-api-key"), "key");
  assert.is(context.values, values);
});

Caller.run();
