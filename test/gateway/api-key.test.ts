// ADSR API keys on partner routes, end to end over HTTP against the whole app on the manual clock: every API-key
// code with its exact status and envelope, the store scoping of an approved access request with fewer stores, the
// automatic reach of sandbox keys, decline and withdrawal within the cache bound, expiry, and the per-app limit
// shared with the app's other key. (Fail-closed behaviour: api-key-outage.test.ts.)
import { createClient, type Client } from "@connectrpc/connect";
import { connectTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Environment, Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { newApiKey as makeKey } from "../../src/credential/secrets.js";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { type Credentials, credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { newApiKey, newApp, newLiveMerchant, newOrganization, newSandboxMerchant } from "../support/sandbox.js";
import type { DailySalesReport, PartnerErrorBody, SalesByStoreReport, StorePage } from "../support/wire.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any

const Keys = suite("gateway/api-key");
const day = 86_400_000;
// Mid-minute of a minute that starts ahead of real time; the sales seeded end at this day.
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 + 15_000);
const limit = 40;
let test: TestApp;
let credentials: Credentials;
let grants: Client<typeof GrantService>;

Keys.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { PARTNER_RATE_LIMIT: String(limit) } });
  credentials = credentialServiceOf(test, clock);
  grants = createClient(GrantService, connectTransport(test.app.grpc.port, test.internal.operator));
});
Keys.after(async () => {
  await test.stop();
});

const cacheMs = () => Math.max(test.config.caches.gatewaySeconds, test.config.caches.credentialSeconds) * 1000;

/** GET with the key; `Body` is what the call answers (an error's body is checked whole by expectError). */
async function get<Body = PartnerErrorBody>(
  path: string,
  apiKey: string | undefined,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${test.base}${path}`, {
    headers: apiKey === undefined ? headers : { "x-api-key": apiKey, ...headers },
  });
  return { response, body: (await response.json()) as Body };
}

async function expectError(
  answer: { response: Response; body: unknown },
  status: number,
  code: ErrorCode,
  path: string,
) {
  assert.is(answer.response.status, status, code);
  assert.equal(answer.body, {
    status: "error",
    statusCode: status,
    timestamp: new Date(clock.now()).toISOString(),
    path,
    message: messageFor(code),
    code,
    params: {},
    correlationId: answer.response.headers.get("x-correlation-id"),
  });
}

const today = () => new Date(clock.now()).toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(clock.now() - n * day).toISOString().slice(0, 10);

/** An approved ADSR app with a production and a sandbox key, a live merchant with three stores and sales. */
async function world() {
  const organizationId = await newOrganization(credentials);
  const app = await newApp(credentials, organizationId, Product.ADSR, true);
  const merchant = await newLiveMerchant(credentials, "us");
  const regional = test.app.regionDatabases.get("us")!.sql;
  const storeIds = await seedMerchantData(regional, "us", merchant.companyId, {
    storeCount: 3,
    itemCount: 5,
    salesDays: 10,
    onlineOrderCount: 0,
    now: new Date(clock.now()),
  });
  await credentials.updateMerchantStatus({ companyId: BigInt(merchant.companyId), provisioned: true });
  const production = await newApiKey(credentials, app.appId, Environment.PRODUCTION);
  const sandbox = await newApiKey(credentials, app.appId, Environment.SANDBOX);
  return { organizationId, app, merchant, storeIds, production, sandbox };
}

async function request(w: Awaited<ReturnType<typeof world>>, storeIds = w.storeIds) {
  const { accessRequest } = await grants.createAccessRequest({
    appId: w.app.appId,
    companyId: BigInt(w.merchant.companyId),
    storeIds: storeIds.map(BigInt),
  });
  return accessRequest!.accessRequestId;
}

Keys(
  "an approved request with fewer stores: the key reads exactly those stores, in lists and in both reports",
  async () => {
    const w = await world();
    const id = await request(w);
    const stores = `/v1/stores?companyId=${w.merchant.companyId}`;
    await expectError(await get(stores, w.production), 403, "partner.company_not_granted", "/v1/stores");
    const [kept] = w.storeIds;
    await grants.approveAccessRequest({
      accessRequestId: id,
      userId: String(w.merchant.owner.userId),
      storeIds: [BigInt(kept!)],
    });
    clock.advance(cacheMs()); // the pending answer was cached; a decision shows within the bound

    const listed = await get<StorePage>(stores, w.production);
    assert.is(listed.response.status, 200, JSON.stringify(listed.body));
    assert.equal(
      listed.body.stores.map((store) => store.id),
      [kept],
    );
    assert.ok(listed.response.headers.get("x-ratelimit-limit"), "API-key calls carry the app's rate-limit headers");

    const window = `from=${daysAgo(9)}&to=${today()}`;
    const byStore = await get<SalesByStoreReport>(
      `/v1/reports/sales-by-store?companyId=${w.merchant.companyId}&${window}`,
      w.production,
    );
    assert.is(byStore.response.status, 200);
    assert.equal(
      byStore.body.stores.map((store) => store.storeId),
      [kept],
    );

    const daily = await get<DailySalesReport>(
      `/v1/reports/daily-sales?companyId=${w.merchant.companyId}&${window}`,
      w.production,
    );
    assert.is(daily.response.status, 200, JSON.stringify(daily.body));
    const regional = test.app.regionDatabases.get("us")!.sql;
    const [only] = await regional<{ total: number; count: number }[]>`
    select coalesce(sum(total_minor), 0)::bigint as total, count(*)::bigint as count from region_us.sales
    where company_id = ${w.merchant.companyId} and store_id = ${kept!}
      and sold_at >= ${daysAgo(9)}::date and sold_at < (${today()}::date + 1)`;
    const [all] = await regional<{ total: number }[]>`
    select coalesce(sum(total_minor), 0)::bigint as total from region_us.sales
    where company_id = ${w.merchant.companyId} and sold_at >= ${daysAgo(9)}::date and sold_at < (${today()}::date + 1)`;
    const sum = (field: "totalMinor" | "saleCount") => daily.body.days.reduce((total, row) => total + row[field], 0);
    assert.ok(only!.count > 0, "the kept store has sales in the window");
    assert.is(sum("totalMinor"), only!.total);
    assert.is(sum("saleCount"), only!.count);
    assert.ok(all!.total > only!.total, "the other stores' sales are left out");
    // The client cannot widen its scope with the internal header: only the gateway sets it.
    const forged = await get<StorePage>(stores, w.production, { "x-partner-store-scope": w.storeIds.join(",") });
    assert.equal(
      forged.body.stores.map((store) => store.id),
      [kept],
    );
    // The route's scope: ADSR reads stores and reports, not items.
    await expectError(
      await get(`/v1/items?companyId=${w.merchant.companyId}`, w.production),
      403,
      "partner.scope_denied",
      "/v1/items",
    );
  },
);

Keys(
  "key codes: company_param_required 400; unknown, malformed, revoked 401; another product 403; another merchant 403; environments",
  async () => {
    const w = await world();
    const id = await request(w);
    await grants.approveAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) });
    const path = `/v1/stores?companyId=${w.merchant.companyId}`;
    assert.is((await get(path, w.production)).response.status, 200);
    await expectError(await get("/v1/stores", w.production), 400, "partner.company_param_required", "/v1/stores");
    await expectError(
      await get("/v1/stores?companyId=abc", w.production),
      400,
      "partner.company_param_required",
      "/v1/stores",
    );
    await expectError(await get(path, "lp_ak_pk_short"), 401, "partner.api_key_invalid", "/v1/stores");
    await expectError(
      await get(path, makeKey(cryptoIds, "PRODUCTION").key),
      401,
      "partner.api_key_invalid",
      "/v1/stores",
    );
    const invalid = await get(path, "nonsense");
    await expectError(invalid, 401, "partner.api_key_invalid", "/v1/stores");
    assert.is(invalid.response.headers.get("www-authenticate"), null);

    // A key row of a FULL app (the console refuses to make one; the gateway checks anyway).
    const full = await newApp(credentials, w.organizationId, Product.FULL, true);
    const fullKey = makeKey(cryptoIds, "PRODUCTION");
    await test.app.control.sql`
    insert into control.api_keys (app_id, environment, name, lookup_id, key_hash) values (${full.appId}, 'PRODUCTION', 'forged', ${fullKey.lookupId}, ${fullKey.hash})`;
    await expectError(await get(path, fullKey.key), 403, "partner.api_key_product", "/v1/stores");

    // A live merchant that approved nothing for this app; one that does not exist.
    const other = await newLiveMerchant(credentials, "us");
    await expectError(
      await get(`/v1/stores?companyId=${other.companyId}`, w.production),
      403,
      "partner.company_not_granted",
      "/v1/stores",
    );
    await expectError(
      await get(`/v1/stores?companyId=8999999999999`, w.production),
      403,
      "partner.company_not_granted",
      "/v1/stores",
    );
    // Environments: a sandbox key with a live merchant, a production key with a demo one.
    await expectError(await get(path, w.sandbox), 403, "partner.env_mismatch", "/v1/stores");
    const demo = await newSandboxMerchant(credentials, w.organizationId);
    await expectError(
      await get(`/v1/stores?companyId=${demo.companyId}`, w.production),
      403,
      "partner.env_mismatch",
      "/v1/stores",
    );

    // Revoked: 401 within the verification cache's bound.
    const made = await credentials.getApp({ appId: w.app.appId });
    const productionKeyId = made.app!.apiKeys.find((key) => key.environment === Environment.PRODUCTION)!.apiKeyId;
    await credentials.revokeApiKey({ apiKeyId: productionKeyId });
    clock.advance(cacheMs());
    await expectError(await get(path, w.production), 401, "partner.api_key_invalid", "/v1/stores");
  },
);

Keys(
  "an API key's IP allowlist: other sources get 403 partner.ip_denied; a listed source (address or range) passes",
  async () => {
    const w = await world();
    const id = await request(w);
    await grants.approveAccessRequest({ accessRequestId: id, userId: String(w.merchant.owner.userId) });
    const path = `/v1/stores?companyId=${w.merchant.companyId}`;
    const made = await credentials.getApp({ appId: w.app.appId });
    const apiKeyId = made.app!.apiKeys.find((key) => key.environment === Environment.PRODUCTION)!.apiKeyId;
    // The test calls from 127.0.0.1.
    await credentials.setIpAllowlist({ apiKeyId, allowedIps: ["10.0.0.0/8", "2001:db8::1"] });
    clock.advance(cacheMs());
    await expectError(await get(path, w.production), 403, "partner.ip_denied", "/v1/stores");
    await credentials.setIpAllowlist({ apiKeyId, allowedIps: ["10.0.0.0/8", "127.0.0.0/8"] });
    clock.advance(cacheMs());
    assert.is((await get(path, w.production)).response.status, 200);
    await credentials.setIpAllowlist({ apiKeyId, allowedIps: ["127.0.0.1"] });
    clock.advance(cacheMs());
    assert.is((await get(path, w.production)).response.status, 200);
  },
);

Keys(
  "sandbox keys reach the organization's own sandbox merchants automatically, every store; not another organization's",
  async () => {
    const w = await world();
    const own = await newSandboxMerchant(credentials, w.organizationId);
    const answer = await get<StorePage>(`/v1/stores?companyId=${own.companyId}`, w.sandbox);
    assert.is(answer.response.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body.stores.length, 2, "a sandbox merchant is provisioned with the demo's two stores");
    const report = await get<DailySalesReport>(
      `/v1/reports/daily-sales?companyId=${own.companyId}&from=${daysAgo(2)}&to=${today()}`,
      w.sandbox,
    );
    assert.is(report.response.status, 200);
    assert.is(report.body.days.length, 3);
    const stranger = await newSandboxMerchant(credentials, await newOrganization(credentials));
    await expectError(
      await get(`/v1/stores?companyId=${stranger.companyId}`, w.sandbox),
      403,
      "partner.company_not_granted",
      "/v1/stores",
    );
  },
);

Keys(
  "decline and withdrawal: partner.company_not_granted on the next call after the cache bound; expiry never grants",
  async () => {
    const w = await world();
    const path = `/v1/stores?companyId=${w.merchant.companyId}`;
    const declinedId = await request(w);
    await grants.declineAccessRequest({ accessRequestId: declinedId, userId: String(w.merchant.owner.userId) });
    await expectError(await get(path, w.production), 403, "partner.company_not_granted", "/v1/stores");

    const approvedId = await request(w);
    await grants.approveAccessRequest({ accessRequestId: approvedId, userId: String(w.merchant.owner.userId) });
    clock.advance(cacheMs());
    assert.equal((await get<StorePage>(path, w.production)).body.stores.length, 3);
    await grants.withdrawAccessRequest({ accessRequestId: approvedId, userId: String(w.merchant.owner.userId) });
    clock.advance(cacheMs());
    const refused = await get(path, w.production);
    await expectError(refused, 403, "partner.company_not_granted", "/v1/stores");
    assert.is(
      refused.response.headers.get("x-ratelimit-limit"),
      String(limit),
      "a refusal after the key is known carries the app's headers",
    );

    // A pending request that expires grants nothing, before or after.
    const pendingId = await request(w);
    clock.advance(30 * day);
    assert.is((await grants.getAccessRequest({ accessRequestId: pendingId })).accessRequest!.state, "EXPIRED");
    await expectError(await get(path, w.production), 403, "partner.company_not_granted", "/v1/stores");
  },
);

Keys(
  "rate limit per app: the production and the sandbox key of one app share PARTNER_RATE_LIMIT per fixed minute",
  async () => {
    clock.set(Math.ceil(clock.now() / 60_000) * 60_000 + 20_000);
    const w = await world();
    await grants.approveAccessRequest({ accessRequestId: await request(w), userId: String(w.merchant.owner.userId) });
    const own = await newSandboxMerchant(credentials, w.organizationId);
    const answers = await Promise.all(
      Array.from({ length: limit }, (_, i) =>
        i % 2 === 0
          ? get(`/v1/stores?companyId=${w.merchant.companyId}`, w.production)
          : get(`/v1/stores?companyId=${own.companyId}`, w.sandbox),
      ),
    );
    assert.equal([...new Set(answers.map((answer) => answer.response.status))], [200]);
    const limited = await get(`/v1/stores?companyId=${own.companyId}`, w.sandbox);
    assert.is(limited.response.status, 429);
    assert.is(limited.body.code, "partner.rate_limited");
    assert.equal(limited.body.params, { retryAfter: 40 });
    assert.is(limited.response.headers.get("x-ratelimit-remaining"), "0");
    clock.advance(40_000);
    assert.is((await get(`/v1/stores?companyId=${w.merchant.companyId}`, w.production)).response.status, 200);
  },
);

Keys.run();
