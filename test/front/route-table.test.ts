// src/front/route-table.ts: the front's route table, read from the google.api.http and (partnerapi.v1.route) options
// of the services the front serves: known routes, their family, scope and headers, 405 with Allow, 404 families.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { createRouteTable, type RouteMatch } from "../../src/front/route-table.js";

const RouteTable = suite("front/route-table");

/** The services src/app.ts gives the front. */
const table = createRouteTable([TokenService, DataService, ConsoleService]);

/** The found route's RPC and the parts of it a test names, or the miss as it is. */
function summary(match: RouteMatch): unknown {
  if (match.kind !== "found") return match;
  const { route, pathParams } = match;
  return {
    rpc: `${route.service.name}.${route.method.name}`,
    pathParams,
    family: route.family,
    partnerCall: route.partnerCall,
    bodyIsRequest: route.bodyIsRequest,
    contentType: route.contentType,
    cacheControl: route.cacheControl,
    scope: route.scope,
  };
}

RouteTable("every annotated RPC is a route: 6 token, 20 data, 51 console; internal-only RPCs are not", () => {
  assert.is(table.routes.length, 77);
  assert.is(table.routes.filter((route) => route.service === TokenService).length, 6);
  assert.is(table.routes.filter((route) => route.service === DataService).length, 20);
  // The point of sale's moves have no HTTP annotation: they are not routes of the public front.
  assert.not.ok(table.routes.some((route) => route.method.name === "AcceptOnlineOrder"));
  assert.not.ok(table.routes.some((route) => route.method.name === "SetStoreOnlineOrdering"));
  assert.equal(
    table.routes.filter((route) => route.sandboxOnly).map((route) => `${route.httpMethod} ${route.template.source}`),
    ["POST /v1/sandbox/stores/{id}/online-ordering", "POST /v1/sandbox/online-orders/{id}/status"],
  );
  assert.is(table.routes.filter((route) => route.service === ConsoleService).length, 51);
  assert.not.ok(table.routes.some((route) => route.method.name === "RotateSigningKey"));
  assert.is(createRouteTable([CredentialService, GrantService]).routes.length, 0);
});

RouteTable("success_status: POST /v1/oauth/par answers 201 (RFC 9126 section 2.2), every other route 200", () => {
  const created = table.routes.filter((route) => route.successStatus !== 200);
  assert.equal(
    created.map((route) => [`${route.httpMethod} ${route.template.source}`, route.successStatus]),
    [["POST /v1/oauth/par", 201]],
  );
  assert.is(table.routes.filter((route) => route.successStatus === 200).length, table.routes.length - 1);
});

RouteTable("session_free: exactly the console routes that create an account or start a session", () => {
  const free = table.routes
    .filter((route) => route.sessionFree)
    .map((route) => `${route.service.name}.${route.method.name}`);
  assert.equal(free.sort(), [
    "ConsoleService.RefreshSession",
    "ConsoleService.RequestPasswordReset",
    "ConsoleService.ResetPassword",
    "ConsoleService.SignIn",
    "ConsoleService.SignUp",
    "ConsoleService.VerifyEmail",
  ]);
});

RouteTable("GET /v1/stores: a partner call needing stores.read, request from the query, plain JSON", () => {
  assert.equal(summary(table.match("GET", "/v1/stores")), {
    rpc: "DataService.ListStores",
    pathParams: {},
    family: "partner",
    partnerCall: true,
    bodyIsRequest: false,
    contentType: "application/json",
    cacheControl: undefined,
    scope: "stores.read",
  });
});

RouteTable("PATCH /v1/items/{id}: the id bound from the path, the request from the body, items.write", () => {
  assert.equal(summary(table.match("PATCH", "/v1/items/42")), {
    rpc: "DataService.UpdateItem",
    pathParams: { id: "42" },
    family: "partner",
    partnerCall: true,
    bodyIsRequest: true,
    contentType: "application/json",
    cacheControl: undefined,
    scope: "items.write",
  });
  const order = table.match("GET", "/v1/online-orders/a%20b");
  assert.equal(order.kind === "found" && [order.route.method.name, order.pathParams], [
    "GetOnlineOrder",
    { id: "a b" },
  ]);
});

RouteTable("RFC 6749 5.1: POST /v1/oauth/token answers no-store in the OAuth family, not a partner call", () => {
  assert.equal(summary(table.match("POST", "/v1/oauth/token")), {
    rpc: "TokenService.ExchangeToken",
    pathParams: {},
    family: "oauth",
    partnerCall: false,
    bodyIsRequest: true,
    contentType: "application/json",
    cacheControl: "no-store",
    scope: "",
  });
  const sandbox = table.match("POST", "/v1/token");
  assert.equal(sandbox.kind === "found" && [sandbox.route.method.name, sandbox.route.family], [
    "MintSandboxToken",
    "developer",
  ]);
});

RouteTable(
  "RFC 7517 8.5: GET /.well-known/jwks.json is application/jwk-set+json, cached 300 s, in the generic envelope",
  () => {
    assert.equal(summary(table.match("GET", "/.well-known/jwks.json")), {
      rpc: "TokenService.GetJwks",
      pathParams: {},
      family: "partner",
      partnerCall: false,
      bodyIsRequest: false,
      contentType: "application/jwk-set+json",
      cacheControl: "public, max-age=300",
      scope: "",
    });
    const metadata = table.match("GET", "/.well-known/oauth-authorization-server");
    assert.equal(metadata.kind === "found" && [metadata.route.method.name, metadata.route.cacheControl], [
      "GetAuthorizationServerMetadata",
      "public, max-age=3600",
    ]);
  },
);

RouteTable("console routes bind several variables and answer in the developer family", () => {
  assert.equal(summary(table.match("PATCH", "/v1/console/organizations/org_1/members/acc_2")), {
    rpc: "ConsoleService.UpdateOrganizationMember",
    pathParams: { organization_id: "org_1", account_id: "acc_2" },
    family: "developer",
    partnerCall: false,
    bodyIsRequest: true,
    contentType: "application/json",
    cacheControl: undefined,
    scope: "",
  });
  const remove = table.match("DELETE", "/v1/console/organizations/org_1/members/acc_2");
  assert.equal(remove.kind === "found" && [remove.route.method.name, remove.route.family, remove.route.bodyIsRequest], [
    "RemoveOrganizationMember",
    "developer",
    false,
  ]);
});

RouteTable(
  "a known path with another method: method_not_allowed with every allowed method, in the path's family",
  () => {
    assert.equal(table.match("DELETE", "/v1/items"), {
      kind: "method_not_allowed",
      allow: ["GET", "POST"],
      family: "partner",
    });
    assert.equal(table.match("POST", "/v1/items/42"), {
      kind: "method_not_allowed",
      allow: ["PATCH", "GET", "DELETE"],
      family: "partner",
    });
    assert.equal(table.match("GET", "/v1/oauth/token"), {
      kind: "method_not_allowed",
      allow: ["POST"],
      family: "oauth",
    });
    assert.equal(table.match("POST", "/v1/console/organizations/org_1/members/acc_2"), {
      kind: "method_not_allowed",
      allow: ["PATCH", "DELETE"],
      family: "developer",
    });
    assert.equal(table.match("HEAD", "/v1/stores"), { kind: "method_not_allowed", allow: ["GET"], family: "partner" });
  },
);

RouteTable("RFC 9110 9.1: method names are case-sensitive, so 'get' is not GET", () => {
  assert.equal(table.match("get", "/v1/stores"), { kind: "method_not_allowed", allow: ["GET"], family: "partner" });
});

RouteTable("an unknown path takes the family of the routes sharing its longest literal prefix beyond /v1", () => {
  assert.equal(table.match("POST", "/v1/oauth/tokn"), { kind: "not_found", family: "oauth" });
  assert.equal(table.match("GET", "/v1/console/nope"), { kind: "not_found", family: "developer" });
  assert.equal(table.match("POST", "/v1/token/extra"), { kind: "not_found", family: "developer" });
  assert.equal(table.match("GET", "/v1/items/42/extra"), { kind: "not_found", family: "partner" });
});

RouteTable("sharing only /v1, or nothing, falls back to the partner envelope", () => {
  assert.equal(table.match("GET", "/v1/nope"), { kind: "not_found", family: "partner" });
  assert.equal(table.match("GET", "/nothing"), { kind: "not_found", family: "partner" });
  assert.equal(table.match("GET", "/"), { kind: "not_found", family: "partner" });
  assert.equal(table.match("GET", "/.well-known/other"), { kind: "not_found", family: "partner" });
});

RouteTable(
  "trailing slashes, empty variables and malformed escapes match nothing; a bad escape answers in the family of its literal prefix",
  () => {
    assert.equal(table.match("GET", "/v1/stores/"), { kind: "not_found", family: "partner" });
    assert.equal(table.match("PATCH", "/v1/items/"), { kind: "not_found", family: "partner" });
    assert.equal(table.match("PATCH", "/v1/items/%zz"), { kind: "not_found", family: "partner" });
    assert.equal(table.match("POST", "/v1/oauth/%zz"), { kind: "not_found", family: "oauth" });
    assert.equal(table.match("GET", "/v1/console/apps/%FF"), { kind: "not_found", family: "developer" });
    assert.equal(table.match("GET", "/v1/console/apps/%ED%A0%80/submit"), { kind: "not_found", family: "developer" });
  },
);

RouteTable("two RPCs on one method and path stop the start", () => {
  assert.throws(
    () => createRouteTable([TokenService, TokenService]),
    (error: Error) => error.message === "two RPCs map onto POST /v1/oauth/token",
  );
});

RouteTable.run();
