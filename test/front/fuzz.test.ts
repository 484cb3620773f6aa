// A property-based test over every route of the front's route table (issue 15, "A fuzzer that keeps it so"): each
// route's request is generated from its request message (fields, types, (partnerapi.v1.field) rules) and then
// mutated (wrong types, boundary numbers, lone surrogates, NUL, control and bidirectional characters, huge strings,
// duplicated and prototype keys, percent-encodings that are not UTF-8, wrong and odd content types), sent over
// real HTTP to the real app, anonymously, with garbage, and with a valid credential of the route's kind. It holds
// that no answer is a 5xx, every answer is in the route family's shape, and a refused write leaves no row.
//
// FUZZ_SEED (default a constant) and FUZZ_RUNS (runs per route) make it repeatable and bounded; a failure prints the
// seed, the fast-check path and the request, and FUZZ_SEED=… FUZZ_PATH=… FUZZ_ROUTE="POST /v1/items" replays it.
// `npm test` runs 50 per route; CI's real-services stage runs 200 (.ci/run sets FUZZ_RUNS). With one seed the 50 are
// the first 50 of the 200 (fast-check draws run i, and its bias, from the seed and i, not from the count).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { createClient } from "@connectrpc/connect";
import { getOption, ScalarType, type DescField } from "@bufbuild/protobuf";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { WebhookService } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { field as fieldOption } from "../../gen/partnerapi/v1/options_pb.js";
import { createRouteTable, type Route } from "../../src/front/route-table.js";
import { appSigningKey, createFixture, gatewayClock, testKek, tokenFor, type Fixture } from "../support/gateway.js";
import { grpcTransport } from "../support/internal.js";
import { consoleCall, mailedLink, tokenOf } from "../support/console.js";
import { randomAddress } from "../support/consent.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { wireEnumValues } from "../../src/runtime/wire/index.js";
import type { SigningKey } from "../../src/token/access-token.js";

const seed = Number(process.env["FUZZ_SEED"] ?? 20261115);
const runsPerRoute = Number(process.env["FUZZ_RUNS"] ?? 50);
const onlyRoute = process.env["FUZZ_ROUTE"];
const replayPath = process.env["FUZZ_PATH"];

const Fuzz = suite("front/fuzz");
const clock = gatewayClock();
let test: TestApp;
let key: SigningKey;
let fixture: Fixture;
const password = "correct horse battery staple";

/** What a generated request may refer to: ids and secrets that exist, so the service behind validation runs too. */
interface Known {
  consoleToken: string;
  /** A second session, for the routes that end or rotate the one they are called with. */
  spareToken: string;
  refreshToken: string;
  organizationId: number;
  appId: string;
  clientId: string;
  clientSecret: string;
  apiKeyId: string;
  companyId: number;
}
let known: Known;

const routes = createRouteTable([TokenService, DataService, ConsoleService, WebhookService]).routes.filter(
  (route) => onlyRoute === undefined || `${route.httpMethod} ${route.template.source}` === onlyRoute,
);

Fuzz.before(async () => {
  // Limits high enough never to bind: a 429 is a valid answer, but it would hide the validation and the service.
  const unlimited = "1000000";
  test = await startTestApp({
    clock,
    redis: true,
    env: {
      TRUST_PROXY: "127.0.0.1",
      TOKEN_KEY_ENCRYPTION_KEY: testKek,
      PARTNER_RATE_LIMIT: unlimited,
      SANDBOX_TOKEN_RATE_LIMIT: unlimited,
      OAUTH_TOKEN_CLIENT_RATE_LIMIT: unlimited,
      OAUTH_TOKEN_ADDRESS_RATE_LIMIT: unlimited,
      CONSOLE_SIGN_IN_LIMIT: unlimited,
      CONSOLE_SIGN_UP_ADDRESS_LIMIT: unlimited,
      CONSOLE_RESET_ADDRESS_LIMIT: unlimited,
      CONSOLE_INVITE_LIMIT: unlimited,
      CONSOLE_SANDBOX_PROVISION_LIMIT: unlimited,
    },
  });
  key = await appSigningKey(test.app.control.sql, test.config.dataDir, clock);
  fixture = await createFixture(test.app.control.sql, (region) => test.app.regionDatabases.get(region)?.sql, clock, {
    region: "uk",
  });
  known = await consoleWorld();
});
Fuzz.after(async () => {
  if (process.env["FUZZ_VERBOSE"])
    for (const [name, seen] of statuses) console.log(name, JSON.stringify([...seen].sort()));
  await test.stop();
});

/** A developer admitted to the program with an organization, a FULL app, an ADSR app's API key and a sandbox merchant. */
async function consoleWorld(): Promise<Known> {
  const api = async (method: string, path: string, body?: unknown, token?: string) => {
    const answer = await consoleCall(test.base, method, path, body, token, randomAddress());
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, Record<string, unknown>>;
  };
  const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/fuzz" });
  const email = `fuzz.${process.pid}@fuzz.test`;
  await api("POST", "/v1/console/account/sign-up", { email, password });
  await api("POST", "/v1/console/account/verify-email", { token: tokenOf(await mailedLink(test, email)) });
  const spare = (await api("POST", "/v1/console/session/sign-in", { email, password }))["session"]!;
  const token = String(
    (await api("POST", "/v1/console/session/sign-in", { email, password }))["session"]!["accessToken"],
  );
  const applied = await api("POST", "/v1/console/program/applications", { companyName: "Fuzz Ltd" }, token);
  await staff.decideProgramApplication({
    applicationId: BigInt(Number(applied["application"]!["applicationId"])),
    approve: true,
  });
  const agreement = (await api("GET", "/v1/console/program/agreement", undefined, token))["agreement"]!;
  await api("POST", "/v1/console/program/agreement/signatures", { version: agreement["version"] }, token);
  const organizationId = Number(
    (await api("POST", "/v1/console/organizations", { name: "Fuzz org" }, token))["organization"]!["organizationId"],
  );
  const created = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/apps`,
    { name: "Fuzz app", product: "FULL" },
    token,
  );
  const appId = String(created["app"]!["appId"]);
  const adsr = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/apps`,
    { name: "Fuzz ADSR app", product: "ADSR" },
    token,
  );
  const apiKey = await api(
    "POST",
    `/v1/console/apps/${String(adsr["app"]!["appId"])}/api-keys`,
    { name: "fuzz", environment: "SANDBOX" },
    token,
  );
  const merchant = await api(
    "POST",
    `/v1/console/organizations/${organizationId}/sandbox-merchants`,
    { country: "GB", name: "Fuzz shop" },
    token,
  );
  return {
    consoleToken: token,
    spareToken: String(spare["accessToken"]),
    refreshToken: String(spare["refreshToken"]),
    organizationId,
    appId,
    clientId: String(created["sandbox"]!["clientId"]),
    clientSecret: String(created["sandbox"]!["clientSecret"]),
    apiKeyId: String(apiKey["apiKey"]!["apiKeyId"]),
    companyId: Number(merchant["merchant"]?.["companyId"] ?? fixture.companyId),
  };
}

// ---- Generators -------------------------------------------------------------------------------------------------

/** Strings that have broken something somewhere: each alone, or inside an otherwise fine value. */
const nasty = [
  "\ud800",
  "\udfff",
  "\udc00\ud800",
  "\u0000",
  "%00",
  "\u0007",
  "\u001b[31m",
  "\r\n",
  "\t",
  "\u0085",
  "\u007f",
  "\u202e",
  "\u2066",
  "\u200f",
  "\ufeff",
  "\ufffd",
  "\uffff",
  "😀",
  "e\u0301",
  "'",
  '"',
  "\\",
  "<script>",
  "../",
  "%",
  "%FF",
  "null",
  "undefined",
  "NaN",
  "-0",
  "1e309",
  "９",
  "__proto__",
  " ",
  "",
];

const nastyString = fc.oneof(
  fc.constantFrom(...nasty),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...nasty), fc.string({ maxLength: 8 }))
    .map(([a, b, c]) => a + b + c),
);

/** A string within the field's rules, or a known id when the field names one. */
function fineString(field: DescField): fc.Arbitrary<string> {
  const rules = getOption(field, fieldOption);
  const max = rules.maxLength ?? 40;
  const minLength = Math.max(rules.minLength ?? 0, rules.required ? 1 : 0);
  const base = fc.string({ minLength, maxLength: Math.max(minLength, Math.min(max, 40)) });
  // Built when the property runs, after the world is made.
  const ids: Record<string, () => fc.Arbitrary<string>> = {
    app_id: () => fc.constant(known.appId),
    client_id: () => fc.constant(known.clientId),
    client_secret: () => fc.constant(known.clientSecret),
    api_key_id: () => fc.constant(known.apiKeyId),
    refresh_token: () => fc.constant(known.refreshToken),
    grant_type: () => fc.constant("client_credentials"),
    email: () => fc.constant(`fuzz.${process.pid}@fuzz.test`),
    password: () => fc.constant(password),
    new_password: () => fc.constant(password),
    country: () => fc.constant("GB"),
    currency: () => fc.constant("GBP"),
  };
  const id = ids[field.name];
  return id ? fc.oneof(id(), base) : base;
}

function fineInteger(field: DescField): fc.Arbitrary<number> {
  const rules = getOption(field, fieldOption);
  const min = rules.min === undefined ? -1000 : Number(rules.min);
  const max = rules.max === undefined ? Number.MAX_SAFE_INTEGER : Number(rules.max);
  const ids: Record<string, () => fc.Arbitrary<number>> = {
    organization_id: () => fc.constant(known.organizationId),
    // The partner token's merchant, or the console's sandbox merchant.
    company_id: () => fc.constantFrom(known.companyId, fixture.companyId),
    id: () => fc.constant(1),
    merchant_id: () => fc.constant(fixture.companyId),
  };
  const id = ids[field.name];
  const range = fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
  return id ? fc.oneof(id(), range) : range;
}

const boundaryNumbers = fc.constantFrom(
  0,
  -1,
  1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  -(2 ** 53),
  2 ** 64,
  1e308,
  -1e308,
  0.5,
  1e-7,
  100,
  101,
  1_000_000_000_001,
);
const wrongType = fc.oneof(
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
  fc.boolean(),
  boundaryNumbers,
  nastyString,
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

/** A JSON value for `field`: mostly right, sometimes mutated. */
function jsonValue(field: DescField): fc.Arbitrary<unknown> {
  const fine = fineValue(field);
  return fc.oneof(
    { weight: 5, arbitrary: fine },
    { weight: 2, arbitrary: mutated(field) },
    { weight: 1, arbitrary: wrongType },
  );
}

function fineValue(field: DescField): fc.Arbitrary<unknown> {
  switch (field.fieldKind) {
    case "scalar":
      return fineScalar(field, field.scalar);
    case "enum":
      // The wire spellings (FULL, SANDBOX, OWNER); a proto name (PRODUCT_FULL) sometimes, which must be refused.
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...wireEnumValues(field.enum)) },
        { weight: 1, arbitrary: fc.constantFrom(...field.enum.values.map((value) => value.name)) },
      );
    case "list": {
      const element: fc.Arbitrary<unknown> =
        field.listKind === "scalar"
          ? fineScalar(field, field.scalar)
          : field.listKind === "enum"
            ? fc.constantFrom(...wireEnumValues(field.enum))
            : fc.constant({});
      const lists: Record<string, fc.Arbitrary<unknown>> = {
        redirect_uris: fc.array(fc.oneof(fc.constant("https://fuzz.test/callback"), fc.webUrl(), nastyString), {
          maxLength: 3,
        }),
        allowed_ips: fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constant("10.0.0.0/8"), nastyString), { maxLength: 3 }),
        store_ids: fc.array(fc.oneof(fc.integer({ min: -1, max: 1000 }), boundaryNumbers), { maxLength: 3 }),
      };
      return lists[field.name] ?? fc.array(element, { maxLength: 3 });
    }
    case "message":
      return fc.constant({});
    case "map":
      return fc.constant({});
  }
}

function fineScalar(field: DescField, scalar: ScalarType): fc.Arbitrary<unknown> {
  switch (scalar) {
    case ScalarType.STRING:
      return fineString(field);
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case ScalarType.BYTES:
      return fc.base64String({ maxLength: 16 });
    default:
      return fineInteger(field);
  }
}

/** The field's kind of value, at or past its bounds, or carrying something nasty. */
function mutated(field: DescField): fc.Arbitrary<unknown> {
  const rules = getOption(field, fieldOption);
  const isString = field.fieldKind === "scalar" && field.scalar === ScalarType.STRING;
  if (isString || (field.fieldKind === "list" && field.listKind === "scalar" && field.scalar === ScalarType.STRING)) {
    const max = rules.maxLength ?? 256;
    const edge = fc.oneof(
      fineString(field).map((value) => value + "\u0000"),
      fineString(field).map((value) => value + "\ud800"),
      nastyString,
      fc.constant("x".repeat(max)),
      fc.constant("x".repeat(max + 1)),
      fc.constant("é".repeat(max + 1)),
      fc.constant("y".repeat(200_000)),
    );
    return field.fieldKind === "list" ? fc.array(edge, { minLength: 1, maxLength: 3 }) : edge;
  }
  if (field.fieldKind === "enum")
    return fc.oneof(
      fc.constantFrom("X", "", field.enum.values[0]!.name.toLowerCase()),
      fc.integer({ min: -1, max: 9 }),
      nastyString,
    );
  const min = rules.min === undefined ? undefined : Number(rules.min);
  const max = rules.max === undefined ? undefined : Number(rules.max);
  const edges = [min, max, min === undefined ? undefined : min - 1, max === undefined ? undefined : max + 1].filter(
    (n): n is number => n !== undefined,
  );
  return fc.oneof(boundaryNumbers, fc.constantFrom(...edges, 0), fc.constantFrom("1", "0x10", "1.0", "١٢"));
}

/** The text of a value in a form or query string; objects and arrays as JSON, as a confused client would. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "");
}

/**
 * encodeURIComponent, but a lone surrogate (which it refuses) is written as the three bytes a UTF-8 encoder that
 * did not check would write (`%ED%A0%80`), as a careless client does.
 */
function percentEncode(text: string): string {
  return text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/g, (unit) => {
    const code = unit.charCodeAt(0);
    if (unit.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join("");
    }
    return encodeURIComponent(unit);
  });
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const prototypeKeys = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "0",
  "",
  "a.b",
  "fields[0]",
);
const credentialKinds = fc.constantFrom("right", "right", "right", "none", "garbage");
const rawPercent = fc.constantFrom("%00", "%FF", "%ED%A0%80", "%C0%AF", "%E2%80%AE", "%zz", "%", "%2F", "+", "%0D%0A");

/** One request for `route`: its fields generated and mutated, encoded one way or another, with some credential. */
function requestFor(route: Route): fc.Arbitrary<FuzzRequest> {
  const pathNames = new Set(
    route.template.segments.flatMap((segment) => ("variable" in segment ? [segment.variable] : [])),
  );
  const fields = route.method.input.fields.filter((field) => !pathNames.has(field.name));
  const pathFields = route.method.input.fields.filter((field) => pathNames.has(field.name));

  const fieldRecord = fc.record(Object.fromEntries(fields.map((field) => [field.jsonName, jsonValue(field)])), {
    requiredKeys: [],
  });
  const extras = fc.array(fc.tuple(fc.oneof(prototypeKeys, fc.string({ maxLength: 6 })), wrongType), { maxLength: 2 });
  const duplicate = fc.option(fc.constantFrom(...fields.map((field) => field.jsonName), "unknown"), { nil: undefined });
  const pathValues = fc.tuple(
    ...pathFields.map((field) =>
      fc.oneof(
        { weight: 4, arbitrary: fineValue(field).map((value) => percentEncode(asText(value))) },
        { weight: 1, arbitrary: rawPercent },
        { weight: 1, arbitrary: mutated(field).map((value) => percentEncode(asText(value)).slice(0, 3000)) },
      ),
    ),
  );
  const encoding = route.bodyIsRequest
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constant("json") },
        { weight: 3, arbitrary: fc.constant("form") },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            "text/plain",
            "application/json; charset=utf-16",
            'application/json;charset="UTF-8"',
            "multipart/form-data; boundary=x",
            "",
            "application/JSON",
            "application/x-www-form-urlencoded; charset=latin1",
          ),
        },
      )
    : fc.constant("query");
  const oddBody = fc.option(
    fc.constantFrom("", "{", "[]", "null", '"s"', '{"a":1}garbage', "\ufeff{}", "a=1&a=2&a", "=&&="),
    { nil: undefined, freq: 8 },
  );
  const rawTail = fc.option(fc.tuple(fc.oneof(prototypeKeys, fc.constant("name")), rawPercent), {
    nil: undefined,
    freq: 4,
  });

  // A third of the runs send a well-formed request with the right credential, so the services behind validation
  // are reached as often as the validation itself.
  const cleanPath = fc.tuple(
    ...pathFields.map((field) => fineValue(field).map((value) => percentEncode(asText(value)))),
  );
  const clean = fc.record({
    values: fc.record(Object.fromEntries(fields.map((field) => [field.jsonName, fineValue(field)])), {
      requiredKeys: [],
    }),
    extras: fc.constant([] as Array<[string, unknown]>),
    duplicate: fc.constant(undefined),
    pathValues: cleanPath,
    encoding: fc.constant(route.bodyIsRequest ? "json" : "query"),
    oddBody: fc.constant(undefined),
    rawTail: fc.constant(undefined),
    credential: fc.constant("right"),
  });
  const mutatedRequest = fc.record({
    values: fieldRecord,
    extras,
    duplicate,
    pathValues,
    encoding,
    oddBody,
    rawTail,
    credential: credentialKinds,
  });
  return fc
    .oneof({ weight: 1, arbitrary: clean }, { weight: 2, arbitrary: mutatedRequest })
    .map(({ values, extras, duplicate, pathValues, encoding, oddBody, rawTail, credential }) => {
      let index = 0;
      const path =
        "/" +
        route.template.segments
          .map((segment) => ("literal" in segment ? segment.literal : pathValues[index++] || "x"))
          .join("/");
      const entries: Array<[string, unknown]> = [...Object.entries(values), ...extras];
      if (duplicate !== undefined) entries.push([duplicate, "dup"]);
      const headers: Record<string, string> = {
        "x-forwarded-for": randomAddress(),
        ...credentialHeaders(route, credential),
      };
      let body: string | undefined;
      let query = "";
      const pairs = (): Array<[string, string]> =>
        entries.flatMap(([name, value]) =>
          Array.isArray(value)
            ? value.map((item): [string, string] => [name, asText(item)])
            : [[name, asText(value)] as [string, string]],
        );
      const tail = rawTail ? `${percentEncode(rawTail[0])}=${rawTail[1]}` : "";
      if (encoding === "query") {
        query = [new URLSearchParams(pairs()).toString(), tail].filter(Boolean).join("&");
      } else if (encoding === "form") {
        headers["content-type"] = "application/x-www-form-urlencoded";
        body = oddBody ?? [new URLSearchParams(pairs()).toString(), tail].filter(Boolean).join("&");
      } else {
        // Written by hand so duplicated and prototype keys survive (JSON.stringify of an object would merge them).
        headers["content-type"] = encoding === "json" ? "application/json" : encoding;
        body =
          oddBody ??
          `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value) ?? "null"}`).join(",")}}`;
        if (encoding === "") delete headers["content-type"];
      }
      return { method: route.httpMethod, path: path + (query ? `?${query}` : ""), headers, body };
    });
}

/** The credential a route takes: a partner token, a console session, client credentials (Basic), or none at all. */
function credentialHeaders(route: Route, credential: string): Record<string, string> {
  if (credential === "none") return {};
  if (credential === "garbage") return { authorization: "Bearer \u00e9\u00ff.x", "x-api-key": "lp_key_%00" };
  // The fixture's FULL token for every partner route but the orders.write ones, which take an ONLINE_ORDER token.
  if (route.partnerCall)
    return {
      authorization: `Bearer ${tokenFor(key, test.config, clock, route.scope === "orders.write" ? { ...fixture, product: "ONLINE_ORDER" } : fixture)}`,
    };
  if (route.template.source.startsWith("/v1/console/session/")) return { authorization: `Bearer ${known.spareToken}` };
  if (route.template.source.startsWith("/v1/console/")) return { authorization: `Bearer ${known.consoleToken}` };
  if (
    route.template.source === "/v1/oauth/token" ||
    route.template.source === "/v1/token" ||
    route.template.source === "/v1/oauth/revoke"
  ) {
    return {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(known.clientId)}:${encodeURIComponent(known.clientSecret)}`).toString("base64")}`,
    };
  }
  return {};
}

// ---- Properties -------------------------------------------------------------------------------------------------

/** The tables a write route inserts into, by route; a refusal must leave their row counts as they were. */
const writes: Record<string, string[]> = {
  "POST /v1/items": ["region_uk.items", "region_in.items", "region_us.items"],
  "POST /v1/categories": ["region_uk.categories", "region_in.categories", "region_us.categories"],
  "POST /v1/online-orders": ["region_uk.online_orders", "region_uk.online_order_events"],
  "POST /v1/online-orders/{id}/cancel": ["region_uk.online_order_events"],
  "POST /v1/sandbox/online-orders/{id}/status": ["region_uk.online_order_events"],
  "POST /v1/oauth/token": ["control.refresh_tokens"],
  "POST /v1/console/account/sign-up": ["control.developer_accounts"],
  "POST /v1/console/session/sign-in": ["control.console_sessions"],
  "POST /v1/console/program/applications": ["control.program_applications"],
  "POST /v1/console/program/agreement/signatures": ["control.agreement_signatures"],
  "POST /v1/console/organizations": ["control.organizations", "control.organization_members"],
  "POST /v1/console/organizations/{organization_id}/invitations": ["control.organization_invitations"],
  "POST /v1/console/organizations/{organization_id}/apps": ["control.apps", "control.client_credentials"],
  "PUT /v1/console/apps/{app_id}/redirect-uris": ["control.redirect_uris"],
  "PUT /v1/console/apps/{app_id}/credentials/{client_id}/allowed-ips": ["control.credential_ip_allowlist"],
  "PUT /v1/console/apps/{app_id}/api-keys/{api_key_id}/allowed-ips": ["control.credential_ip_allowlist"],
  "POST /v1/console/apps/{app_id}/api-keys": ["control.api_keys"],
  "POST /v1/console/organizations/{organization_id}/sandbox-merchants": ["control.merchants"],
  "POST /v1/console/apps/{app_id}/access-requests": ["control.access_requests"],
};

async function rowCounts(route: Route): Promise<number[]> {
  const tables = writes[`${route.httpMethod} ${route.template.source}`] ?? [];
  return Promise.all(
    tables.map(async (table) => {
      const [schema, name] = table.split(".") as [string, string];
      const region = /^region_(.+)$/.exec(schema)?.[1];
      const sql = region ? test.app.regionDatabases.get(region as never)?.sql : test.app.control.sql;
      if (!sql) return -1;
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ${sql(schema)}.${sql(name)}`;
      return row!.n;
    }),
  );
}

/** Whether `body` is the error shape of `route`'s family (src/errors/render.ts). */
function inFamilyShape(route: Route, status: number, body: Record<string, unknown>): boolean {
  const family = route.family;
  if (family === "oauth")
    return (
      typeof body["error"] === "string" &&
      typeof body["error_description"] === "string" &&
      typeof body["code"] === "string"
    );
  if (family === "developer") {
    const error = body["error"] as Record<string, unknown> | undefined;
    return (
      !!error &&
      typeof error["code"] === "string" &&
      typeof error["message"] === "string" &&
      Array.isArray(error["details"]) &&
      typeof error["params"] === "object"
    );
  }
  return (
    body["status"] === "error" &&
    body["statusCode"] === status &&
    typeof body["message"] === "string" &&
    typeof body["correlationId"] === "string"
  );
}

/** A long text cut for a readable failure, saying how long it was. */
const shown = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…(${text.length} characters)` : text);

/** Answers by status, per route: printed with FUZZ_VERBOSE=1, to see that the runs reach past validation. */
const statuses = new Map<string, Map<number, number>>();

async function check(route: Route, request: FuzzRequest): Promise<void> {
  const before = await rowCounts(route);
  const response = await fetch(test.base + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const seen = statuses.get(route.template.source + " " + route.httpMethod) ?? new Map<number, number>();
  seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
  statuses.set(route.template.source + " " + route.httpMethod, seen);
  const text = await response.text();
  const after = await rowCounts(route);
  const where = `${request.method} ${shown(request.path)} answered ${response.status}: ${text.slice(0, 300)}`;
  if (response.status >= 500) throw new Error(`a ${response.status}: ${where}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON: ${where}`);
  }
  if (response.status >= 400) {
    // A path that matches no route is checked by the family its prefix names (route-table's closestFamily), which
    // for a template with a mangled variable is still this route's.
    if (!inFamilyShape(route, response.status, body)) throw new Error(`not in the ${route.family} shape: ${where}`);
    if (String(before) !== String(after)) throw new Error(`refused but written (rows ${before} -> ${after}): ${where}`);
  }
}

// The routes fuzzed are listed at load (one test per route needs them before the app starts); the running front's own
// route table must be the same set, so a service or route added to the front and not to this list fails here.
Fuzz("the routes fuzzed are the front's own route table, every route of it and no other", () => {
  if (onlyRoute !== undefined) return;
  const key = (route: { httpMethod: string; template: { source: string } }) =>
    `${route.httpMethod} ${route.template.source}`;
  const fuzzed = new Set(routes.map(key));
  const served = new Set(test.app.frontRoutes.map(key));
  assert.equal(
    [...served].filter((route) => !fuzzed.has(route)),
    [],
    "routes the front serves that the fuzzer does not list",
  );
  assert.equal(
    [...fuzzed].filter((route) => !served.has(route)),
    [],
    "routes the fuzzer lists that the front does not serve",
  );
});

Fuzz("the routes to fuzz: FUZZ_ROUTE names one of them, or all are taken", () => {
  assert.ok(routes.length > 0, `FUZZ_ROUTE=${onlyRoute} names no route`);
});

// One test per route (each its own name, limit and failure), the same property and runs as when they were one test.
for (const route of routes) {
  const name = `${route.httpMethod} ${route.template.source}`;
  Fuzz(`${name}: no 5xx, the family's shape, and a refused write leaves no row`, async () => {
    const result = await fc.check(
      fc.asyncProperty(requestFor(route), (request) => check(route, request)),
      { seed, numRuns: runsPerRoute, ...(replayPath ? { path: replayPath } : {}), endOnFailure: false },
    );
    if (result.failed) {
      const counterexample = result.counterexample?.[0] as FuzzRequest | undefined;
      const reproduction = counterexample
        ? `curl -i -X ${counterexample.method} ${Object.entries(counterexample.headers)
            .map(([header, value]) => `-H ${JSON.stringify(`${header}: ${value}`)}`)
            .join(
              " ",
            )}${counterexample.body === undefined ? "" : ` --data-binary ${JSON.stringify(shown(counterexample.body))}`} "$BASE${shown(counterexample.path)}"`
        : "(no counterexample)";
      assert.unreachable(
        `${name}: ${String(result.errorInstance instanceof Error ? result.errorInstance.message : result.errorInstance)}\n` +
          `  replay: FUZZ_SEED=${result.seed} FUZZ_PATH=${JSON.stringify(result.counterexamplePath)} FUZZ_ROUTE=${JSON.stringify(name)}\n` +
          `  reproduction: ${reproduction}`,
      );
    }
  });
}

Fuzz.run();
