// Access tokens: what is signed verifies, and each way a token can be wrong is refused with its reason.
import { generateKeyPairSync, sign } from "node:crypto";
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
  lifetimeSeconds: 900,
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

const reasonOf = (token: string) => {
  const result = verifier.verify(token);
  return result.ok ? "ok" : result.reason;
};
const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** Signs `header.payload` exactly as spelled, with the real key: what a holder of the signing key could mint. */
const signedAs = (headerPart: string, payloadPart: string) =>
  `${headerPart}.${payloadPart}.${sign("sha256", Buffer.from(`${headerPart}.${payloadPart}`), privateKey).toString("base64url")}`;
const header = { alg: "RS256", typ: "at+jwt", kid: "k1" };
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

AccessToken(
  "with the key: an unknown `crit` and `b64: false` are refused (RFC 7515 4.1.11, RFC 7797 section 6)",
  () => {
    assert.is(reasonOf(signedAs(part(header), part(claims))), "ok", "the same signing, unchanged, verifies");
    assert.is(reasonOf(signedAs(part({ ...header, crit: ["exp"] }), part(claims))), "unsupported_header");
    assert.is(reasonOf(signedAs(part({ ...header, crit: ["urn:x"], "urn:x": 1 }), part(claims))), "unsupported_header");
    assert.is(reasonOf(signedAs(part({ ...header, b64: false, crit: ["b64"] }), part(claims))), "unsupported_header");
    assert.is(reasonOf(signedAs(part({ ...header, b64: false }), part(claims))), "unsupported_header");
    assert.is(reasonOf(signedAs(part({ ...header, b64: true }), part(claims))), "unsupported_header");
  },
);

AccessToken("with the key: a future `nbf` beyond the 5 s leeway and a lifetime beyond 900 s + 5 s are refused", () => {
  assert.is(reasonOf(signAccessToken(key, { ...claims, nbf: now + 5 })), "ok", "within leeway");
  assert.is(reasonOf(signAccessToken(key, { ...claims, nbf: now + 6 })), "not_yet_valid");
  assert.is(reasonOf(signJwt(key, { ...claims, nbf: "soon" })), "bad_claims");
  assert.is(reasonOf(signAccessToken(key, { ...claims, exp: now + 905 })), "ok", "lifetime plus leeway");
  assert.is(reasonOf(signAccessToken(key, { ...claims, exp: now + 906 })), "too_long_lived");
  const tenYears = 10 * 365 * 86_400;
  assert.is(reasonOf(signAccessToken(key, { ...claims, exp: now + tenYears })), "too_long_lived");
  // An `iat` pushed back to hide the long lifetime makes the token expire no later than lifetime + leeway from it.
  assert.is(reasonOf(signAccessToken(key, { ...claims, iat: now - tenYears, exp: now + 900 })), "too_long_lived");
  assert.is(reasonOf(signAccessToken(key, { ...claims, iat: now + 6, exp: now + 906 })), "bad_claims", "iat ahead");
  // The time checks run on a cached token too: it verified once, then the clock goes back 10 s, before its nbf.
  const cached = signAccessToken(key, { ...claims, jti: "j-nbf", iat: now - 10, nbf: now - 3, exp: now + 800 });
  assert.is(reasonOf(cached), "ok");
  clock.advance(-10_000);
  assert.is(reasonOf(cached), "not_yet_valid");
  clock.advance(10_000);
});

AccessToken("without the key: any non-canonical base64url in any part is refused (RFC 7515 section 2)", () => {
  const token = signAccessToken(key, { ...claims, jti: "j-canonical" });
  const [h, p, s] = token.split(".") as [string, string, string];
  assert.is(reasonOf(token), "ok");
  assert.is(s.length % 4, 2, "an RSA-2048 signature is 342 characters: two bits of its last one are padding");
  const variants: Record<string, string> = {
    "padded signature": `${h}.${p}.${s}==`,
    "one = on the signature": `${h}.${p}.${s}=`,
    "leading space": `${h}.${p}. ${s}`,
    "trailing space": `${h}.${p}.${s} `,
    "newline inside": `${h}.${p}.${s.slice(0, 100)}\n${s.slice(100)}`,
    "+ for -, / for _": `${h}.${p}.${s.replaceAll("-", "+").replaceAll("_", "/")}`,
    "a character outside the alphabet": `${h}.${p}.${s.slice(0, -1)}!`,
    // The same 256 bytes decoded (Buffer ignores the unused bits), spelled another way.
    "non-zero unused bits": `${h}.${p}.${s.slice(0, -1)}${alphabet[alphabet.indexOf(s.at(-1)!) | 1]}`,
    "a length no encoding has": `${h}.${p}.${s}AAA`,
  };
  for (const [what, variant] of Object.entries(variants)) {
    if (what === "+ for -, / for _" && !/[-_]/.test(s)) continue;
    assert.is(reasonOf(variant), "malformed", what);
  }
  // With the key, padding or whitespace in the signed parts: the signature is valid over the text as spelled.
  assert.is(reasonOf(signedAs(`${part(header)}==`, part(claims))), "malformed", "padded header");
  assert.is(reasonOf(signedAs(part(header), ` ${part(claims)}`)), "malformed", "payload with a space");
});

AccessToken.run();
