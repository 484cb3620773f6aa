// Client behaviours with an injected fetch, for what the real server cannot be made to do on demand (a network
// failure, a second 401 after a renewal, a write answered 502 or 504, two calls inside one closed window), and the
// exact requests the client sends. The fake answers in the server's exact shapes; the real-server suites
// (client/partner-client, client/sandbox-and-keys) cover the same behaviours end to end where they can.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createPartnerClient, PartnerApiError, type PartnerClientOptions } from "../../src/client/index.js";
import { createManualClock } from "../../src/runtime/clock.js";

const Transport = suite("client/transport");

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}
type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | "network";

const base = "http://api.test";
const start = Date.UTC(2026, 4, 1, 12, 0, 10);

/** A JWT-shaped token whose payload has `exp` (unsigned: the client reads `exp` and nothing else). */
function jwt(expSeconds: number, id: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ exp: expSeconds, id })}.sig`;
}

function harness(answer: (seen: Seen, index: number) => Answer, extra: Partial<PartnerClientOptions> = {}) {
  const clock = createManualClock(start);
  const seen: Seen[] = [];
  const sleeps: number[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const request: Seen = {
      method: init?.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(new Headers(init?.headers)),
      body: typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : undefined,
    };
    seen.push(request);
    const result = answer(request, seen.length - 1);
    if (result === "network") throw new TypeError("fetch failed");
    return new Response(result.body === undefined ? null : JSON.stringify(result.body), {
      status: result.status,
      headers: {
        "content-type": "application/json",
        "x-correlation-id": "00000000-0000-4000-8000-000000000001",
        ...result.headers,
      },
    });
  };
  const client = createPartnerClient({
    baseUrl: base,
    clientId: "lp_app_sbTEST",
    clientSecret: "lp_sk_sb_TEST",
    apiKey: "lp_ak_sb_TEST",
    fetch: fetcher,
    clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  return { client, seen, sleeps, clock };
}

const partnerError = (statusCode: number, code: string | undefined, params: Record<string, unknown> = {}) => ({
  status: "error",
  statusCode,
  timestamp: "2026-05-01T12:00:10.000Z",
  path: "/v1/items",
  message: "m",
  ...(code === undefined ? {} : { code }),
  params,
  correlationId: "11111111-2222-4333-8444-555555555555",
});
const itemBody = {
  item: { id: 1, name: "Tea", code: "T", priceMinor: 1, currency: "GBP", createdAt: "x", updatedAt: "x" },
};

async function failure(promise: Promise<unknown>): Promise<PartnerApiError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, PartnerApiError);
    return error as PartnerApiError;
  }
  throw new Error("expected a failure");
}

Transport(
  "API key: X-API-Key and companyId on every call (query of reads, body of writes), Accept-Language passed",
  async () => {
    const { client, seen } = harness((request) =>
      request.method === "GET"
        ? { status: 200, body: { from: "2026-01-01", to: "2026-01-02", currency: "GBP", days: [] } }
        : { status: 200, body: itemBody },
    );
    const company = client.company(42);
    await company.reports.dailySales({ from: "2026-01-01", to: "2026-01-02" }, { acceptLanguage: "hi" });
    await company.items.create({ name: "Tea", code: "T", priceMinor: 1 });
    await company.items.update(7, { name: "Green tea" });
    assert.equal(
      seen.map((request) => [request.method, request.path, request.query, request.body]),
      [
        ["GET", "/v1/reports/daily-sales", { companyId: "42", from: "2026-01-01", to: "2026-01-02" }, undefined],
        ["POST", "/v1/items", {}, { companyId: 42, name: "Tea", code: "T", priceMinor: 1 }],
        ["PATCH", "/v1/items/7", {}, { companyId: 42, name: "Green tea" }],
      ],
    );
    for (const request of seen) {
      assert.is(request.headers["x-api-key"], "lp_ak_sb_TEST");
      assert.is(request.headers["authorization"], undefined);
    }
    assert.is(seen[0]!.headers["accept-language"], "hi");
    assert.is(seen[1]!.headers["accept-language"], undefined);
  },
);

Transport(
  "API key: 401 partner.api_key_invalid is not retried (no token to renew); the envelope's fields are on the error",
  async () => {
    const { client, seen } = harness(() => ({ status: 401, body: partnerError(401, "partner.api_key_invalid") }));
    const error = await failure(client.company(42).stores.list());
    assert.equal(
      {
        code: error.code,
        status: error.status,
        params: error.params,
        correlationId: error.correlationId,
        shape: error.shape,
      },
      {
        code: "partner.api_key_invalid",
        status: 401,
        params: {},
        correlationId: "11111111-2222-4333-8444-555555555555",
        shape: "partner",
      },
    );
    assert.is(seen.length, 1);
  },
);

Transport(
  "a POST after a network error with no response is sent again (up to three times); then client.network",
  async () => {
    const flaky = harness((_, index) => (index < 2 ? "network" : { status: 200, body: itemBody }));
    const item = await flaky.client.company(1).items.create({ name: "Tea", code: "T", priceMinor: 1 });
    assert.is(item.id, 1);
    assert.is(flaky.seen.length, 3);
    assert.equal(flaky.sleeps, [375, 750]);
    const down = harness(() => "network");
    const error = await failure(down.client.company(1).items.create({ name: "Tea", code: "T", priceMinor: 1 }));
    assert.equal([error.code, error.status, error.shape], ["client.network", 0, "client"]);
    assert.is(down.seen.length, 4);
    assert.equal(down.sleeps, [375, 750, 1500]);
  },
);

Transport("a POST answered 5xx is sent once, whatever the 5xx; 4xx never retried; a read 502 is retried", async () => {
  for (const [status, code] of [
    [500, undefined],
    [502, undefined],
    [503, "server.unavailable"],
    [503, "partner.region_unavailable"],
    [504, "server.timeout"],
  ] as const) {
    const { client, seen, sleeps } = harness(() => ({ status, body: partnerError(status, code) }));
    const error = await failure(client.company(1).items.create({ name: "Tea", code: "T", priceMinor: 1 }));
    assert.equal([error.status, error.code, seen.length, sleeps.length], [status, code, 1, 0]);
  }
  const read = harness((_, index) => (index === 0 ? { status: 502 } : { status: 200, body: { stores: [] } }));
  assert.equal(await read.client.company(1).stores.list(), { stores: [] });
  assert.equal(read.sleeps, [375]);
  const conflict = harness(() => ({ status: 409, body: partnerError(409, "db.duplicate") }));
  assert.is((await failure(conflict.client.company(1).categories.create({ name: "x" }))).code, "db.duplicate");
  assert.is(conflict.seen.length, 1);
});

Transport(
  "429: the app's window is closed for every call until X-RateLimit-Reset; the budget view shows the headers",
  async () => {
    const reset = Math.ceil(start / 60_000) * 60; // the next minute boundary, in seconds
    const rateHeaders = (remaining: number, resetAt: number) => ({
      "x-ratelimit-limit": "300",
      "x-ratelimit-remaining": String(remaining),
      "x-ratelimit-reset": String(resetAt),
    });
    const waiting: Array<() => void> = [];
    const sleeps: number[] = [];
    const { client, seen, clock } = harness(
      (request, index) =>
        index === 0
          ? {
              status: 429,
              body: partnerError(429, "partner.rate_limited", { retryAfter: 50 }),
              headers: { ...rateHeaders(0, reset), "retry-after": "50" },
            }
          : {
              status: 200,
              body: request.path === "/v1/items" ? { items: [] } : { stores: [] },
              headers: rateHeaders(299, reset + 60),
            },
      {
        sleep: (ms) => {
          sleeps.push(ms);
          return new Promise<void>((resolve) =>
            waiting.push(() => {
              clock.set(Math.max(clock.now(), start + ms));
              resolve();
            }),
          );
        },
      },
    );
    assert.is(client.budget(), undefined);
    const first = client.company(1).stores.list();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(client.budget(), { limit: 300, remaining: 0, reset, observedAt: start });
    // Another call started during the wait waits too: nothing is sent inside the closed window.
    const second = client.company(2).items.list();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.is(seen.length, 1);
    assert.equal(sleeps, [reset * 1000 - start, reset * 1000 - start]);
    for (const release of waiting) release();
    await Promise.all([first, second]);
    assert.equal(clock.now(), reset * 1000);
    assert.is(seen.length, 3);
    assert.equal(client.budget(), { limit: 300, remaining: 299, reset: reset + 60, observedAt: reset * 1000 });
  },
);

/** A fake token endpoint: each refresh answers a new pair whose access token expires in 900 s. */
function tokenAnswer(clockNow: number, n: number) {
  return {
    access_token: jwt(Math.floor(clockNow / 1000) + 900, `at-${n}`),
    token_type: "Bearer",
    expires_in: 900,
    refresh_token: `lp_rt_sb_${n}`,
    refresh_token_expires_in: 8640000,
    scope: "items.read",
    merchant_id: 5,
    api_base_url: `${base}/v1/`,
  };
}

Transport("401 renews once and retries once, then stops: a second 401 is the caller's", async () => {
  let refreshes = 0;
  const { client, seen, clock } = harness((request) => {
    if (request.path === "/v1/oauth/token") return { status: 200, body: tokenAnswer(clock.now(), ++refreshes) };
    return { status: 401, body: partnerError(401, "partner.token_invalid") };
  });
  const pending = { url: "", state: "s", codeVerifier: "v".repeat(43), redirectUri: "https://app.test/cb" };
  await client.completeAuthorization(
    `https://app.test/cb?code=c&state=s&merchant_id=5&iss=${encodeURIComponent(`${base}/`)}`,
    pending,
  );
  const error = await failure(client.merchant(5).items.list());
  assert.equal([error.code, error.status], ["partner.token_invalid", 401]);
  assert.equal(
    seen.map(
      (request) =>
        `${request.method} ${request.path} ${request.body?.["grant_type"] ?? request.headers["authorization"] ?? ""}`,
    ),
    [
      "POST /v1/oauth/token authorization_code",
      `GET /v1/items Bearer ${tokenAnswer(start, 1).access_token}`,
      "POST /v1/oauth/token refresh_token",
      `GET /v1/items Bearer ${tokenAnswer(start, 2).access_token}`,
    ],
  );
  assert.equal(seen[0]!.body, {
    grant_type: "authorization_code",
    code: "c",
    redirect_uri: "https://app.test/cb",
    client_id: "lp_app_sbTEST",
    client_secret: "lp_sk_sb_TEST",
    code_verifier: "v".repeat(43),
  });
  assert.equal(seen[2]!.body, {
    grant_type: "refresh_token",
    refresh_token: "lp_rt_sb_1",
    client_id: "lp_app_sbTEST",
    client_secret: "lp_sk_sb_TEST",
  });
});

Transport(
  "sandbox: POST /v1/token with merchant_id; renewed by minting again (once for parallel calls); developer envelope errors",
  async () => {
    let mints = 0;
    const { client, seen, clock } = harness((request) => {
      if (request.path === "/v1/token") {
        if (request.body?.["merchant_id"] === 404) {
          return {
            status: 404,
            body: { error: { code: "developer.merchant_not_found", message: "m", details: [], params: {} } },
          };
        }
        const {
          refresh_token: _r,
          refresh_token_expires_in: _e,
          merchant_id: _m,
          ...sandbox
        } = tokenAnswer(clock.now(), ++mints);
        return { status: 200, body: sandbox };
      }
      return { status: 200, body: { items: [] } };
    });
    const connection = await client.connectSandbox(9);
    assert.equal(connection, { merchantId: 9, scope: "items.read", apiBaseUrl: `${base}/v1/` });
    assert.equal(seen[0]!.body, {
      grant_type: "client_credentials",
      client_id: "lp_app_sbTEST",
      client_secret: "lp_sk_sb_TEST",
      merchant_id: 9,
    });
    clock.advance(841_000);
    await Promise.all(Array.from({ length: 5 }, () => client.merchant(9).items.list()));
    assert.equal(
      seen.map((request) => request.path),
      ["/v1/token", "/v1/token", ...Array<string>(5).fill("/v1/items")],
    );
    assert.is(mints, 2);
    const error = await failure(client.connectSandbox(404));
    assert.equal(
      { code: error.code, status: error.status, shape: error.shape, details: error.details, params: error.params },
      { code: "developer.merchant_not_found", status: 404, shape: "developer", details: [], params: {} },
    );
  },
);

Transport(
  "no tokens stored: client.not_connected without a request; a success that is not JSON: client.bad_response",
  async () => {
    const { client, seen } = harness(() => ({ status: 200 }));
    assert.is((await failure(client.merchant(77).items.list())).code, "client.not_connected");
    assert.is(seen.length, 0);
    assert.is((await failure(client.company(1).items.list())).code, "client.bad_response");
    const bare = createPartnerClient({ baseUrl: base });
    assert.is((await failure(bare.startAuthorization())).code, "client.misconfigured");
    assert.throws(
      () => bare.company(1),
      (error: unknown) => error instanceof PartnerApiError && error.code === "client.misconfigured",
    );
  },
);

Transport(
  "a success without what the route answers: client.bad_response (a page without its rows, a report without its days, a token response with a field of the wrong type)",
  async () => {
    const { client, seen } = harness((request) => {
      if (request.path === "/v1/token") return { status: 200, body: { ...tokenAnswer(start, 1), expires_in: "900" } };
      if (request.path === "/v1/items") return { status: 200, body: { items: null } };
      return { status: 200, body: { from: "2026-05-01", to: "2026-05-01", currency: "GBP" } };
    });
    const company = client.company(1);
    const items = await failure(company.items.list());
    assert.equal([items.code, items.message], ["client.bad_response", "GET /v1/items answered without items"]);
    const report = await failure(company.reports.dailySales({ from: "2026-05-01", to: "2026-05-01" }));
    assert.equal(
      [report.code, report.message],
      ["client.bad_response", "GET /v1/reports/daily-sales answered without days"],
    );
    const token = await failure(client.connectSandbox(9));
    assert.equal(
      [token.code, token.message],
      ["client.bad_response", "/v1/token answered without a token response (RFC 6749 5.1 and api_base_url)"],
    );
    assert.equal(
      seen.map((request) => request.path),
      ["/v1/items", "/v1/reports/daily-sales", "/v1/token"],
    );
  },
);

Transport("an aborted call is not retried", async () => {
  const controller = new AbortController();
  const { client, seen } = harness(() => {
    controller.abort();
    return "network";
  });
  try {
    await client.company(1).items.list({}, { signal: controller.signal });
    assert.unreachable("expected an abort");
  } catch (error) {
    assert.not.instance(error, PartnerApiError);
  }
  assert.is(seen.length, 1);
});

Transport.run();
