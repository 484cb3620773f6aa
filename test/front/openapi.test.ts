// src/front/openapi.ts and GET /v1/openapi.json: the OpenAPI 3.1 document the front serves is valid (a maintained
// validator, the official schemas), and every route of the route table is in it with its method, parameters or
// body, its family's error shape, its security and (partner routes) the rate-limit headers.
import { readFile } from "node:fs/promises";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Validator } from "@seriousme/openapi-schema-validator";
import { getOption } from "@bufbuild/protobuf";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { field as fieldOption } from "../../gen/partnerapi/v1/options_pb.js";
import { createRouteTable, type Route } from "../../src/front/route-table.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { minPasswordLength } from "../../src/console/password-policy.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { recordAccessRequestEvent, recordGrantEvent } from "../../src/grant/grant-events.js";
import type { SqlClient } from "../../src/storage/sql-client.js";

const OpenApi = suite("front/openapi");
const clock = createManualClock(Date.UTC(2026, 0, 15, 10, 0, 0));
/** The services src/app.ts gives the front. */
const table = createRouteTable([TokenService, DataService, ConsoleService, WebhookService]);

// The document is walked by path in every assertion below, and checked whole against the OpenAPI 3.1 schema (the
// "validates" test): a field that is not there fails the assertion that reads it.
// biome-ignore lint/suspicious/noExplicitAny: a typed OpenAPI document would restate the schema the validator holds.
type Json = Record<string, any>;
let test: TestApp;
let response: Response;
let doc: Json;

OpenApi.before(async () => {
  test = await startTestApp({ clock, redis: Boolean(process.env["TEST_REDIS_URL"]) });
  response = await fetch(`${test.base}/v1/openapi.json`);
  doc = (await response.json()) as Json;
});
OpenApi.after(async () => {
  await test.stop();
});

// Paths name their variables by JSON name, as the wire does ({organizationId}, not the template's {organization_id}).
const operationOf = (route: Route): Json | undefined => {
  const jsonNames = new Map(route.method.input.fields.map((field) => [field.name, field.jsonName]));
  const path = route.template.source.replace(/\{([a-z0-9_]+)\}/g, (_, name: string) => `{${jsonNames.get(name)}}`);
  return doc["paths"][path]?.[route.httpMethod.toLowerCase()];
};
const pathVariables = (route: Route) =>
  route.template.segments.flatMap((segment) => ("variable" in segment ? [segment.variable] : []));
const pathJsonNames = (route: Route) =>
  pathVariables(route).map((name) => route.method.input.fields.find((field) => field.name === name)!.jsonName);

OpenApi(
  "one wire: console paths and fields in lowerCamel, enums in the spec's spellings; GET /v1/online-orders with its filters",
  () => {
    assert.ok(doc["paths"]["/v1/console/organizations/{organizationId}/apps"]["post"]);
    assert.is(doc["paths"]["/v1/console/organizations/{organization_id}/apps"], undefined);
    const createApp = doc["paths"]["/v1/console/organizations/{organizationId}/apps"]["post"];
    assert.equal(createApp["requestBody"]["content"]["application/json"]["schema"]["properties"]["product"], {
      type: "string",
      enum: ["FULL", "ONLINE_ORDER", "ADSR"],
    });
    const list = doc["paths"]["/v1/online-orders"]["get"];
    assert.equal(
      list["parameters"].map((p: Json) => p["name"]),
      ["companyId", "limit", "cursor", "status", "placedFrom", "placedTo", "updatedFrom", "externalReference"],
    );
    assert.equal(list["security"], [
      { partnerOAuth: ["orders.read"] },
      { bearerToken: [] },
      { dpopToken: [] },
      { apiKey: [] },
    ]);
    // Placing an order: its body as the front validates it (1 to 50 lines, quantity 1 to 99, the fulfilment enum).
    const placing = doc["paths"]["/v1/online-orders"]["post"];
    assert.is(placing["summary"], "PlaceOnlineOrder");
    assert.equal(placing["security"], [
      { partnerOAuth: ["orders.write"] },
      { bearerToken: [] },
      { dpopToken: [] },
      { apiKey: [] },
    ]);
    const body = placing["requestBody"]["content"]["application/json"]["schema"];
    assert.equal(body["required"], ["storeId", "lines", "fulfilment", "customer", "externalReference"]);
    assert.equal([body["properties"]["lines"]["minItems"], body["properties"]["lines"]["maxItems"]], [1, 50]);
    assert.equal(
      [
        body["properties"]["lines"]["items"]["properties"]["quantity"]["minimum"],
        body["properties"]["lines"]["items"]["properties"]["quantity"]["maximum"],
      ],
      [1, 99],
    );
    assert.equal(body["properties"]["fulfilment"]["properties"]["type"]["enum"], ["PICKUP", "DELIVERY"]);
    // A line's modifiers (issue 39): at most 50, each a modifier id with a quantity of 1 to 50; the answered line
    // carries them as copied, and the refusals are codes of the partner envelope.
    const modifiers = body["properties"]["lines"]["items"]["properties"]["modifiers"];
    assert.is(modifiers["maxItems"], 50);
    assert.equal(modifiers["items"]["required"], ["modifierId"]);
    assert.equal(
      [
        modifiers["items"]["properties"]["quantity"]["minimum"],
        modifiers["items"]["properties"]["quantity"]["maximum"],
      ],
      [1, 50],
    );
    const schemas = doc["components"]["schemas"];
    assert.equal(schemas["partnerapi.v1.OrderLine"]["properties"]["modifiers"]["items"], {
      $ref: "#/components/schemas/partnerapi.v1.OrderLineModifier",
    });
    assert.equal(Object.keys(schemas["partnerapi.v1.OrderLineModifier"]["properties"]), [
      "name",
      "priceMinor",
      "quantity",
    ]);
    for (const code of [
      "partner.modifier_selections_out_of_range",
      "partner.modifier_not_found",
      "partner.modifier_sold_out",
    ])
      assert.ok(schemas["PartnerError"]["properties"]["code"]["enum"].includes(code), code);
    assert.ok(doc["paths"]["/v1/online-orders/{id}/cancel"]["post"]);
    assert.ok(doc["paths"]["/v1/sandbox/online-orders/{id}/status"]["post"]);
  },
);

OpenApi("GET /v1/openapi.json: 200 JSON, cacheable, anonymous, not a partner call (no rate-limit headers)", () => {
  assert.is(response.status, 200);
  assert.is(response.headers.get("content-type"), "application/json");
  assert.is(response.headers.get("cache-control"), "public, max-age=300");
  assert.is(response.headers.get("x-ratelimit-limit"), null);
  assert.is(doc["openapi"], "3.1.1");
});

OpenApi("the served document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)", async () => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  assert.equal(result.errors, undefined);
  assert.is(result.valid, true);
  assert.is(validator.version, "3.1");
});

OpenApi(
  "the validator does refuse a broken document (a path parameter that is not required; a webhook header in no valid place)",
  async () => {
    const broken = structuredClone(doc);
    broken["paths"]["/v1/items/{id}"]["patch"]["parameters"][0]["required"] = false;
    assert.is((await new Validator().validate(broken)).valid, false);
    // And a webhook whose header parameter is in no valid place.
    const brokenWebhook = structuredClone(doc);
    brokenWebhook["components"]["parameters"]["webhook-id"]["in"] = "body";
    assert.is((await new Validator().validate(brokenWebhook)).valid, false);
  },
);

OpenApi(
  "info.version is the package version; one server, BASE_URL's origin, and whole paths under it (/v1/..., /.well-known/...)",
  async () => {
    const manifest = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    assert.is(doc["info"]["version"], manifest.version);
    assert.equal(
      doc["servers"].map((server: Json) => server["url"]),
      [test.config.urls.base.replace(/\/$/, "")],
    );
    assert.equal(
      Object.keys(doc["paths"]).filter((path) => !path.startsWith("/v1/") && !path.startsWith("/.well-known/")),
      [],
    );
    assert.ok(doc["paths"]["/.well-known/jwks.json"]["get"]);
    assert.ok(doc["paths"]["/v1/items"]["get"]);
    // No path or operation names servers of its own: generators that ignore them (openapi-fetch) resolve the same URLs.
    for (const [path, item] of Object.entries(doc["paths"] as Json)) {
      assert.is(item["servers"], undefined, path);
      for (const operation of Object.values(item as Json)) assert.is((operation as Json)["servers"], undefined, path);
    }
  },
);

OpenApi("every route of the route table is in paths, and nothing else is", () => {
  const operations = Object.values(doc["paths"] as Json).flatMap((item) =>
    Object.keys(item).filter((key) => key !== "servers"),
  );
  assert.is(operations.length, table.routes.length);
  for (const route of table.routes) {
    const operation = operationOf(route);
    assert.ok(operation, `${route.httpMethod} ${route.template.source}`);
    assert.is(operation!["operationId"], `${route.service.name}.${route.method.name}`);
  }
});

OpenApi(
  "each route: its path parameters, its query parameters (GET) or its body fields, required as the rules say",
  () => {
    for (const route of table.routes) {
      const operation = operationOf(route)!;
      const where = `${route.httpMethod} ${route.template.source}`;
      const parameters = (operation["parameters"] ?? []) as Json[];
      const variables = pathVariables(route);
      assert.equal(
        parameters.filter((p) => p["in"] === "path").map((p) => [p["name"], p["required"]]),
        pathJsonNames(route).map((name) => [name, true]),
        where,
      );
      const free = route.method.input.fields.filter((field) => !variables.includes(field.name));
      // Required by the front, or by the service with its own code (service_checked: report windows).
      const required = free
        .filter(
          (field) => getOption(field, fieldOption).required || getOption(field, fieldOption).serviceChecked?.required,
        )
        .map((field) => field.jsonName);
      if (route.bodyIsRequest) {
        assert.is(parameters.filter((p) => p["in"] === "query").length, 0, where);
        for (const mediaType of ["application/json", "application/x-www-form-urlencoded"]) {
          const schema = operation["requestBody"]["content"][mediaType]["schema"];
          assert.equal(
            Object.keys(schema["properties"]),
            free.map((field) => field.jsonName),
            where,
          );
          assert.equal(schema["required"] ?? [], required, where);
          assert.is(schema["additionalProperties"], false, where);
        }
        assert.is(operation["requestBody"]["required"], required.length > 0, where);
      } else {
        assert.is(operation["requestBody"], undefined, where);
        const query = parameters.filter((p) => p["in"] === "query");
        assert.equal(
          query.map((p) => p["name"]),
          free.map((field) => field.jsonName),
          where,
        );
        assert.equal(
          query.filter((p) => p["required"]).map((p) => p["name"]),
          required,
          where,
        );
      }
    }
  },
);

OpenApi(
  "each route: its success status (200, or the route's success_status) with its output message, its family's error shape for 4XX and 5XX, its security",
  () => {
    const errorOf = { oauth: "OAuthError", developer: "DeveloperError", partner: "PartnerError" } as const;
    for (const route of table.routes) {
      const operation = operationOf(route)!;
      const where = `${route.httpMethod} ${route.template.source}`;
      const ok = operation["responses"][String(route.successStatus)];
      assert.is(route.successStatus, route.template.source === "/v1/oauth/par" ? 201 : 200, where);
      assert.equal(
        ok["content"][route.contentType]["schema"],
        { $ref: `#/components/schemas/${route.method.output.typeName}` },
        where,
      );
      assert.ok(doc["components"]["schemas"][route.method.output.typeName], where);
      const error = route.partnerCall ? "PartnerCallError" : errorOf[route.family];
      assert.equal(operation["responses"]["4XX"], { $ref: `#/components/responses/${error}` }, where);
      assert.equal(operation["responses"]["5XX"], { $ref: `#/components/responses/${error}` }, where);
      const component = doc["components"]["responses"][error];
      assert.equal(
        component["content"]["application/json"]["schema"],
        { $ref: `#/components/schemas/${errorOf[route.family]}` },
        where,
      );
      const security = operation["security"];
      if (route.partnerCall) {
        assert.equal(
          security,
          [{ partnerOAuth: [route.scope] }, { bearerToken: [] }, { dpopToken: [] }, { apiKey: [] }],
          where,
        );
        assert.equal(
          Object.keys(ok["headers"]).filter((name) => name.startsWith("X-RateLimit")),
          ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"],
          where,
        );
        const limited = doc["components"]["responses"][operation["responses"]["429"]["$ref"].split("/").pop()];
        assert.ok(limited["headers"]["Retry-After"], where);
        assert.ok(limited["headers"]["X-RateLimit-Reset"], where);
      } else if (route.template.source.startsWith("/v1/console/")) {
        // A session is never optional: the routes that start one need none, every other needs one.
        const sessionFree = [
          "SignUp",
          "VerifyEmail",
          "RequestPasswordReset",
          "ResetPassword",
          "SignIn",
          "RefreshSession",
        ].includes(route.method.name);
        assert.equal(security, sessionFree ? undefined : [{ consoleSession: [] }], where);
      } else if (route.template.source.startsWith("/.well-known/")) {
        assert.equal(security, undefined, where);
      } else {
        assert.equal(security, [{ clientSecretBasic: [] }, {}], where);
      }
    }
  },
);

OpenApi(
  "field rules reach the schemas: limit 1..100, code_verifier 43..128 with its pattern, int64 ids as integers",
  () => {
    const limit = (doc["paths"]["/v1/items"]["get"]["parameters"] as Json[]).find((p) => p["name"] === "limit")!;
    assert.equal(limit["schema"], { type: "integer", format: "int32", minimum: 1, maximum: 100 });
    const token = doc["paths"]["/v1/oauth/token"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert.is(token["properties"]["code_verifier"]["minLength"], 43);
    assert.is(token["properties"]["code_verifier"]["maxLength"], 128);
    assert.is(token["properties"]["code_verifier"]["pattern"], "^(?:[A-Za-z0-9._~-]+)$");
    const exchanged = doc["components"]["schemas"]["partnerapi.v1.ExchangeTokenResponse"];
    assert.equal(exchanged["properties"]["merchant_id"], { type: "integer", format: "int64" });
    assert.is(
      doc["paths"]["/v1/oauth/token"]["post"]["responses"]["200"]["content"]["application/json"]["example"][
        "expires_in"
      ],
      900,
    );
  },
);

OpenApi(
  "what the services check themselves is stated too: report windows required dates, passwords of 12, date-time bounds",
  () => {
    for (const path of ["/v1/reports/daily-sales", "/v1/reports/sales-by-store"]) {
      const parameters = doc["paths"][path]["get"]["parameters"] as Json[];
      for (const name of ["from", "to"]) {
        const parameter = parameters.find((p) => p["name"] === name)!;
        assert.is(parameter["required"], true, `${path} ${name}`);
        assert.equal(
          parameter["schema"],
          { type: "string", description: parameter["schema"]["description"], maxLength: 32, format: "date" },
          `${path} ${name}`,
        );
      }
    }
    const orders = doc["paths"]["/v1/online-orders"]["get"]["parameters"] as Json[];
    for (const name of ["placedFrom", "placedTo"]) {
      const parameter = orders.find((p) => p["name"] === name)!;
      assert.is(parameter["schema"]["format"], "date-time", name);
      assert.is(parameter["required"], undefined, name);
    }
    const body = (path: string) => doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert.is(body("/v1/console/account/sign-up")["properties"]["password"]["minLength"], minPasswordLength);
    assert.is(minPasswordLength, 12);
    assert.is(body("/v1/console/account/password-reset/confirm")["properties"]["newPassword"]["minLength"], 12);
    // Sign-in keeps accepting any stored password: no minimum stated there.
    assert.is(body("/v1/console/session/sign-in")["properties"]["password"]["minLength"], 1);
  },
);

OpenApi(
  "every timestamp of every response is format: date-time (the ..._at fields, and the partner envelope's)",
  () => {
    const stamps: string[] = [];
    for (const [name, schema] of Object.entries(doc["components"]["schemas"] as Json)) {
      for (const [property, value] of Object.entries((schema["properties"] ?? {}) as Json)) {
        if (/At$/.test(property) || property === "timestamp") {
          stamps.push(`${name}.${property}`);
          assert.equal(value, { type: "string", format: "date-time" }, `${name}.${property}`);
        }
      }
    }
    for (const expected of [
      "partnerapi.v1.Item.createdAt",
      "partnerapi.v1.Item.updatedAt",
      "partnerapi.v1.OnlineOrder.placedAt",
      "PartnerError.timestamp",
    ]) {
      assert.ok(stamps.includes(expected), expected);
    }
  },
);

OpenApi(
  "a console route without a session is 401 developer.unauthenticated; a session-free one is reached without it",
  async () => {
    const account = await fetch(`${test.base}/v1/console/account`);
    assert.is(account.status, 401);
    assert.is(((await account.json()) as Json)["error"]["code"], "developer.unauthenticated");
    const signIn = await fetch(`${test.base}/v1/console/session/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@example.com", password: "not the password" }),
    });
    assert.is(signIn.status, 401);
    assert.is(((await signIn.json()) as Json)["error"]["code"], "developer.sign_in_failed");
  },
);

OpenApi(
  "security schemes: authorization code (PKCE) and client credentials flows, bearer, X-API-Key, Basic, console",
  () => {
    const schemes = doc["components"]["securitySchemes"];
    const flows = schemes["partnerOAuth"]["flows"];
    assert.is(flows["authorizationCode"]["authorizationUrl"], `${test.auth}/oauth/authorize`);
    assert.is(flows["authorizationCode"]["tokenUrl"], `${test.config.urls.base}v1/oauth/token`);
    assert.is(flows["clientCredentials"]["tokenUrl"], `${test.config.urls.base}v1/token`);
    assert.ok(Object.keys(flows["authorizationCode"]["scopes"]).includes("items.read"));
    assert.equal(schemes["apiKey"], {
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
      description: schemes["apiKey"]["description"],
    });
    assert.is(schemes["bearerToken"]["bearerFormat"], "JWT");
    assert.is(schemes["dpopToken"]["scheme"], "DPoP");
    assert.is(schemes["clientSecretBasic"]["scheme"], "basic");
    assert.is(schemes["consoleSession"]["scheme"], "bearer");
  },
);

/** An object's keys in sorted order (jsonb keeps keys in an order of its own). */
const sortedKeys = (value: Json) => Object.keys(value).sort();

/**
 * The `data` a writer records: its outbox row, read back inside the writer's transaction on the test app's control
 * database, which is then rolled back (nothing is sent).
 */
async function recordedData(write: (tx: SqlClient) => Promise<void>): Promise<Json> {
  const rolledBack = new Error("rolled back");
  let data: Json | undefined;
  await test.app.control.sql
    .begin(async (tx) => {
      await write(tx);
      const rows = await tx<{ data: Json }[]>`select data from control.webhook_outbox order by id desc limit 1`;
      data = rows[0]!.data;
      throw rolledBack;
    })
    .catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
  return data!;
}

OpenApi(
  "webhooks: one POST per event type with the Standard Webhooks headers, the payload (type, timestamp, data) and 2XX",
  () => {
    const webhooks = doc["webhooks"] as Json;
    assert.equal(Object.keys(webhooks), [
      "online_order.created",
      "online_order.updated",
      "item.created",
      "item.updated",
      "item.deleted",
      "category.created",
      "category.updated",
      "store.updated",
      "grant.created",
      "grant.revoked",
      "access_request.approved",
      "access_request.declined",
      "access_request.withdrawn",
      "access_request.expired",
      "webhook.test",
    ]);
    const dataOf: Record<string, string> = {
      "online_order.created": "OnlineOrderEventData",
      "online_order.updated": "OnlineOrderEventData",
      "item.created": "ItemEventData",
      "item.updated": "ItemEventData",
      "item.deleted": "ItemEventData",
      "category.created": "CategoryEventData",
      "category.updated": "CategoryEventData",
      "store.updated": "StoreEventData",
      "grant.created": "GrantEventData",
      "grant.revoked": "GrantEventData",
      "access_request.approved": "AccessRequestEventData",
      "access_request.declined": "AccessRequestEventData",
      "access_request.withdrawn": "AccessRequestEventData",
      "access_request.expired": "AccessRequestEventData",
      "webhook.test": "TestEventData",
    };
    for (const [type, item] of Object.entries(webhooks)) {
      assert.equal(Object.keys(item), ["post"], type);
      const operation = item["post"];
      assert.is(operation["operationId"], `webhook.${type}`);
      assert.equal(operation["tags"], ["Webhooks"]);
      assert.equal(operation["parameters"], [
        { $ref: "#/components/parameters/webhook-id" },
        { $ref: "#/components/parameters/webhook-timestamp" },
        { $ref: "#/components/parameters/webhook-signature" },
      ]);
      assert.is(operation["requestBody"]["required"], true);
      assert.equal(Object.keys(operation["requestBody"]["content"]), ["application/json"]);
      assert.equal(operation["requestBody"]["content"]["application/json"]["schema"], {
        type: "object",
        properties: {
          type: { type: "string", const: type },
          timestamp: { type: "string", format: "date-time", description: "When the change happened." },
          data: { $ref: `#/components/schemas/${dataOf[type]}` },
        },
        required: ["type", "timestamp", "data"],
        additionalProperties: false,
      });
      assert.equal(Object.keys(operation["responses"]), ["2XX", "default"]);
      assert.is(operation["security"], undefined, "a partner's receiver is called, not calling");
    }
    const parameters = doc["components"]["parameters"];
    assert.equal(Object.keys(parameters), ["webhook-id", "webhook-timestamp", "webhook-signature"]);
    for (const [name, parameter] of Object.entries(parameters as Json)) {
      assert.equal([parameter["name"], parameter["in"], parameter["required"]], [name, "header", true]);
    }
    assert.equal(parameters["webhook-id"]["schema"], { type: "string", pattern: "^msg_[A-Za-z0-9_-]{22}$" });
    assert.equal(parameters["webhook-timestamp"]["schema"], { type: "string", pattern: "^[0-9]+$" });
    const signature = new RegExp(parameters["webhook-signature"]["schema"]["pattern"] as string);
    assert.ok(signature.test("v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="));
    assert.ok(
      signature.test("v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1,3Fv9b0ywbTk1MWWMqE6b6y+d0cPAZTiAsmQexN2wwa8="),
    );
    assert.not.ok(signature.test("v2,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="));
  },
);

OpenApi(
  "webhooks: each data schema names exactly the fields its writer records; an order is the routes' OnlineOrder",
  async () => {
    const schemas = doc["components"]["schemas"];
    const at = new Date(clock.now());
    const grant = await recordedData((tx) =>
      recordGrantEvent(
        tx,
        { id: 7, appId: "app_1", companyId: 4211, environment: "PRODUCTION", createdAt: at, revokedAt: at },
        "merchant_disconnected",
        at,
      ),
    );
    assert.equal(sortedKeys(schemas["GrantEventData"]["properties"]), sortedKeys(grant));
    assert.equal(
      sortedKeys(schemas["GrantEventData"]["properties"]["grant"]["properties"]),
      sortedKeys(grant["grant"]),
    );
    assert.equal([...schemas["GrantEventData"]["properties"]["grant"]["required"]].sort(), sortedKeys(grant["grant"]));
    assert.equal(schemas["GrantEventData"]["properties"]["grant"]["properties"]["environment"], {
      type: "string",
      enum: ["sandbox", "production"],
    });
    assert.equal(schemas["GrantEventData"]["properties"]["grant"]["properties"]["revokedAt"], {
      type: ["string", "null"],
      format: "date-time",
    });
    const request = await recordedData((tx) =>
      recordAccessRequestEvent(
        tx,
        {
          id: 3,
          app_id: "app_2",
          company_id: 4211,
          store_ids: [1, 2],
          approved_store_ids: [1],
          state: "APPROVED",
          created_at: at,
          expires_at: at,
          decided_at: at,
          decided_by_user_id: 9,
          withdrawn_at: null,
          withdrawn_by_user_id: null,
        } as Parameters<typeof recordAccessRequestEvent>[1],
        "APPROVED",
        at,
      ),
    );
    const accessRequest = schemas["AccessRequestEventData"]["properties"]["accessRequest"];
    assert.equal(sortedKeys(schemas["AccessRequestEventData"]["properties"]), sortedKeys(request));
    assert.equal(sortedKeys(accessRequest["properties"]), sortedKeys(request["accessRequest"]));
    assert.equal([...accessRequest["required"]].sort(), sortedKeys(request["accessRequest"]));
    assert.equal(accessRequest["properties"]["state"]["enum"], ["APPROVED", "DECLINED", "WITHDRAWN", "EXPIRED"]);
    assert.equal(schemas["TestEventData"], {
      type: "object",
      description: "The endpoint tested and its app.",
      properties: { endpointId: { type: "string" }, appId: { type: "string" } },
      required: ["endpointId", "appId"],
      additionalProperties: false,
    });
    assert.equal(schemas["OnlineOrderEventData"]["properties"], {
      companyId: { type: "integer" },
      order: { $ref: "#/components/schemas/partnerapi.v1.OnlineOrder" },
    });
    assert.equal(schemas["OnlineOrderEventData"]["required"], ["companyId", "order"]);
    assert.equal(schemas["partnerapi.v1.GetOnlineOrderResponse"]["properties"]["order"], {
      $ref: "#/components/schemas/partnerapi.v1.OnlineOrder",
    });
    assert.ok(schemas["partnerapi.v1.OnlineOrder"]["properties"]["status"]);
  },
);

OpenApi("the error examples are what the renderer answers: the partner 429 names partner.rate_limited", () => {
  const example = doc["components"]["responses"]["PartnerCallErrorRetry"]["content"]["application/json"]["example"];
  assert.is(example["code"], "partner.rate_limited");
  assert.is(example["statusCode"], 429);
  assert.equal(example["params"], { retryAfter: 18 });
  assert.is(
    doc["components"]["responses"]["OAuthError"]["content"]["application/json"]["example"]["error"],
    "invalid_client",
  );
});

OpenApi(
  "a Menu sync section: the tag's polling loop, tombstones and events, on the three feeds with updatedFrom",
  () => {
    const [tag] = doc["tags"] as Json[];
    assert.is(tag!["name"], "Menu sync");
    for (const words of [
      "nextCursor",
      "updatedFrom",
      "deleted: true",
      "tombstone",
      "category.updated",
      "store.updated",
    ])
      assert.ok((tag!["description"] as string).includes(words), words);
    for (const path of ["/v1/items", "/v1/stores", "/v1/categories"]) {
      const list = doc["paths"][path]["get"];
      assert.equal(list["tags"], ["DataService", "Menu sync"], path);
      assert.ok(
        list["parameters"].some((parameter: Json) => parameter["name"] === "updatedFrom"),
        `${path} takes updatedFrom`,
      );
    }
    assert.equal(doc["paths"]["/v1/items/{id}"]["get"]["tags"], ["DataService"]);
    assert.ok(doc["paths"]["/v1/categories/{id}"]["patch"], "PATCH /v1/categories/{id}");
    const category = doc["components"]["schemas"]["partnerapi.v1.Category"];
    for (const field of ["sortOrder", "itemIds", "updatedAt"]) assert.ok(category["properties"][field], field);
  },
);

OpenApi.run();
