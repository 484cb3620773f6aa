// src/token/issuer.ts: the claims of the signed access token (RFC 9068 §2.2 profile: the JWT payload decoded,
// every claim exact, time from the manual clock) and the fields of the token response (RFC 6749 §5.1), with a
// generated RSA key behind a fake SigningKeyStore.
import { create } from "@bufbuild/protobuf";
import { generateKeyPairSync } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ExchangeTokenResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { messageToJson } from "../../src/runtime/wire/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import type { IdSource } from "../../src/runtime/ids.js";
import { appTokenAudience, createAccessTokenVerifier, type SigningKey } from "../../src/token/access-token.js";
import type { VerifiedClient } from "../../src/token/client-verifier.js";
import { createTokenIssuer } from "../../src/token/issuer.js";
import type { SigningKeyStore } from "../../src/token/signing-keys.js";

const Issuer = suite("token/issuer");

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const key: SigningKey = { kid: "kid-issuer-1", privateKey };
const start = Date.UTC(2026, 4, 1, 8, 0, 0) + 999; // 999 ms into the second: iat counts whole seconds
const startSeconds = Math.floor(start / 1000);

/** A SigningKeyStore that only hands out the generated key, counting how often it was asked. */
function fakeKeys() {
  let asked = 0;
  const store: SigningKeyStore = {
    ensure: async () => {},
    signingKey: async () => {
      asked++;
      return key;
    },
    published: async () => [],
    rotate: async () => {
      throw new Error("not used by the issuer");
    },
    signingAgeSeconds: async () => {
      throw new Error("not used by the issuer");
    },
  };
  return { store, asked: () => asked };
}

function sequentialIds(): IdSource {
  let n = 0;
  return { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`, randomToken: () => "unused" };
}

const client: VerifiedClient = {
  clientId: "lp_app_sb1",
  requireDpop: false,
  appId: "app_01",
  organizationId: 17,
  product: "ONLINE_ORDER",
  environment: "SANDBOX",
  appState: "APPROVED",
  allowedIps: [],
};
const merchant = { companyId: 900000001, region: "ae" };

function setup(env: Record<string, string> = {}) {
  const config = loadConfig(env);
  const clock = createManualClock(start);
  const keys = fakeKeys();
  const issuer = createTokenIssuer({ keys: keys.store, config, clock, ids: sequentialIds() });
  return { config, clock, keys, issuer };
}

const decode = (segment: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));

Issuer("signingKey: the store's current key, asked on every call", async () => {
  const { issuer, keys } = setup();
  assert.is(await issuer.signingKey(), key);
  assert.is(await issuer.signingKey(), key);
  assert.is(keys.asked(), 2);
});

Issuer("access token: header RS256, typ at+jwt (RFC 9068 §2.1) and the signing key's kid", () => {
  const { issuer } = setup();
  const [header] = issuer.accessToken(key, client, merchant).split(".");
  assert.equal(decode(header!), { alg: "RS256", typ: "at+jwt", kid: "kid-issuer-1" });
});

Issuer(
  "access token: exactly the spec's claims plus iss and client_id (RFC 9068 §2.2), no allowedIps without an allowlist",
  () => {
    const { issuer } = setup();
    const payload = decode(issuer.accessToken(key, client, merchant).split(".")[1]!);
    assert.equal(payload, {
      iss: "http://127.0.0.1:8080/",
      aud: "partnerapi-app",
      sub: "app_01",
      client_id: "lp_app_sb1",
      orgId: 17,
      companyId: 900000001,
      region: "ae",
      product: "ONLINE_ORDER",
      scopes: ["stores.read", "items.read", "categories.read", "orders.read", "orders.write"],
      env: "SANDBOX",
      jti: "00000000-0000-4000-8000-000000000001",
      iat: startSeconds,
      exp: startSeconds + 900,
    });
    assert.not.ok("allowedIps" in payload);
  },
);

Issuer("access token: the credential's allowlist travels as allowedIps", () => {
  const { issuer } = setup();
  const withIps = { ...client, environment: "PRODUCTION" as const, allowedIps: ["203.0.113.7", "198.51.100.0/24"] };
  const payload = decode(issuer.accessToken(key, withIps, merchant).split(".")[1]!);
  assert.equal(payload["allowedIps"], ["203.0.113.7", "198.51.100.0/24"]);
  assert.is(payload["env"], "PRODUCTION");
});

Issuer(
  "access token: iat and exp follow the manual clock and ACCESS_TOKEN_TTL_SECONDS; each token has a new jti",
  () => {
    const { issuer, clock } = setup({ ACCESS_TOKEN_TTL_SECONDS: "600" });
    const first = decode(issuer.accessToken(key, client, merchant).split(".")[1]!);
    clock.advance(61_000);
    const second = decode(issuer.accessToken(key, client, merchant).split(".")[1]!);
    assert.equal([first["iat"], first["exp"]], [startSeconds, startSeconds + 600]);
    assert.equal([second["iat"], second["exp"]], [startSeconds + 61, startSeconds + 661]);
    assert.is(first["jti"], "00000000-0000-4000-8000-000000000001");
    assert.is(second["jti"], "00000000-0000-4000-8000-000000000002");
  },
);

Issuer("access token: iss is the configured BASE_URL, the same as the metadata's issuer (RFC 8414 §3.3)", () => {
  const { issuer } = setup({ BASE_URL: "https://api.example.com" });
  assert.is(decode(issuer.accessToken(key, client, merchant).split(".")[1]!)["iss"], "https://api.example.com/");
});

Issuer("access token: verifies with the public key as an app token of this issuer", () => {
  const { issuer, clock, config } = setup();
  const verifier = createAccessTokenVerifier({
    issuer: config.urls.base,
    audience: appTokenAudience,
    clock,
    keys: (kid) => (kid === key.kid ? publicKey : undefined),
    lifetimeSeconds: config.lifetimes.accessToken,
  });
  const result = verifier.verify(issuer.accessToken(key, client, merchant));
  assert.ok(result.ok);
  assert.is(result.ok && result.claims.companyId, 900000001);
});

Issuer("commonFields: the access token, Bearer, the lifetime, the bundle joined by spaces, api_base_url", () => {
  const { issuer } = setup();
  assert.equal(issuer.commonFields("at.jwt.sig", { ...client, product: "ADSR" }), {
    accessToken: "at.jwt.sig",
    tokenType: "Bearer",
    expiresIn: 900,
    scope: "stores.read reports.read",
    apiBaseUrl: "http://127.0.0.1:8080/v1/",
  });
});

Issuer("response: the common fields plus the refresh token, its lifetime and the merchant id", () => {
  const { issuer } = setup({ REFRESH_TOKEN_TTL_SECONDS: "86400", BASE_URL: "https://api.example.com/" });
  assert.equal(issuer.response("at.jwt.sig", client, merchant, "rt_secret"), {
    accessToken: "at.jwt.sig",
    tokenType: "Bearer",
    expiresIn: 900,
    scope: "stores.read items.read categories.read orders.read orders.write",
    apiBaseUrl: "https://api.example.com/v1/",
    refreshToken: "rt_secret",
    refreshTokenExpiresIn: 86400,
    merchantId: 900000001n,
  });
});

Issuer("response on the wire: RFC 6749 §5.1 names, the spec's extra fields, merchant_id a JSON number", () => {
  const { issuer } = setup();
  const message = create(ExchangeTokenResponseSchema, issuer.response("at.jwt.sig", client, merchant, "rt_secret"));
  assert.equal(messageToJson(ExchangeTokenResponseSchema, message), {
    access_token: "at.jwt.sig",
    token_type: "Bearer",
    expires_in: 900,
    refresh_token: "rt_secret",
    refresh_token_expires_in: 8640000,
    scope: "stores.read items.read categories.read orders.read orders.write",
    merchant_id: 900000001,
    api_base_url: "http://127.0.0.1:8080/v1/",
  });
});

Issuer.run();
