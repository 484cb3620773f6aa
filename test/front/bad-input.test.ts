// Bad input that used to reach a 500, case by case against the real app (issue 15, "Bad input"): lone surrogates
// and NUL in any string, control and bidirectional control characters in names and free text, percent-encoded
// bytes that are not UTF-8, a console path that does not percent-decode, a charset other than UTF-8, prototype
// keys; the consent site's forms and query; the internal port's interceptor. Each answer in its family's shape,
// naming the field, and a refused write leaves no row.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { messageFor, readServiceError } from "../../src/errors/index.js";
import { appSigningKey, createFixture, gatewayClock, testKek, tokenFor, type Fixture } from "../support/gateway.js";
import { grpcTransport } from "../support/internal.js";
import { consoleCall, expectError, mailedLink, tokenOf } from "../support/console.js";
import { randomAddress } from "../support/consent.js";
import { answerOf, type Answer } from "../support/sandbox.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import type { SigningKey } from "../../src/token/access-token.js";

const BadInput = suite("front/bad-input");
const clock = gatewayClock();
let test: TestApp;
let fixture: Fixture;
let key: SigningKey;
let serial = 0;
const password = "correct horse battery staple";

BadInput.before(async () => {
  test = await startTestApp({
    clock,
    redis: true,
    env: { TRUST_PROXY: "127.0.0.1", TOKEN_KEY_ENCRYPTION_KEY: testKek },
  });
  key = await appSigningKey(test.app.control.sql, test.config.dataDir, clock);
  fixture = await createFixture(test.app.control.sql, (region) => test.app.regionDatabases.get(region)?.sql, clock, {
    region: "uk",
  });
});
BadInput.after(async () => {
  await test.stop();
});

const bearer = () => ({
  authorization: `Bearer ${tokenFor(key, test.config, clock, fixture)}`,
  "x-forwarded-for": randomAddress(),
});

async function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<Answer> {
  return answerOf(
    await fetch(test.base + path, {
      method,
      headers: { "x-forwarded-for": randomAddress(), ...init.headers },
      body: init.body,
    }),
  );
}

const json = (body: string) => ({ "content-type": "application/json", body });

async function itemCount(): Promise<number> {
  const sql = test.app.regionDatabases.get("uk")!.sql;
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from region_uk.items where company_id = ${fixture.companyId}`;
  return row!.n;
}

/** The partner envelope of a validation failure naming `fields`. */
function expectPartnerInvalid(answer: Answer, path: string, fields: string) {
  assert.is(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body, {
    status: "error",
    statusCode: 400,
    timestamp: new Date(clock.now()).toISOString(),
    path,
    message: messageFor("request.invalid_fields", { fields }),
    params: { fields },
    correlationId: answer.headers.get("x-correlation-id"),
  });
}

function expectOAuthInvalid(answer: Answer, fields: string) {
  assert.is(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body, {
    error: "invalid_request",
    error_description: messageFor("oauth.invalid_request", { fields }),
    code: "oauth.invalid_request",
  });
}

async function createItem(body: string): Promise<Answer> {
  const { body: text, ...headers } = json(body);
  return call("POST", "/v1/items", { headers: { ...bearer(), ...headers }, body: text });
}

BadInput(
  "a lone surrogate in a JSON string is the family's validation error naming the field, in all three families",
  async () => {
    const before = await itemCount();
    expectPartnerInvalid(await createItem('{"name":"Tea \\ud800","code":"T-1","priceMinor":250}'), "/v1/items", "name");
    assert.is(await itemCount(), before, "no row");
    // A low surrogate alone, too.
    expectPartnerInvalid(await createItem('{"name":"Tea","code":"\\udc00T","priceMinor":250}'), "/v1/items", "code");

    const signUp = await consoleCall(
      test.base,
      "POST",
      "/v1/console/account/sign-up",
      { email: "dev\ud800@bad-input.test", password },
      undefined,
      randomAddress(),
    );
    expectError(signUp, 400, "developer.invalid_request", { fields: "email" }, [
      { field: "email", rule: "must not contain lone surrogates (invalid Unicode)" },
    ]);

    const { body, ...headers } = json('{"grant_type":"client_credentials","client_id":"lp_app_sb\\ud800"}');
    expectOAuthInvalid(await call("POST", "/v1/oauth/token", { headers, body }), "client_id");
  },
);

BadInput("a NUL in JSON, in a form, in a query and in a path variable is refused naming the field", async () => {
  const before = await itemCount();
  expectPartnerInvalid(await createItem('{"name":"Tea\\u0000","code":"T-1","priceMinor":250}'), "/v1/items", "name");
  assert.is(await itemCount(), before, "no row");

  const form = { "content-type": "application/x-www-form-urlencoded" };
  expectOAuthInvalid(
    await call("POST", "/v1/oauth/token", {
      headers: form,
      body: "grant_type=client_credentials&client_id=lp_app_sb%00&client_secret=x",
    }),
    "client_id",
  );

  expectPartnerInvalid(await call("GET", "/v1/items?cursor=%00", { headers: bearer() }), "/v1/items", "cursor");

  const app = await consoleCall(test.base, "GET", "/v1/console/apps/app%00", undefined, undefined, randomAddress());
  expectError(app, 400, "developer.invalid_request", { fields: "appId" }, [
    { field: "appId", rule: "must not contain NUL characters" },
  ]);
});

BadInput("names refuse control and bidirectional control characters; marks U+200E/U+200F are allowed", async () => {
  const before = await itemCount();
  const reversed = await fetch(test.base + "/v1/items", {
    method: "POST",
    headers: { ...bearer(), "content-type": "application/json" },
    body: JSON.stringify({ name: "Tea \u202Eeet", code: "T-\u0007", priceMinor: 250 }),
  });
  const answer = await answerOf(reversed);
  expectPartnerInvalid(answer, "/v1/items", "name, code");
  assert.is(await itemCount(), before, "no row");

  for (const [name, rule] of [
    ["Tea\u2066x\u2069", "must not contain bidirectional control characters"],
    ["Tea\nCake", "must not contain control characters"],
    ["Tea\u0085", "must not contain control characters"],
    ["Tea\u007F", "must not contain control characters"],
  ] as const) {
    const org = await consoleCall(
      test.base,
      "POST",
      "/v1/console/organizations",
      { name },
      "not-a-session",
      randomAddress(),
    );
    expectError(org, 400, "developer.invalid_request", { fields: "name" }, [{ field: "name", rule }]);
  }

  const marked = await createItem(JSON.stringify({ name: "שלום\u200F 1", code: "T-LRM", priceMinor: 250 }));
  assert.is(marked.status, 200, JSON.stringify(marked.body));
  assert.is((marked.body["item"] as Record<string, unknown>)["name"], "שלום\u200F 1");
  assert.is(await itemCount(), before + 1);
});

BadInput(
  "free text keeps its lines and tabs but no other control character; a password is a secret: only NUL and lone surrogates are refused",
  async () => {
    const email = `dev.${process.pid}.${++serial}@bad-input.test`;
    const unusual = "correct horse \u202Ebattery\u0007";
    const nul = await consoleCall(
      test.base,
      "POST",
      "/v1/console/account/sign-up",
      { email, password: `${password}\u0000` },
      undefined,
      randomAddress(),
    );
    expectError(nul, 400, "developer.invalid_request", { fields: "password" }, [
      { field: "password", rule: "must not contain NUL characters" },
    ]);
    assert.is(
      (
        await consoleCall(
          test.base,
          "POST",
          "/v1/console/account/sign-up",
          { email, password: unusual },
          undefined,
          randomAddress(),
        )
      ).status,
      200,
    );
    assert.is(
      (
        await consoleCall(
          test.base,
          "POST",
          "/v1/console/account/verify-email",
          { token: tokenOf(await mailedLink(test, email)) },
          undefined,
          randomAddress(),
        )
      ).status,
      200,
    );
    const signedIn = await consoleCall(
      test.base,
      "POST",
      "/v1/console/session/sign-in",
      { email, password: unusual },
      undefined,
      randomAddress(),
    );
    assert.is(signedIn.status, 200, JSON.stringify(signedIn.body));
    const token = String((signedIn.body["session"] as Record<string, unknown>)["accessToken"]);

    const bell = await consoleCall(
      test.base,
      "POST",
      "/v1/console/program/applications",
      { companyName: "Acme", useCase: "Sync\u0007" },
      token,
      randomAddress(),
    );
    expectError(bell, 400, "developer.invalid_request", { fields: "useCase" }, [
      { field: "useCase", rule: "must not contain control characters" },
    ]);
    const lines = await consoleCall(
      test.base,
      "POST",
      "/v1/console/program/applications",
      { companyName: "Acme", useCase: "Sync items.\r\n\tThen stores." },
      token,
      randomAddress(),
    );
    assert.is(lines.status, 200, JSON.stringify(lines.body));
    assert.is((lines.body["application"] as Record<string, unknown>)["useCase"], "Sync items.\r\n\tThen stores.");
  },
);

BadInput(
  "percent-encoded bytes that are not UTF-8 in a query or a form are the validation error naming the field",
  async () => {
    expectPartnerInvalid(
      await call("GET", "/v1/items?limit=5&cursor=%ED%A0%80", { headers: bearer() }),
      "/v1/items",
      "cursor",
    );
    const form = { "content-type": "application/x-www-form-urlencoded" };
    expectOAuthInvalid(
      await call("POST", "/v1/oauth/token", {
        headers: form,
        body: "grant_type=client_credentials&client_id=%FF&client_secret=x",
      }),
      "client_id",
    );
    // Raw bytes that are not UTF-8 in a JSON body: the body cannot be read.
    const raw = await call("POST", "/v1/console/account/sign-up", {
      headers: { "content-type": "application/json" },
      body: Uint8Array.from([...Buffer.from('{"email":"a'), 0xff, ...Buffer.from('@x.test","password":"x"}')]),
    });
    expectError(raw, 400, "request.malformed_body");
  },
);

BadInput("a console path with an invalid percent-encoding is 404 in the developer envelope", async () => {
  for (const path of ["/v1/console/apps/%FF", "/v1/console/apps/%ED%A0%80/submit", "/v1/console/%FF"]) {
    expectError(await call("GET", path), 404, "request.route_not_found");
  }
  const oauth = await call("POST", "/v1/oauth/%FF");
  assert.is(oauth.status, 404);
  assert.equal(oauth.body, {
    error: "invalid_request",
    error_description: messageFor("request.route_not_found", {}),
    code: "request.route_not_found",
  });
});

BadInput(
  "a request line over Node's header limit is 431 in the family of its path, not Node's bare answer (found by the fuzzer)",
  async () => {
    const long = "y".repeat(20_000);
    expectError(await call("GET", `/v1/console/account?cursor=${long}`), 431, "request.headers_too_large");
    const partner = await call("GET", `/v1/items?cursor=${long}`, { headers: bearer() });
    assert.is(partner.status, 431);
    assert.equal(partner.body, {
      status: "error",
      statusCode: 431,
      timestamp: new Date(clock.now()).toISOString(),
      path: "/v1/items",
      message: messageFor("request.headers_too_large", {}),
      code: "request.headers_too_large",
      params: {},
      correlationId: partner.headers.get("x-correlation-id"),
    });
    assert.is(partner.headers.get("connection"), "close");
  },
);

BadInput("a charset other than UTF-8 is 415 naming it; utf-8 in any spelling is read", async () => {
  const body = JSON.stringify({ email: "someone@bad-input.test", password: "short" });
  for (const charset of ["utf-16", "ISO-8859-1", '"utf-16le"']) {
    const answer = await call("POST", "/v1/console/account/sign-up", {
      headers: { "content-type": `application/json; charset=${charset}` },
      body,
    });
    expectError(answer, 415, "request.unsupported_media_type", {
      contentType: `application/json; charset=${charset.replace(/"/g, "").toLowerCase()}`,
    });
  }
  const form = await call("POST", "/v1/oauth/token", {
    headers: { "content-type": "application/x-www-form-urlencoded; charset=windows-1252" },
    body: "grant_type=client_credentials",
  });
  assert.is(form.status, 415);
  assert.is(form.body["code"], "request.unsupported_media_type");
  for (const charset of ["utf-8", "UTF-8", '"utf-8"']) {
    const answer = await call("POST", "/v1/console/account/sign-up", {
      headers: { "content-type": `application/json;charset=${charset}` },
      body,
    });
    expectError(answer, 400, "developer.password_too_weak", { rule: "at least 12 characters" }, [
      { field: "password", rule: "at least 12 characters" },
    ]);
  }
});

BadInput("?__proto__=x is refused naming __proto__ in each family", async () => {
  expectPartnerInvalid(await call("GET", "/v1/items?__proto__=x", { headers: bearer() }), "/v1/items", "__proto__");
  expectError(
    await call("GET", "/v1/console/account?__proto__=x&__proto__=y"),
    400,
    "developer.invalid_request",
    { fields: "__proto__" },
    [{ field: "__proto__", rule: "is not a known field" }],
  );
  const { body, ...headers } = json('{"__proto__":{"grant_type":"client_credentials"},"constructor":"x"}');
  expectOAuthInvalid(await call("POST", "/v1/oauth/token", { headers, body }), "grant_type, __proto__, constructor");
});

BadInput("the consent site: a NUL in a form or in the authorization query is a bad request, never a 500", async () => {
  const page = await fetch(`${test.auth}/oauth/connections`);
  assert.is(page.status, 200);
  const cookies = page.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]*)"/.exec(html)![1]!;
  for (const email of ["owner%00@shop.test", "%FF@shop.test"]) {
    const signIn = await fetch(`${test.auth}/oauth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies, origin: test.auth },
      body: `csrf=${csrf}&return_to=%2Foauth%2Fconnections&email=${email}&password=x`,
    });
    assert.is(signIn.status, 400);
    assert.is(signIn.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await signIn.text(), "The form could not be read.");
  }
  const authorize = await fetch(
    `${test.auth}/oauth/authorize?response_type=code&client_id=lp_app_sb%00&redirect_uri=https%3A%2F%2Fx.test%00&state=s`,
  );
  assert.is(authorize.status, 400);
  assert.is(authorize.headers.get("content-type"), "text/html; charset=utf-8");
  // The consent page sets parameter names as <code> (src/consent/pages.ts), the message around them from the catalogue.
  const [before, after] = messageFor("oauth.invalid_request", { fields: "{fields}" }).split("{fields}");
  assert.match(await authorize.text(), `${before}<code>client_id</code>, <code>redirect_uri</code>${after}`);
  assert.not.ok(
    test.logs.some((line) => line.includes('"consent site failure"')),
    "no failure logged",
  );
});

BadInput("the internal port refuses the same strings, naming the field", async () => {
  const credentials = createClient(CredentialService, grpcTransport(test.app.grpc.port, test.internal.operator));
  for (const [name, rule] of [
    ["Org\u0000", "must not contain NUL characters"],
    ["Org\u202E", "must not contain bidirectional control characters"],
  ] as const) {
    const error = await credentials.createOrganization({ name }).then(() => undefined, readServiceError);
    assert.equal(error, {
      code: "request.invalid_fields",
      params: { fields: "name" },
      details: [{ field: "name", rule }],
    });
  }
});

BadInput.run();
