// The partner gateway end to end over HTTP, on the whole app with its own database and the manual clock: every
// partner code (except the API-key ones, test/gateway/api-key.test.ts) with its exact status, headers and body; the X-RateLimit-*
// headers on every answer once the app is known; routing by the token's region.
import { sign } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
import { startGatewayApp, type GatewayApp } from "../support/gateway.js";
import type {
  DailySalesReport,
  Item,
  ItemPage,
  OnlineOrderPage,
  PartnerErrorBody,
  SalesByStoreReport,
} from "../support/wire.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any

/** The limit of this suite: small, so the 429 needs few calls. */
const limit = 5;

const Gateway = suite<{ gw: GatewayApp }>("gateway/partner-gateway", {} as { gw: GatewayApp });

Gateway.before(async (context) => {
  // ae is left out of REGIONS: its merchants' calls find no DataService. TRUST_PROXY lets a test pick its address.
  context.gw = await startGatewayApp({
    PARTNER_RATE_LIMIT: String(limit),
    REGIONS: "uk,us,in",
    TRUST_PROXY: "127.0.0.1",
  });
});

Gateway.after(async ({ gw }) => {
  await gw.stop();
});

interface Call {
  token?: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

function call(gw: GatewayApp, path: string, options: Call = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers["authorization"] = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${gw.base}${path}`, {
    method: options.method ?? "GET",
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

/** The X-RateLimit-* headers as [limit, remaining, reset], or nulls when absent. */
function rateHeaders(response: Response): [string | null, string | null, string | null] {
  return [
    response.headers.get("x-ratelimit-limit"),
    response.headers.get("x-ratelimit-remaining"),
    response.headers.get("x-ratelimit-reset"),
  ];
}

/** Reset of the current window: the next minute boundary, in Unix seconds. */
const resetOf = (gw: GatewayApp) => String(Math.ceil((gw.clock.now() + 1) / 60_000) * 60);

/** Asserts the exact partner envelope of a classified code. */
async function expectError(
  gw: GatewayApp,
  response: Response,
  status: number,
  code: ErrorCode,
  path: string,
  params: Record<string, string | number> = {},
) {
  assert.is(response.status, status, code);
  assert.is(response.headers.get("content-type"), "application/json");
  const body = (await response.json()) as PartnerErrorBody;
  assert.equal(body, {
    status: "error",
    statusCode: status,
    timestamp: new Date(gw.clock.now()).toISOString(),
    path,
    message: messageFor(code, params),
    code,
    params,
    correlationId: response.headers.get("x-correlation-id"),
  });
}

Gateway(
  "no credentials: 401 partner.token_missing with WWW-Authenticate: Bearer, before any limit is counted",
  async ({ gw }) => {
    const response = await call(gw, "/v1/items");
    await expectError(gw, response, 401, "partner.token_missing", "/v1/items");
    assert.is(response.headers.get("www-authenticate"), "Bearer");
    assert.equal(rateHeaders(response), [null, null, null], "no app is known yet");
  },
);

/** The token with its signature's last four characters changed (never to what they were). */
const tamperedTail = (token: string) => token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");

Gateway("a token that is not valid: 401 partner.token_invalid, whatever the reason", async ({ gw }) => {
  const fixture = await gw.fixture();
  const past = Math.floor(gw.clock.now() / 1000) - 3600;
  const tokens = {
    garbage: "not.a.token",
    expired: gw.token(fixture, { iat: past - 900, exp: past }),
    "wrong audience": gw.token(fixture, { aud: "partnerapi-merchant" }),
    "wrong issuer": gw.token(fixture, { iss: "https://elsewhere.example/" }),
    tampered: tamperedTail(gw.token(fixture)),
  };
  for (const [reason, token] of Object.entries(tokens)) {
    const response = await call(gw, "/v1/items", { token });
    await expectError(gw, response, 401, "partner.token_invalid", "/v1/items");
    assert.is(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"', reason);
  }
  const basic = await call(gw, "/v1/items", { headers: { authorization: "Basic dXNlcjpwYXNz" } });
  await expectError(gw, basic, 401, "partner.token_invalid", "/v1/items");
});

/** `header.payload` as spelled, signed with the app's real signing key (what a leaked key or a minting bug allows). */
function signedWithHeader(gw: GatewayApp, token: string, header: Record<string, unknown>): string {
  const headerPart = Buffer.from(JSON.stringify({ alg: "RS256", typ: "at+jwt", kid: gw.key.kid, ...header })).toString(
    "base64url",
  );
  const signingInput = `${headerPart}.${token.split(".")[1]}`;
  return `${signingInput}.${sign("sha256", Buffer.from(signingInput), gw.key.privateKey).toString("base64url")}`;
}

Gateway("a token valid but for how it is encoded or its time claims: 401 partner.token_invalid", async ({ gw }) => {
  const fixture = await gw.fixture();
  const now = Math.floor(gw.clock.now() / 1000);
  const good = gw.token(fixture);
  const signature = good.split(".")[2]!;
  const tokens = {
    // With the signing key (RFC 7519 4.1.5, RFC 9068 section 4, RFC 7515 4.1.11, RFC 7797 section 6).
    "nbf a minute ahead": gw.token(fixture, { nbf: now + 60 }),
    "exp ten years out": gw.token(fixture, { exp: now + 10 * 365 * 86_400 }),
    "unknown crit": signedWithHeader(gw, good, { crit: ["urn:example:x"], "urn:example:x": true }),
    "b64 false": signedWithHeader(gw, good, { b64: false, crit: ["b64"] }),
    // Without it: the very signature, spelled another way (RFC 7515 section 2: base64url without padding).
    "padded signature": `${good}==`,
    "signature in the base64 alphabet": good.replace(
      /\.([^.]*)$/,
      (_, s: string) => `.${s.replace(/-/g, "+").replace(/_/g, "/")}`,
    ),
  };
  if (!/[-_]/.test(signature)) delete (tokens as Record<string, string>)["signature in the base64 alphabet"];
  for (const [reason, token] of Object.entries(tokens)) {
    const response = await call(gw, "/v1/items", { token });
    await expectError(gw, response, 401, "partner.token_invalid", "/v1/items");
    assert.is(response.headers.get("www-authenticate"), 'Bearer error="invalid_token"', reason);
  }
  assert.is((await call(gw, "/v1/items", { token: good })).status, 200, "the token they were made from is good");
});

Gateway(
  "a malformed API key is 401 partner.api_key_invalid (API keys: test/gateway/api-key*.test.ts)",
  async ({ gw }) => {
    const response = await call(gw, "/v1/reports/daily-sales?from=2026-01-01&to=2026-01-02", {
      headers: { "x-api-key": "lp_ak_sb_x" },
    });
    assert.is(response.status, 401);
    const body = (await response.json()) as PartnerErrorBody;
    assert.is(body.code, "partner.api_key_invalid");
  },
);

Gateway("a live merchant in `in` is served by the `in` DataService, with the rate-limit headers", async ({ gw }) => {
  const fixture = await gw.fixture({ region: "in", seed: { itemCount: 12 } });
  // The same company id in uk's schema holds other rows: only the `in` DataService reads region_in.
  const { seedMerchantData } = await import("../../src/data/sandbox-data.js");
  await seedMerchantData(gw.app.regionDatabases.get("uk")!.sql, "uk", fixture.companyId, {
    storeCount: 1,
    itemCount: 3,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(gw.clock.now()),
  });
  const response = await call(gw, "/v1/items", { token: gw.token(fixture) });
  assert.is(response.status, 200);
  assert.equal(rateHeaders(response), [String(limit), String(limit - 1), resetOf(gw)]);
  const body = (await response.json()) as ItemPage;
  assert.is(body.items.length, 10, "limit defaults to 10");
  assert.ok(
    body.items.every((item) => item.currency === "INR"),
    "rows of region_in (INR), not region_uk (GBP)",
  );
  assert.is(typeof body.nextCursor, "string");
  const next = (await (
    await call(gw, `/v1/items?cursor=${body.nextCursor}`, { token: gw.token(fixture) })
  ).json()) as ItemPage;
  assert.is(next.items.length, 2);
  assert.is(next.nextCursor, undefined);
  const [inRows] = await gw.app.regionDatabases.get("in")!
    .sql`select count(*)::int as n from region_in.items where company_id = ${fixture.companyId}`;
  assert.is(inRows!["n"], 12);
});

Gateway(
  "IP allowlist: addresses and ranges, v4 and v6; elsewhere 403 partner.ip_denied with the app's headers",
  async ({ gw }) => {
    const fixture = await gw.fixture();
    const from = (address: string) => ({ "x-forwarded-for": address });
    const allowed: Array<[string[], string]> = [
      [["127.0.0.1"], "127.0.0.1"],
      [["10.0.0.0/8", "2001:db8::/32"], "10.20.30.40"],
      [["10.0.0.0/8", "2001:db8::/32"], "2001:db8:0:1::5"],
      [["192.0.2.7"], "::ffff:192.0.2.7"],
    ];
    for (const [allowedIps, address] of allowed) {
      const response = await call(gw, "/v1/stores", {
        token: gw.token(fixture, { allowedIps }),
        headers: from(address),
      });
      assert.is(response.status, 200, `${address} in ${allowedIps}`);
    }
    const remainingBefore = limit - allowed.length;
    const denied = await call(gw, "/v1/stores", {
      token: gw.token(fixture, { allowedIps: ["10.0.0.0/8", "2001:db8::/32"] }),
      headers: from("2001:db9::1"),
    });
    await expectError(gw, denied, 403, "partner.ip_denied", "/v1/stores");
    assert.equal(
      rateHeaders(denied),
      [String(limit), String(remainingBefore), resetOf(gw)],
      "a refused call is shown the window, not counted",
    );
    const v4 = await call(gw, "/v1/stores", {
      token: gw.token(fixture, { allowedIps: ["127.0.0.1"] }),
      headers: from("127.0.0.2"),
    });
    await expectError(gw, v4, 403, "partner.ip_denied", "/v1/stores");
  },
);

Gateway(
  "environment: a production token for a demo merchant (and the reverse) is 403 partner.env_mismatch",
  async ({ gw }) => {
    const demo = await gw.fixture({ demo: true });
    const response = await call(gw, "/v1/items", { token: gw.token(demo, { env: "PRODUCTION" }) });
    await expectError(gw, response, 403, "partner.env_mismatch", "/v1/items");
    assert.equal(rateHeaders(response), [String(limit), String(limit), resetOf(gw)]);
    const live = await gw.fixture({ demo: false });
    await expectError(
      gw,
      await call(gw, "/v1/items", { token: gw.token(live, { env: "SANDBOX" }) }),
      403,
      "partner.env_mismatch",
      "/v1/items",
    );
    assert.is((await call(gw, "/v1/items", { token: gw.token(demo) })).status, 200, "sandbox token, demo merchant");
  },
);

Gateway("scope: each route needs its scope; ADSR cannot list items, ONLINE_ORDER cannot write them", async ({ gw }) => {
  const adsr = await gw.fixture({ product: "ADSR" });
  await expectError(
    gw,
    await call(gw, "/v1/items", { token: gw.token(adsr) }),
    403,
    "partner.scope_denied",
    "/v1/items",
  );
  assert.is((await call(gw, "/v1/stores", { token: gw.token(adsr) })).status, 200);
  assert.is(
    (await call(gw, "/v1/reports/daily-sales?from=2026-01-01&to=2026-01-31", { token: gw.token(adsr) })).status,
    200,
  );
  const online = await gw.fixture({ product: "ONLINE_ORDER" });
  const write = await call(gw, "/v1/items", {
    token: gw.token(online),
    method: "POST",
    body: { name: "x", code: "x", priceMinor: 1 },
  });
  await expectError(gw, write, 403, "partner.scope_denied", "/v1/items");
  assert.is((await call(gw, "/v1/categories", { token: gw.token(online) })).status, 200);
});

Gateway(
  "grant: none, or revoked after minting, is 403 partner.grant_missing within GATEWAY_CACHE_SECONDS",
  async ({ gw }) => {
    const none = await gw.fixture({ grant: false });
    await expectError(
      gw,
      await call(gw, "/v1/items", { token: gw.token(none) }),
      403,
      "partner.grant_missing",
      "/v1/items",
    );
    const fixture = await gw.fixture();
    assert.is((await call(gw, "/v1/items", { token: gw.token(fixture) })).status, 200);
    await gw.app.control.sql`update control.grants set revoked_at = now() where app_id = ${fixture.appId}`;
    assert.is((await call(gw, "/v1/items", { token: gw.token(fixture) })).status, 200, "still cached");
    gw.clock.advance(gw.config.caches.gatewaySeconds * 1000);
    const revoked = await call(gw, "/v1/items", { token: gw.token(fixture) });
    await expectError(gw, revoked, 403, "partner.grant_missing", "/v1/items");
    // A deactivated merchant: the app has no access to it any more either.
    const inactive = await gw.fixture();
    await gw.app.control.sql`update control.merchants set active = false where company_id = ${inactive.companyId}`;
    await expectError(
      gw,
      await call(gw, "/v1/items", { token: gw.token(inactive) }),
      403,
      "partner.grant_missing",
      "/v1/items",
    );
  },
);

Gateway(
  "rate limit: exactly PARTNER_RATE_LIMIT calls pass per app and minute; then 429 with Retry-After; the next minute resets",
  async ({ gw }) => {
    const fixture = await gw.fixture();
    const other = await gw.fixture();
    gw.clock.set(Math.floor(gw.clock.now() / 60_000) * 60_000 + 60_000 + 1_000); // one second into a fresh minute
    const token = gw.token(fixture);
    for (let n = 1; n <= limit; n++) {
      const response = await call(gw, "/v1/stores", { token });
      assert.is(response.status, 200);
      assert.equal(rateHeaders(response), [String(limit), String(limit - n), resetOf(gw)]);
    }
    gw.clock.advance(20_000); // 39 seconds left in the window
    const excess = await call(gw, "/v1/stores", { token });
    await expectError(gw, excess, 429, "partner.rate_limited", "/v1/stores", { retryAfter: 39 });
    assert.is(excess.headers.get("retry-after"), "39");
    assert.equal(rateHeaders(excess), [String(limit), "0", resetOf(gw)]);
    assert.is(
      messageFor("partner.rate_limited", { retryAfter: 39 }),
      "Rate limit exceeded. Wait 39 seconds before sending more requests.",
    );
    // Per app: another app is not affected; a new token of the same app is.
    assert.is((await call(gw, "/v1/stores", { token: gw.token(other) })).status, 200);
    assert.is((await call(gw, "/v1/stores", { token: gw.token(fixture) })).status, 429);
    gw.clock.advance(39_000); // the minute boundary
    const next = await call(gw, "/v1/stores", { token });
    assert.is(next.status, 200);
    assert.equal(rateHeaders(next), [String(limit), String(limit - 1), resetOf(gw)]);
  },
);

Gateway(
  "region: a token for a region this deployment does not serve is 503 partner.region_unavailable",
  async ({ gw }) => {
    const fixture = await gw.fixture({ region: "ae", seed: false });
    const response = await call(gw, "/v1/items", { token: gw.token(fixture) });
    await expectError(gw, response, 503, "partner.region_unavailable", "/v1/items");
    assert.equal(rateHeaders(response), [String(limit), String(limit - 1), resetOf(gw)]);
    assert.ok(response.headers.get("location") === null, "never a redirect");
  },
);

Gateway("a merchant whose regional data is not provisioned yet: 503 company.not_provisioned", async ({ gw }) => {
  const fixture = await gw.fixture({ provisioned: false, seed: false });
  const response = await call(gw, "/v1/items", { token: gw.token(fixture) });
  await expectError(gw, response, 503, "company.not_provisioned", "/v1/items");
  assert.equal(rateHeaders(response), [String(limit), String(limit - 1), resetOf(gw)]);
});

Gateway(
  "companyId: the token's own is accepted, another merchant's is 403 partner.company_not_granted",
  async ({ gw }) => {
    const fixture = await gw.fixture();
    const token = gw.token(fixture);
    assert.is((await call(gw, `/v1/items?companyId=${fixture.companyId}`, { token })).status, 200);
    const other = await call(gw, `/v1/items?companyId=${fixture.companyId + 1}`, { token });
    await expectError(gw, other, 403, "partner.company_not_granted", "/v1/items");
    assert.equal(rateHeaders(other), [String(limit), String(limit - 2), resetOf(gw)]);
  },
);

Gateway(
  "validation failures come after authentication, in the envelope without a code, with the rate-limit headers",
  async ({ gw }) => {
    const fixture = await gw.fixture();
    const token = gw.token(fixture);
    const response = await call(gw, "/v1/items?limit=500", { token });
    assert.is(response.status, 400);
    assert.equal(rateHeaders(response), [String(limit), String(limit - 1), resetOf(gw)]);
    const body = (await response.json()) as PartnerErrorBody;
    assert.is(body.code, undefined);
    assert.equal(body.params, { fields: "limit" });
    const unknown = await call(gw, "/v1/items", {
      token,
      method: "POST",
      body: { name: "x", code: "x", priceMinor: 1, colour: "red" },
    });
    assert.is(unknown.status, 400);
    assert.equal(((await unknown.json()) as PartnerErrorBody).params, { fields: "colour" });
    const badCursor = await call(gw, "/v1/items?cursor=bogus", { token });
    assert.is(badCursor.status, 400);
    assert.equal(((await badCursor.json()) as PartnerErrorBody).params, { fields: "cursor" });
  },
);

Gateway("reports over HTTP: the window codes, and a 31-day window aggregated per day", async ({ gw }) => {
  const fixture = await gw.fixture();
  const token = gw.token(fixture);
  const path = "/v1/reports/daily-sales";
  await expectError(gw, await call(gw, `${path}?from=2026-01-01`, { token }), 400, "partner.invalid_window", path);
  await expectError(
    gw,
    await call(gw, `${path}?from=2026-01-05&to=2026-01-04`, { token }),
    400,
    "partner.invalid_window",
    path,
  );
  await expectError(
    gw,
    await call(gw, `${path}?from=2026-01-01&to=2026-02-01`, { token }),
    400,
    "partner.window_too_large",
    path,
  );
  const report = await call(gw, `${path}?from=2026-01-01&to=2026-01-31`, { token });
  assert.is(report.status, 200);
  const body = (await report.json()) as DailySalesReport;
  assert.is(body.days.length, 31);
  assert.equal(body.days[0], { date: "2026-01-01", saleCount: 0, totalMinor: 0, itemCount: 0 });
  const byStore = await call(gw, `/v1/reports/sales-by-store?from=2026-01-01&to=2026-01-02`, { token });
  assert.is(byStore.status, 200);
  assert.is(((await byStore.json()) as SalesByStoreReport).stores.length, 2);
});

Gateway(
  "GET /v1/online-orders over HTTP: orders.read, lowerCamel query, paging, the documented 400s",
  async ({ gw }) => {
    const fixture = await gw.fixture({ region: "in" });
    const token = gw.token(fixture);
    const path = "/v1/online-orders";
    const first = await call(gw, `${path}?limit=1&placedTo=2999-01-01T00:00:00Z`, { token });
    assert.is(first.status, 200);
    assert.equal(rateHeaders(first), [String(limit), String(limit - 1), resetOf(gw)]);
    const page = (await first.json()) as OnlineOrderPage;
    assert.equal(Object.keys(page).sort(), ["nextCursor", "orders"]);
    assert.equal(Object.keys(page.orders[0]!).sort(), [
      "currency",
      "id",
      "lines",
      "placedAt",
      "status",
      "storeId",
      "totalMinor",
      "updatedAt",
    ]);
    const second = (await (
      await call(gw, `${path}?limit=1&placedTo=2999-01-01T00:00:00Z&cursor=${page.nextCursor}`, { token })
    ).json()) as OnlineOrderPage;
    assert.is(second.orders.length, 1);
    assert.is(second.nextCursor, undefined, "the fixture has two orders");
    assert.is.not(second.orders[0]!.id, page.orders[0]!.id);
    for (const [query, fields] of [
      ["placedFrom=yesterday", "placedFrom"],
      ["status=pending", "status"],
      ["placed_from=2026-01-01T00:00:00Z", "placed_from"],
    ]) {
      const bad = await call(gw, `${path}?${query}`, { token });
      assert.is(bad.status, 400, query);
      const body = (await bad.json()) as PartnerErrorBody;
      assert.is(body.code, undefined, "a validation failure has no code (spec, partner envelope)");
      assert.equal(body.params, { fields }, query);
    }
    // ADSR's bundle has no orders.read.
    const adsr = await gw.fixture({ product: "ADSR" });
    await expectError(gw, await call(gw, path, { token: gw.token(adsr) }), 403, "partner.scope_denied", path);
  },
);

Gateway(
  'PATCH /v1/items/{id} corrects the currency (the API guide\'s "any of the fields above"); a bad code is a 400 naming it',
  async ({ gw }) => {
    const fixture = await gw.fixture();
    const token = gw.token(fixture);
    const created = await call(gw, "/v1/items", {
      token,
      method: "POST",
      body: { name: "Lassi", code: "LASSI", priceMinor: 9900 },
    });
    const item = ((await created.json()) as { item: Item }).item;
    assert.is(item.currency, "INR");
    gw.clock.advance(1000);
    const patched = await call(gw, `/v1/items/${item.id}`, {
      token,
      method: "PATCH",
      body: { currency: "USD", priceMinor: 199 },
    });
    assert.is(patched.status, 200);
    assert.equal(((await patched.json()) as { item: Item }).item, {
      ...item,
      currency: "USD",
      priceMinor: 199,
      // Microseconds: the catalogue change feed's stamp.
      updatedAt: new Date(gw.clock.now()).toISOString().replace("Z", "000Z"),
    });
    const listed = (await (await call(gw, "/v1/items?limit=100", { token })).json()) as ItemPage;
    assert.is(listed.items.find((candidate) => candidate.id === item.id)?.currency, "USD");
    const lower = await call(gw, `/v1/items/${item.id}`, { token, method: "PATCH", body: { currency: "usd" } });
    assert.is(lower.status, 400);
    const refused = (await lower.json()) as PartnerErrorBody;
    assert.is(refused.code, undefined);
    assert.equal(refused.params, { fields: "currency" });
  },
);

Gateway(
  "business codes over HTTP: order not found, duplicates, missing category, no acting employee",
  async ({ gw }) => {
    const fixture = await gw.fixture();
    const token = gw.token(fixture);
    await expectError(
      gw,
      await call(gw, "/v1/online-orders/999999999", { token }),
      404,
      "partner.order_not_found",
      "/v1/online-orders/999999999",
    );
    const created = await call(gw, "/v1/items", {
      token,
      method: "POST",
      body: { name: "Chai", code: "CHAI", priceMinor: 4500 },
    });
    assert.is(created.status, 200);
    const item = ((await created.json()) as { item: Item }).item;
    // The change's stamp, to the microsecond: now, or just after the merchant's data seeded at the same instant.
    assert.is(Date.parse(item.updatedAt), gw.clock.now());
    assert.equal(
      { ...item, id: 0 },
      {
        id: 0,
        name: "Chai",
        code: "CHAI",
        priceMinor: 4500,
        currency: "INR",
        createdAt: new Date(gw.clock.now()).toISOString(),
        updatedAt: item.updatedAt,
        modifierGroups: [],
      },
    );
    await expectError(
      gw,
      await call(gw, "/v1/items", { token, method: "POST", body: { name: "Chai", code: "CHAI", priceMinor: 1 } }),
      409,
      "db.duplicate",
      "/v1/items",
      { field: "code" },
    );
    await expectError(
      gw,
      await call(gw, "/v1/items", {
        token,
        method: "POST",
        body: { name: "x", code: "X1", categoryId: 999999999, priceMinor: 1 },
      }),
      404,
      "partner.category_not_found",
      "/v1/items",
      { field: "categoryId" },
    );
    const patched = await call(gw, `/v1/items/${item.id}`, { token, method: "PATCH", body: { priceMinor: 5000 } });
    assert.is(patched.status, 200);
    assert.is(((await patched.json()) as { item: Item }).item.priceMinor, 5000);
    const second = await gw.fixture();
    const category = await call(gw, "/v1/categories", {
      token: gw.token(second),
      method: "POST",
      body: { name: "Coffee" },
    });
    await expectError(gw, category, 409, "db.duplicate", "/v1/categories", { field: "name" });

    const lonely = await gw.fixture({ seed: false });
    const { createRegionSeedQueries } = await import("../../src/data/queries/region-seed-queries.js");
    await createRegionSeedQueries(gw.app.regionDatabases.get("in")!.sql, "in").insertStores(lonely.companyId, [
      "Only store",
    ]);
    const write = await call(gw, "/v1/categories", { token: gw.token(lonely), method: "POST", body: { name: "Tea" } });
    await expectError(gw, write, 409, "partner.acting_user_unavailable", "/v1/categories");
    assert.equal(rateHeaders(write), [String(limit), String(limit - 1), resetOf(gw)]);
  },
);

Gateway.run();
