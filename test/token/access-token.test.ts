// Access tokens: what is signed verifies, and each way a token can be wrong is refused with its reason.
import { generateKeyPairSync } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import {
  appTokenAudience,
  createAccessTokenVerifier,
  merchantUserAudience,
  signAccessToken,
  signJwt,
  type AccessTokenClaims,
} from "../../src/token/access-token.js";

const AccessToken = suite("token/access-token");
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
const clock = createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
const now = Math.floor(clock.now() / 1000);
const issuer = "http://127.0.0.1:8080/";
const key = { kid: "k1", privateKey };
const verifier = createAccessTokenVerifier({
  issuer,
  audience: appTokenAudience,
  clock,
  keys: (kid) => (kid === "k1" ? publicKey : undefined),
});

const claims: AccessTokenClaims = {
  iss: issuer,
  aud: appTokenAudience,
  sub: "app_1",
  client_id: "lp_app_sb1",
  orgId: 1,
  companyId: 900000001,
  region: "uk",
  product: "FULL",
  scopes: ["items.read"],
  env: "SANDBOX",
  jti: "j1",
  iat: now,
  exp: now + 900,
};

AccessToken("a signed token verifies and carries its claims; the header says RS256, at+jwt and the kid", () => {
  const token = signAccessToken(key, claims);
  const header = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString());
  assert.equal(header, { alg: "RS256", typ: "at+jwt", kid: "k1" });
  assert.equal(verifier.verify(token), { ok: true, claims });
});

AccessToken("refusals: expiry, audience, issuer, unknown key, forged signature, alg none, malformed", () => {
  const reason = (token: string) => {
    const result = verifier.verify(token);
    return result.ok ? "ok" : result.reason;
  };
  clock.advance(905_000);
  assert.is(reason(signAccessToken(key, claims)), "expired");
  clock.advance(-905_000);
  assert.is(reason(signAccessToken(key, { ...claims, aud: merchantUserAudience })), "wrong_audience");
  assert.is(reason(signAccessToken(key, { ...claims, iss: "https://elsewhere/" })), "wrong_issuer");
  assert.is(reason(signAccessToken({ kid: "k9", privateKey }, claims)), "unknown_key");
  assert.is(reason(signAccessToken({ kid: "k1", privateKey: other.privateKey }, claims)), "bad_signature");
  const [, payload] = signAccessToken(key, claims).split(".");
  const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt", kid: "k1" })).toString("base64url")}.${payload}.`;
  assert.is(reason(none), "malformed");
  assert.is(reason("abc"), "malformed");
  // Signed by our key, yet a claim of the wrong type (what a token minted by a faulty issuer would carry).
  assert.is(reason(signJwt(key, { ...claims, companyId: "1" })), "bad_claims");
});

AccessToken.run();
