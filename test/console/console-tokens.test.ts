// src/console/console-tokens.ts: console session tokens are RS256 at+jwt with audience partnerapi-console; the
// verifier checks signature, audience, issuer, the claim types and expiry (on a manual clock), and refuses a
// partner app token (audience partnerapi-app, RFC 9068 §4: the audience must be this resource's).
import { generateKeyPairSync } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  consoleTokenAudience,
  signConsoleToken,
  verifyConsoleToken,
  type ConsoleClaims,
} from "../../src/console/console-tokens.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { appTokenAudience, signAccessToken, signJwt, type AccessTokenClaims } from "../../src/token/access-token.js";

const ConsoleTokens = suite("console/console-tokens");

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
const key = { kid: "console-k1", privateKey };
const keys = (kid: string) => (kid === "console-k1" ? publicKey : undefined);
const issuer = "http://127.0.0.1:8080/";
const start = Date.UTC(2026, 2, 10, 9, 30, 0);
const iat = start / 1000;

const claims: ConsoleClaims = {
  iss: issuer,
  aud: consoleTokenAudience,
  sub: "42",
  sid: "family-7",
  jti: "jti-1",
  iat,
  exp: iat + 900,
};

const decode = (segment: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));

ConsoleTokens("the audience is partnerapi-console, distinct from the app tokens' partnerapi-app", () => {
  assert.is(consoleTokenAudience, "partnerapi-console");
  assert.is.not(consoleTokenAudience, appTokenAudience);
});

ConsoleTokens("a signed token is a three-part JWT: header RS256 / at+jwt / kid, payload exactly the claims", () => {
  const token = signConsoleToken(key, claims);
  const [header, payload, signature] = token.split(".");
  assert.equal(decode(header!), { alg: "RS256", typ: "at+jwt", kid: "console-k1" });
  assert.equal(decode(payload!), { ...claims });
  assert.is(Buffer.from(signature!, "base64url").length, 256, "an RSA-2048 signature");
});

ConsoleTokens("a valid token verifies to its claims", () => {
  const clock = createManualClock(start);
  assert.equal(verifyConsoleToken(signConsoleToken(key, claims), { issuer, keys, clock }), claims);
});

ConsoleTokens("expiry on the manual clock: valid one second before exp, refused at exp and after (no leeway)", () => {
  const clock = createManualClock(start);
  const token = signConsoleToken(key, claims);
  clock.advance(899_999);
  assert.equal(verifyConsoleToken(token, { issuer, keys, clock }), claims);
  clock.set((claims.exp - 1) * 1000 + 999);
  assert.ok(verifyConsoleToken(token, { issuer, keys, clock }));
  clock.set(claims.exp * 1000);
  assert.is(verifyConsoleToken(token, { issuer, keys, clock }), undefined);
  clock.advance(3_600_000);
  assert.is(verifyConsoleToken(token, { issuer, keys, clock }), undefined);
});

ConsoleTokens(
  "a validly signed token whose claims miss one or carry the wrong type is refused: the verified claims are what ConsoleClaims says",
  () => {
    const clock = createManualClock(start);
    const { jti: _jti, ...withoutJti } = claims;
    const { sid: _sid, ...withoutSid } = claims;
    for (const bad of [
      withoutJti,
      withoutSid,
      { ...claims, jti: 7 },
      { ...claims, sub: 42 },
      { ...claims, iat: String(iat) },
      { ...claims, exp: claims.exp + 0.5 },
    ]) {
      assert.is(verifyConsoleToken(signJwt(key, bad), { issuer, keys, clock }), undefined, JSON.stringify(bad));
    }
    assert.equal(
      verifyConsoleToken(signJwt(key, { ...claims, extra: "x" }), { issuer, keys, clock }),
      claims,
      "an unknown claim is not carried along",
    );
  },
);

ConsoleTokens("a partner app token (aud partnerapi-app), validly signed by the same key, is refused", () => {
  const clock = createManualClock(start);
  const app: AccessTokenClaims = {
    iss: issuer,
    aud: appTokenAudience,
    sub: "42",
    client_id: "lp_app_sb1",
    orgId: 1,
    companyId: 900000001,
    region: "uk",
    product: "FULL",
    scopes: ["items.read"],
    env: "SANDBOX",
    jti: "j",
    iat,
    exp: iat + 900,
  };
  assert.is(verifyConsoleToken(signAccessToken(key, app), { issuer, keys, clock }), undefined);
  // The same claims with the console audience would pass: it is the audience that refuses it.
  assert.ok(
    verifyConsoleToken(signConsoleToken(key, { ...claims, aud: consoleTokenAudience }), { issuer, keys, clock }),
  );
  assert.is(
    verifyConsoleToken(signConsoleToken(key, { ...claims, aud: appTokenAudience }), { issuer, keys, clock }),
    undefined,
  );
});

ConsoleTokens("another issuer is refused", () => {
  const clock = createManualClock(start);
  const token = signConsoleToken(key, { ...claims, iss: "http://evil.example/" });
  assert.is(verifyConsoleToken(token, { issuer, keys, clock }), undefined);
  assert.is(
    verifyConsoleToken(signConsoleToken(key, claims), { issuer: "https://api.example/", keys, clock }),
    undefined,
  );
});

ConsoleTokens("an unknown kid, another key's signature or an altered payload is refused", () => {
  const clock = createManualClock(start);
  assert.is(
    verifyConsoleToken(signConsoleToken({ kid: "nope", privateKey }, claims), { issuer, keys, clock }),
    undefined,
  );
  assert.is(
    verifyConsoleToken(signConsoleToken({ kid: "console-k1", privateKey: other.privateKey }, claims), {
      issuer,
      keys,
      clock,
    }),
    undefined,
  );
  const [header, , signature] = signConsoleToken(key, claims).split(".");
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: "43" })).toString("base64url");
  assert.is(verifyConsoleToken(`${header}.${forged}.${signature}`, { issuer, keys, clock }), undefined);
});

ConsoleTokens("malformed tokens are refused, not thrown on", () => {
  const clock = createManualClock(start);
  for (const token of ["", "a.b", "a.b.c", "x.y.z.w", signConsoleToken(key, claims) + "."]) {
    assert.is(verifyConsoleToken(token, { issuer, keys, clock }), undefined, token);
  }
});

ConsoleTokens(
  "claims of the wrong shape are refused: sub not a decimal account id, sid missing, iat/exp not integers",
  () => {
    const clock = createManualClock(start);
    const verify = (changed: Record<string, unknown>) =>
      verifyConsoleToken(signConsoleToken(key, { ...claims, ...changed }), { issuer, keys, clock });
    for (const sub of ["0", "042", "abc", "-1", "1".repeat(17), 42])
      assert.is(verify({ sub }), undefined, `sub ${JSON.stringify(sub)}`);
    assert.ok(verify({ sub: "1" }));
    assert.ok(verify({ sub: "9".repeat(16) }));
    assert.is(verify({ sid: undefined }), undefined);
    assert.is(verify({ sid: 7 }), undefined);
    assert.is(verify({ exp: claims.exp + 0.5 }), undefined);
    assert.is(verify({ exp: String(claims.exp) }), undefined);
    assert.is(verify({ iat: undefined }), undefined);
  },
);

ConsoleTokens.run();
