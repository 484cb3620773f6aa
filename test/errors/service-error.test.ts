// Raising a catalogue error as a ConnectError with ErrorInfo, and reading it back, in process and off the wire.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorFromJson, errorToJson } from "@connectrpc/connect/protocol-connect";
import { findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { renderDeveloperError, renderOAuthError, renderPartnerError } from "../../src/errors/render.js";
import {
  isServiceError,
  readServiceError,
  serviceError,
  serviceErrorWithDetails,
} from "../../src/errors/service-error.js";

const ServiceError = suite("errors/service-error");

const domain = "partnerapi.v1.TokenService";

/** The error as a Connect client sees it after the Connect JSON error body. */
function overConnect(err: ConnectError): ConnectError {
  return errorFromJson(errorToJson(err, undefined), undefined, new ConnectError("fallback", Code.Unknown));
}

/** The error as a gRPC client sees it after the grpc-status trailers. */
function overGrpc(err: ConnectError): ConnectError {
  const found = findTrailerError(setTrailerStatus(new Headers(), err));
  if (!found) throw new Error("no error in trailers");
  return found;
}

ServiceError("serviceError: gRPC code, English message, ErrorInfo with reason, domain and string params", () => {
  const cause = new Error("redis down");
  const err = serviceError(domain, "partner.rate_limited", { retryAfter: 12 }, cause);
  assert.ok(err instanceof ConnectError);
  assert.is(err.code, Code.ResourceExhausted);
  assert.is(err.rawMessage, "Rate limit exceeded. Wait 12 seconds before sending more requests.");
  assert.is(err.cause, cause);
  const [info, ...more] = err.findDetails(ErrorInfoSchema);
  assert.is(more.length, 0);
  assert.is(info?.reason, "partner.rate_limited");
  assert.is(info?.domain, domain);
  assert.equal(info?.metadata, { retryAfter: "12" });
});

ServiceError("round trip in process, over Connect JSON and over gRPC trailers", () => {
  const raised = serviceError(domain, "developer.api_key_limit", { limit: 5 });
  for (const [how, err] of [
    ["in process", raised],
    ["connect", overConnect(raised)],
    ["grpc", overGrpc(raised)],
  ] as const) {
    assert.equal(readServiceError(err), { code: "developer.api_key_limit", params: { limit: "5" } }, how);
    assert.is(err.code, Code.ResourceExhausted, how);
    // Rendered the same whichever way it travelled: the number param is a number again.
    assert.equal(renderDeveloperError(readServiceError(err), "en").body.error.params, { limit: 5 }, how);
  }
});

ServiceError("details travel JSON-encoded under the reserved metadata key and come back decoded", () => {
  const details = [{ field: "redirect_uris[1]", rule: "https_required" }];
  const raised = serviceErrorWithDetails(
    "partnerapi.v1.CredentialService",
    "developer.redirect_uri_invalid",
    { field: "redirect_uris[1]", rule: "https_required" },
    details,
  );
  assert.equal(raised.findDetails(ErrorInfoSchema)[0]?.metadata.details, JSON.stringify(details));
  for (const err of [raised, overConnect(raised), overGrpc(raised)]) {
    assert.equal(readServiceError(err), {
      code: "developer.redirect_uri_invalid",
      params: { field: "redirect_uris[1]", rule: "https_required" },
      details,
    });
  }
  assert.equal(renderDeveloperError(readServiceError(overGrpc(raised)), "en").body.error.details, details);
});

ServiceError("a code without params reads back with empty params and no details", () => {
  const err = serviceError(domain, "oauth.code_expired");
  assert.is(err.code, Code.FailedPrecondition);
  assert.equal(readServiceError(overConnect(err)), { code: "oauth.code_expired", params: {} });
  assert.ok(isServiceError(err, "oauth.code_expired"));
  assert.not.ok(isServiceError(err, "oauth.code_invalid"));
});

ServiceError("a ConnectError without ErrorInfo maps by its gRPC code", () => {
  assert.equal(readServiceError(new ConnectError("no such method", Code.Unimplemented)), {
    code: "server.unimplemented",
    params: {},
  });
  assert.equal(readServiceError(new ConnectError("slow", Code.DeadlineExceeded)).code, "server.timeout");
  assert.equal(readServiceError(new ConnectError("down", Code.Unavailable)).code, "server.unavailable");
  assert.equal(readServiceError(new ConnectError("bad", Code.InvalidArgument)).code, "request.malformed_body");
  assert.equal(readServiceError(new ConnectError("boom", Code.Unknown)).code, "server.internal");
});

ServiceError("an ErrorInfo whose reason is not ours is ignored", () => {
  const foreign = new ConnectError("quota", Code.ResourceExhausted, undefined, [
    { desc: ErrorInfoSchema, value: { reason: "RATE_LIMIT_EXCEEDED", domain: "googleapis.com", metadata: {} } },
  ]);
  assert.equal(readServiceError(foreign), { code: "server.internal", params: {} });
});

ServiceError("details that do not decode are dropped, the code survives", () => {
  const err = new ConnectError("x", Code.InvalidArgument, undefined, [
    {
      desc: ErrorInfoSchema,
      value: { reason: "developer.invalid_request", domain, metadata: { fields: "name", details: "{not json" } },
    },
  ]);
  assert.equal(readServiceError(err), { code: "developer.invalid_request", params: { fields: "name" } });
});

ServiceError("anything that is not a ConnectError is server.internal, rendered generically", () => {
  for (const thrown of [new Error("SELECT failed: relation items"), "string", undefined, null, { code: 13 }]) {
    assert.equal(readServiceError(thrown), { code: "server.internal", params: {} });
  }
  const rendered = renderPartnerError(readServiceError(new Error("secret detail")), "en", {
    path: "/v1/items",
    timestamp: "2026-01-01T00:00:00.000Z",
    correlationId: "c0ffee00-0000-4000-8000-000000000000",
  });
  assert.is(rendered.status, 500);
  assert.not.match(JSON.stringify(rendered.body), /secret detail/);
});

ServiceError(
  "a database that is unavailable reads as 503 server.database_unavailable with Retry-After, in every shape",
  () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const shutdown = Object.assign(new Error("terminating connection due to administrator command"), {
      name: "PostgresError",
      code: "57P01",
    });
    const wrapped = new ConnectError("internal", Code.Internal, undefined, undefined, refused);
    for (const thrown of [refused, shutdown, wrapped]) {
      assert.equal(readServiceError(thrown), { code: "server.database_unavailable", params: { retryAfter: "5" } });
    }
    const error = readServiceError(refused);
    const context = {
      path: "/v1/items",
      timestamp: "2026-01-01T00:00:00.000Z",
      correlationId: "c0ffee00-0000-4000-8000-000000000000",
    };
    const partner = renderPartnerError(error, "en", context);
    assert.is(partner.status, 503);
    assert.is(partner.headers["Retry-After"], "5");
    assert.equal(partner.body, {
      status: "error",
      statusCode: 503,
      timestamp: context.timestamp,
      path: "/v1/items",
      message: "The service is temporarily unavailable. Try again in 5 seconds.",
      code: "server.database_unavailable",
      params: { retryAfter: 5 },
      correlationId: context.correlationId,
    });
    assert.not.match(JSON.stringify(partner.body), /ECONNREFUSED|5432/);
    const developer = renderDeveloperError(error, "en");
    assert.is(developer.status, 503);
    assert.is(developer.headers["Retry-After"], "5");
    assert.equal(developer.body.error, {
      code: "server.database_unavailable",
      message: "The service is temporarily unavailable. Try again in 5 seconds.",
      details: [],
      params: { retryAfter: 5 },
    });
    const oauth = renderOAuthError(error, "en");
    assert.is(oauth.status, 503);
    assert.is(oauth.headers["Retry-After"], "5");
    assert.equal(oauth.body, {
      error: "temporarily_unavailable",
      error_description: "The service is temporarily unavailable. Try again in 5 seconds.",
      code: "server.database_unavailable",
    });
  },
);

ServiceError("params and codes are checked by the compiler (tsc --noEmit checks this body)", () => {
  const neverCalled = (): ConnectError[] => [
    // @ts-expect-error partner.rate_limited declares retryAfter, not seconds
    serviceError(domain, "partner.rate_limited", { seconds: 3 }),
    // @ts-expect-error a typo in a code is a compile error
    serviceError(domain, "oauth.code_expird"),
  ];
  assert.type(neverCalled, "function");
});

ServiceError.run();
