// POST /v1/token and the client_credentials grant of /v1/oauth/token against the real app: the exact response,
// every code of the spec's list in the developer envelope (OAuth shape at /v1/oauth/token) with its status, the
// inference of merchant_id, and the throttle per source address in fixed minutes on the injected clock.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { type Credentials, credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { createGrantService } from "../../src/grant/index.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { createLogger } from "../../src/runtime/logger.js";
import { createInProcessClient } from "../../src/runtime/service-caller.js";
import {
  answerOf,
  claimsOf,
  newApp,
  newLiveMerchant,
  newOrganization,
  newSandboxMerchant,
} from "../support/sandbox.js";

const Sandbox = suite("token/sandbox-tokens");
// Mid-minute, so a test knows how many seconds are left in the window.
const clock = createManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 45_000);
let test: TestApp;
let credentials: Credentials;
let addresses = 0;

Sandbox.before(async () => {
  // ae is left out of REGIONS, so a sandbox merchant there is developer.region_unconfigured. TRUST_PROXY lets each
  // test come from its own address (X-Forwarded-For), so the throttle counts per test.
  test = await startTestApp({ clock, redis: false, env: { REGIONS: "uk,us,in", TRUST_PROXY: "127.0.0.1" } });
  credentials = credentialServiceOf(test, clock);
});
Sandbox.after(async () => {
  await test.stop();
});

const nextAddress = () => `198.51.100.${++addresses}`;

async function mint(
  body: Record<string, unknown>,
  options: { json?: boolean; address?: string; path?: string; headers?: Record<string, string> } = {},
) {
  const json = options.json ?? true;
  const response = await fetch(test.base + (options.path ?? "/v1/token"), {
    method: "POST",
    headers: {
      "content-type": json ? "application/json" : "application/x-www-form-urlencoded",
      "x-forwarded-for": options.address ?? nextAddress(),
      ...options.headers,
    },
    body: json
      ? JSON.stringify(body)
      : new URLSearchParams(Object.entries(body).map(([name, value]): [string, string] => [name, String(value)])),
  });
  return answerOf(response);
}

const developer = (code: ErrorCode, params: Record<string, unknown> = {}) => ({
  error: {
    code,
    message: messageFor(code, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))),
    details: [],
    params,
  },
});
const oauth = (code: ErrorCode, error: string) => ({ error, error_description: messageFor(code), code });

/** An organization with one sandbox merchant and a FULL app. */
async function world(product = Product.FULL) {
  const organizationId = await newOrganization(credentials);
  const merchant = await newSandboxMerchant(credentials, organizationId);
  const app = await newApp(credentials, organizationId, product);
  return {
    organizationId,
    merchant,
    app,
    pair: { client_id: app.sandbox.clientId, client_secret: app.sandbox.clientSecret },
  };
}

Sandbox(
  "200 in JSON and in form: exactly the five fields, no-store, the OAuth grants' JWT for the only sandbox merchant",
  async () => {
    const w = await world();
    for (const json of [true, false]) {
      const answer = await mint({ ...w.pair, grant_type: "client_credentials" }, { json });
      assert.is(answer.status, 200, JSON.stringify(answer.body));
      assert.is(answer.headers.get("cache-control"), "no-store");
      assert.is(answer.headers.get("content-type"), "application/json");
      assert.equal(Object.keys(answer.body).sort(), [
        "access_token",
        "api_base_url",
        "expires_in",
        "scope",
        "token_type",
      ]);
      assert.is(answer.body["token_type"], "Bearer");
      assert.is(answer.body["expires_in"], 900);
      assert.is(
        answer.body["scope"],
        "stores.read items.read items.write categories.read categories.write orders.read reports.read",
      );
      assert.is(answer.body["api_base_url"], `${test.base}/v1/`);
      const [header] = (answer.body["access_token"] as string)
        .split(".")
        .map((part) => Buffer.from(part, "base64url").toString());
      assert.equal(JSON.parse(header!).typ, "at+jwt");
      const claims = claimsOf(answer.body["access_token"] as string);
      const now = Math.floor(clock.now() / 1000);
      assert.equal(claims, {
        iss: `${test.base}/`,
        aud: "partnerapi-app",
        sub: w.app.appId,
        client_id: w.app.sandbox.clientId,
        orgId: Number(w.organizationId),
        companyId: w.merchant.companyId,
        region: "uk",
        product: "FULL",
        scopes: [
          "stores.read",
          "items.read",
          "items.write",
          "categories.read",
          "categories.write",
          "orders.read",
          "reports.read",
        ],
        env: "SANDBOX",
        jti: claims["jti"],
        iat: now,
        exp: now + 900,
      });
    }
    // merchant_id named explicitly (a JSON number, or form text), and HTTP Basic client authentication.
    assert.is((await mint({ ...w.pair, merchant_id: w.merchant.companyId })).status, 200);
    assert.is((await mint({ ...w.pair, merchant_id: w.merchant.companyId }, { json: false })).status, 200);
    const basic = Buffer.from(
      `${encodeURIComponent(w.app.sandbox.clientId)}:${encodeURIComponent(w.app.sandbox.clientSecret)}`,
    ).toString("base64");
    assert.is((await mint({}, { headers: { authorization: `Basic ${basic}` } })).status, 200);
  },
);

Sandbox(
  "merchant_id: required unless exactly one active sandbox merchant; not found; a live one; inactive; another organization's",
  async () => {
    const w = await world();
    const second = await newSandboxMerchant(credentials, w.organizationId, "US");
    const required = await mint(w.pair);
    assert.is(required.status, 400);
    assert.equal(required.body, developer("developer.merchant_required"));
    const chosen = await mint({ ...w.pair, merchant_id: second.companyId });
    assert.is(chosen.status, 200);
    assert.is(claimsOf(chosen.body["access_token"] as string)["region"], "us");
    // Deactivating one leaves exactly one active: inferred again. The inactive one, named, is merchant_inactive.
    await credentials.updateMerchantStatus({ companyId: BigInt(second.companyId), active: false });
    assert.is(claimsOf((await mint(w.pair)).body["access_token"] as string)["companyId"], w.merchant.companyId);
    const inactive = await mint({ ...w.pair, merchant_id: second.companyId });
    assert.is(inactive.status, 403);
    assert.equal(inactive.body, developer("developer.merchant_inactive"));
    // None active: required again.
    await credentials.updateMerchantStatus({ companyId: BigInt(w.merchant.companyId), active: false });
    assert.equal((await mint(w.pair)).body, developer("developer.merchant_required"));

    const missing = await mint({ ...w.pair, merchant_id: 8_999_999_999_999 });
    assert.is(missing.status, 404);
    assert.equal(missing.body, developer("developer.merchant_not_found"));
    const live = await newLiveMerchant(credentials);
    const mismatch = await mint({ ...w.pair, merchant_id: live.companyId });
    assert.is(mismatch.status, 403);
    assert.equal(mismatch.body, developer("developer.env_mismatch"));
    const other = await world();
    const foreign = await mint({ ...w.pair, merchant_id: other.merchant.companyId });
    assert.is(foreign.status, 403);
    assert.equal(foreign.body, developer("developer.grant_missing"));
  },
);

Sandbox(
  "a revoked grant of the organization's own sandbox merchant: the next mint restores it (no browser); another organization's stays grant_missing",
  async () => {
    const w = await world();
    const grants = createInProcessClient(
      GrantService,
      createGrantService(
        { config: test.config, clock, ids: cryptoIds, logger: createLogger({ write: () => undefined }) },
        { sql: test.app.control.sql },
      ),
    );
    const items = (token: string) =>
      fetch(`${test.base}/v1/items?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    const before = String((await mint(w.pair)).body["access_token"]);
    assert.is((await items(before)).status, 200);
    // The owner disconnects the app (the consent site's disconnect and the back office's RevokeGrant are this call).
    assert.is(
      (await grants.revokeGrant({ companyId: BigInt(w.merchant.companyId), appId: w.app.appId })).revoked,
      true,
    );
    clock.advance(test.config.caches.gatewaySeconds * 1000);
    const refused = await items(before);
    assert.is(refused.status, 403);
    assert.is(((await refused.json()) as { code: string }).code, "partner.grant_missing");
    // The developer mints again with the sandbox credentials: a live grant again, and the new token reads.
    const again = await mint({ ...w.pair, merchant_id: w.merchant.companyId });
    assert.is(again.status, 200, JSON.stringify(again.body));
    const listed = await grants.listGrants({ companyId: BigInt(w.merchant.companyId) });
    assert.equal(listed.grants.filter((grant) => grant.appId === w.app.appId).length, 1);
    clock.advance(test.config.caches.gatewaySeconds * 1000);
    assert.is((await items(String(again.body["access_token"]))).status, 200);
    // The same through client_credentials at /v1/oauth/token, after a second revoke.
    assert.is(
      (await grants.revokeGrant({ companyId: BigInt(w.merchant.companyId), appId: w.app.appId })).revoked,
      true,
    );
    const oauthMint = await mint({ ...w.pair, grant_type: "client_credentials" }, { path: "/v1/oauth/token" });
    assert.is(oauthMint.status, 200, JSON.stringify(oauthMint.body));
    assert.ok(
      (await grants.listGrants({ companyId: BigInt(w.merchant.companyId) })).grants.some(
        (grant) => grant.appId === w.app.appId,
      ),
    );
    // Another organization's app naming this merchant gets no grant out of it.
    const other = await world();
    const foreign = await mint({ ...other.pair, merchant_id: w.merchant.companyId });
    assert.is(foreign.status, 403);
    assert.equal(foreign.body, developer("developer.grant_missing"));
    assert.not.ok(
      (await grants.listGrants({ companyId: BigInt(w.merchant.companyId) })).grants.some(
        (grant) => grant.appId === other.app.appId,
      ),
    );
  },
);

Sandbox(
  "client failures: invalid_client 401 with WWW-Authenticate; missing fields; unsupported grant_type; archived; production; ADSR",
  async () => {
    const w = await world();
    const wrong = await mint({ ...w.pair, client_secret: "lp_sk_sb_" + "A".repeat(43) });
    assert.is(wrong.status, 401);
    assert.is(wrong.headers.get("www-authenticate"), "Basic");
    assert.equal(wrong.body, developer("developer.invalid_client"));
    assert.equal(
      (await mint({ client_id: "lp_app_sbnope", client_secret: "lp_sk_sb_x" })).body,
      developer("developer.invalid_client"),
    );
    const missing = await mint({ client_id: w.app.sandbox.clientId });
    assert.is(missing.status, 400);
    assert.equal(missing.body, developer("developer.invalid_request", { fields: "client_secret" }));
    const grant = await mint({ ...w.pair, grant_type: "password" });
    assert.is(grant.status, 400);
    assert.equal(grant.body, developer("developer.unsupported_grant_type", { grantType: "password" }));

    // Production credentials: FULL and ONLINE_ORDER must use OAuth, ADSR an API key (ADSR's sandbox pair too).
    const full = await newApp(credentials, w.organizationId, Product.FULL, true);
    const production = { client_id: full.production!.clientId, client_secret: full.production!.clientSecret };
    const useOauth = await mint(production);
    assert.is(useOauth.status, 400);
    assert.equal(useOauth.body, developer("developer.use_oauth"));
    const online = await newApp(credentials, w.organizationId, Product.ONLINE_ORDER, true);
    assert.equal(
      (await mint({ client_id: online.production!.clientId, client_secret: online.production!.clientSecret })).body,
      developer("developer.use_oauth"),
    );
    const adsr = await newApp(credentials, w.organizationId, Product.ADSR, true);
    const useKey = await mint({ client_id: adsr.production!.clientId, client_secret: adsr.production!.clientSecret });
    assert.is(useKey.status, 400);
    assert.equal(useKey.body, developer("developer.use_api_key"));
    assert.equal(
      (await mint({ client_id: adsr.sandbox.clientId, client_secret: adsr.sandbox.clientSecret })).body,
      developer("developer.use_api_key"),
    );
    // A production credential of an app that is not APPROVED (no transition leads there today; the check stands).
    await test.app.control.sql`update control.apps set state = 'REJECTED' where id = ${full.appId}`;
    clock.advance(test.config.caches.credentialSeconds * 1000); // past the verification cache's bound
    const notApproved = await mint(production);
    assert.is(notApproved.status, 403);
    assert.equal(notApproved.body, developer("developer.app_not_approved"));

    await credentials.archiveApp({ appId: w.app.appId });
    const archived = await mint(w.pair);
    assert.is(archived.status, 403);
    assert.equal(archived.body, developer("developer.app_archived"));
  },
);

Sandbox("region_unconfigured: 503 when the merchant's region is not among REGIONS", async () => {
  const organizationId = await newOrganization(credentials);
  const merchant = await newSandboxMerchant(credentials, organizationId, "AE");
  const app = await newApp(credentials, organizationId, Product.FULL);
  const answer = await mint({
    client_id: app.sandbox.clientId,
    client_secret: app.sandbox.clientSecret,
    merchant_id: merchant.companyId,
  });
  assert.is(answer.status, 503);
  assert.equal(answer.body, developer("developer.region_unconfigured"));
  assert.ok(test.logs.some((line) => line.includes("region is not served here")));
});

Sandbox(
  "throttle: SANDBOX_TOKEN_RATE_LIMIT (30) per source address per fixed minute; 429 developer.rate_limited with Retry-After",
  async () => {
    const w = await world();
    const address = "203.0.113.9";
    // Thirty in parallel, wrong secrets among them: every call counts, before client authentication.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        mint(i % 2 === 0 ? w.pair : { ...w.pair, client_secret: "lp_sk_sb_wrong" }, { address }),
      ),
    );
    assert.equal([...new Set(answers.map((answer) => answer.status))].sort(), [200, 401]);
    const limited = await mint(w.pair, { address });
    const retryAfter = 60 - Math.floor((clock.now() % 60_000) / 1000);
    assert.is(limited.status, 429);
    assert.is(limited.headers.get("retry-after"), String(retryAfter));
    assert.equal(limited.body, developer("developer.rate_limited", { retryAfter }));
    // Another address is not affected; the next minute starts afresh.
    assert.is((await mint(w.pair)).status, 200);
    clock.advance(retryAfter * 1000);
    assert.is((await mint(w.pair, { address })).status, 200);
  },
);

Sandbox(
  "throttle: an IPv6 source counts by its /64, so every address of one subnet shares the minute's thirty",
  async () => {
    const w = await world();
    const subnet = "2001:db8:5a:1";
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => mint(w.pair, { address: `${subnet}:${i.toString(16)}::1` })),
    );
    assert.equal([...new Set(answers.map((answer) => answer.status))], [200]);
    const limited = await mint(w.pair, { address: `${subnet}:ffff:ffff:ffff:ffff` });
    const retryAfter = 60 - Math.floor((clock.now() % 60_000) / 1000);
    assert.is(limited.status, 429);
    assert.is(limited.headers.get("retry-after"), String(retryAfter));
    assert.equal(limited.body, developer("developer.rate_limited", { retryAfter }));
    assert.is((await mint(w.pair, { address: "2001:db8:5a:2::1" })).status, 200, "another /64");
  },
);

Sandbox(
  "client_credentials at /v1/oauth/token: the OAuth shape without a refresh token; the same rules and codes",
  async () => {
    const w = await world();
    const cc = (fields: Record<string, unknown>) =>
      mint({ grant_type: "client_credentials", ...fields }, { path: "/v1/oauth/token", json: false });
    const answer = await cc(w.pair);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(Object.keys(answer.body).sort(), [
      "access_token",
      "api_base_url",
      "expires_in",
      "merchant_id",
      "scope",
      "token_type",
    ]);
    assert.is(answer.body["merchant_id"], w.merchant.companyId);
    assert.is(claimsOf(answer.body["access_token"] as string)["companyId"], w.merchant.companyId);
    assert.is((await cc({ ...w.pair, merchant_id: w.merchant.companyId })).status, 200);

    const full = await newApp(credentials, w.organizationId, Product.FULL, true);
    const useOauth = await cc({ client_id: full.production!.clientId, client_secret: full.production!.clientSecret });
    assert.is(useOauth.status, 400);
    assert.equal(useOauth.body, oauth("developer.use_oauth", "unauthorized_client"));
    const adsr = await newApp(credentials, w.organizationId, Product.ADSR, true);
    const useKey = await cc({ client_id: adsr.production!.clientId, client_secret: adsr.production!.clientSecret });
    assert.is(useKey.status, 400);
    assert.equal(useKey.body, oauth("developer.use_api_key", "unauthorized_client"));

    await newSandboxMerchant(credentials, w.organizationId, "IN");
    assert.equal((await cc(w.pair)).body, oauth("developer.merchant_required", "invalid_request"));
    const other = await world();
    const foreign = await cc({ ...w.pair, merchant_id: other.merchant.companyId });
    assert.is(foreign.status, 400);
    assert.equal(foreign.body, oauth("developer.grant_missing", "invalid_grant"));
    const ae = await newOrganization(credentials);
    const aeMerchant = await newSandboxMerchant(credentials, ae, "AE");
    const aeApp = await newApp(credentials, ae, Product.FULL);
    const unconfigured = await cc({
      client_id: aeApp.sandbox.clientId,
      client_secret: aeApp.sandbox.clientSecret,
      merchant_id: aeMerchant.companyId,
    });
    assert.is(unconfigured.status, 503);
    assert.equal(unconfigured.body, oauth("developer.region_unconfigured", "temporarily_unavailable"));
  },
);

Sandbox(
  "IP allowlist: a credential with one mints only from a listed address; elsewhere 403 developer.ip_denied at /v1/token, 401 oauth.ip_denied at /v1/oauth/token",
  async () => {
    const w = await world();
    const other = await world();
    // Set before the first verification, so no cached answer of the app's CredentialService predates it.
    await credentials.setIpAllowlist({
      clientId: w.app.sandbox.clientId,
      allowedIps: ["203.0.113.0/24", "2001:db8::/32"],
    });
    for (const address of ["198.51.100.250", "10.0.0.1", "2001:db9::1"]) {
      const refused = await mint(w.pair, { address });
      assert.is(refused.status, 403, address);
      assert.equal(refused.body, developer("developer.ip_denied"));
      assert.is(refused.headers.get("www-authenticate"), null);
      const oauthRefused = await mint(
        { grant_type: "client_credentials", ...w.pair },
        { address, path: "/v1/oauth/token" },
      );
      assert.is(oauthRefused.status, 401, address);
      assert.equal(oauthRefused.body, oauth("oauth.ip_denied", "invalid_client"));
      assert.is(oauthRefused.headers.get("www-authenticate"), "Basic");
      assert.is(oauthRefused.headers.get("cache-control"), "no-store");
    }
    // Authentication comes first: a wrong secret from anywhere is invalid_client, never a hint that the id has a list.
    const wrong = await mint({ ...w.pair, client_secret: "lp_sk_sb_" + "Z".repeat(43) }, { address: "10.0.0.1" });
    assert.is(wrong.status, 401);
    assert.equal(wrong.body, developer("developer.invalid_client"));
    for (const address of ["203.0.113.7", "2001:db8::5", "::ffff:203.0.113.8"]) {
      assert.is((await mint(w.pair, { address })).status, 200, address);
      assert.is(
        (await mint({ grant_type: "client_credentials", ...w.pair }, { address, path: "/v1/oauth/token" })).status,
        200,
        address,
      );
    }
    // The list is the presented credential's: another app's credential without one mints from anywhere.
    assert.is((await mint(other.pair, { address: "10.0.0.1" })).status, 200);
  },
);

Sandbox("metadata lists client_credentials among grant_types_supported", async () => {
  const response = await fetch(`${test.base}/.well-known/oauth-authorization-server`);
  assert.is(response.status, 200);
  const metadata = (await response.json()) as { grant_types_supported: string[] };
  assert.equal(metadata.grant_types_supported, ["authorization_code", "refresh_token", "client_credentials"]);
});

Sandbox.run();
