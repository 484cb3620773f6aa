// The client's sandbox client credentials (POST /v1/token) and ADSR API keys against the real app. A
// server without them answers 501 server.unimplemented: the test then checks the client surfaces exactly that,
// says so and stops, so the suite also runs on a checkout from before they were built.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { type Connection, type DailySalesReport, PartnerApiError } from "../../src/client/index.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { clientFor, expireSoon, newSeededWorld } from "../support/client.js";

const Keys = suite("client/sandbox-and-keys");
const clock = createManualClock(Date.now());
let test: TestApp;

Keys.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { GATEWAY_CACHE_SECONDS: "0" } });
});
Keys.after(async () => {
  await test.stop();
});

let worlds = 0;

/** True (and a note) when the server answered the client with 501 server.unimplemented. */
function notBuilt(error: unknown, what: string): boolean {
  if (!(error instanceof PartnerApiError) || error.code !== "server.unimplemented") return false;
  assert.is(error.status, 501);
  console.log(
    `  (${what}: the server answers server.unimplemented; the client's side is unit-tested in client/transport)`,
  );
  return true;
}

Keys("sandbox: connectSandbox mints at POST /v1/token; parallel calls near exp mint again exactly once", async () => {
  const w = await newSeededWorld(test, clock, `http://127.0.0.1:9/keys/${++worlds}`);
  const { client, store, wire } = clientFor(test, w, clock);
  let connection: Connection;
  try {
    connection = await client.connectSandbox(w.companyId);
  } catch (error) {
    if (notBuilt(error, "POST /v1/token")) return;
    throw error;
  }
  assert.equal(connection, {
    merchantId: w.companyId,
    scope: "stores.read items.read items.write categories.read categories.write orders.read reports.read",
    apiBaseUrl: `${test.base}/v1/`,
  });
  const stored = (await store.get(w.companyId))!;
  assert.is(stored.kind, "sandbox");
  assert.is(stored.refreshToken, undefined);
  await expireSoon(store, w.companyId, clock, 30);
  const merchant = client.merchant(w.companyId);
  const pages = await Promise.all(Array.from({ length: 5 }, () => merchant.items.list({ limit: 1 })));
  for (const page of pages) assert.is(page.items.length, 1);
  assert.equal(wire(), ["POST /v1/token 200", "POST /v1/token 200", ...Array<string>(5).fill("GET /v1/items 200")]);
  const unknown = await client.connectSandbox(999_999_999).then(
    () => undefined,
    (error: unknown) => error as PartnerApiError,
  );
  assert.equal([unknown?.code, unknown?.status, unknown?.shape], ["developer.merchant_not_found", 404, "developer"]);
});

Keys("API key: companyId on every call; the ADSR bundle reads reports, not items", async () => {
  const w = await newSeededWorld(test, clock, `http://127.0.0.1:9/keys/${++worlds}`, Product.ADSR);
  const { client, wire } = clientFor(test, w, clock, { apiKey: w.apiKey! });
  const company = client.company(w.companyId);
  let report: DailySalesReport;
  try {
    report = await company.reports.dailySales({ from: "2026-01-01", to: "2026-01-03" });
  } catch (error) {
    if (notBuilt(error, "API keys at the gateway")) return;
    throw error;
  }
  assert.is(report.days.length, 3);
  const denied = await company.items.list().then(
    () => undefined,
    (error: unknown) => error as PartnerApiError,
  );
  assert.equal([denied?.code, denied?.status], ["partner.scope_denied", 403]);
  assert.equal(wire(), ["GET /v1/reports/daily-sales 200", "GET /v1/items 403"]);
  const other = await client
    .company(w.companyId + 1_000_000)
    .stores.list()
    .then(
      () => undefined,
      (error: unknown) => error as PartnerApiError,
    );
  assert.is(other?.status, 403);
});

Keys.run();
