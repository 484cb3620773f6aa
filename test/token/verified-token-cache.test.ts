// Signing off the event loop and the verifier's cache of verified tokens: an asynchronously signed token is the
// synchronous one (RS256 is deterministic); a token's signature is checked once, not on each call; the cache never
// serves a token past its exp, nor one whose key left the ring, and it stays within its bound.
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import {
  appTokenAudience,
  createAccessTokenVerifier,
  signAccessToken,
  signAccessTokenAsync,
  type AccessTokenClaims,
} from "../../src/token/access-token.js";

const Cache = suite("token/verified-token-cache");
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
const issuer = "http://127.0.0.1:8080/";
const key = { kid: "k1", privateKey };

function setup(cacheEntries?: number) {
  const clock = createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
  const now = Math.floor(clock.now() / 1000);
  // What the ring answers for k1: swapped for another key to show which calls check the signature again.
  const ring: { k1: KeyObject | undefined } = { k1: publicKey };
  const verifier = createAccessTokenVerifier({
    issuer,
    audience: appTokenAudience,
    clock,
    keys: (kid) => (kid === "k1" ? ring.k1 : undefined),
    lifetimeSeconds: 900,
    ...(cacheEntries === undefined ? {} : { cacheEntries }),
  });
  const claims = (jti: string, ttl = 900): AccessTokenClaims => ({
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
    jti,
    iat: now,
    exp: now + ttl,
  });
  return { clock, ring, verifier, claims };
}

const reason = (result: ReturnType<ReturnType<typeof createAccessTokenVerifier>["verify"]>) =>
  result.ok ? "ok" : result.reason;

Cache(
  "a token signed on the thread pool is byte for byte the one signed on the calling thread, and verifies",
  async () => {
    const { verifier, claims } = setup();
    const token = await signAccessTokenAsync(key, claims("j-async"));
    assert.is(token, signAccessToken(key, claims("j-async")));
    assert.equal(verifier.verify(token), { ok: true, claims: claims("j-async") });
  },
);

Cache("a failed signature rejects the promise (a key that cannot sign RS256)", async () => {
  const { claims } = setup();
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const failed = await signAccessTokenAsync({ kid: "k1", privateKey: ec.publicKey }, claims("j")).then(
    () => "signed",
    (error: unknown) => (error instanceof Error ? "rejected" : "other"),
  );
  assert.is(failed, "rejected");
});

Cache("a verified token's signature is checked once: its later calls pass on the cached verification", () => {
  const { ring, verifier, claims } = setup();
  const seen = signAccessToken(key, claims("j-seen"));
  const unseen = signAccessToken(key, claims("j-unseen"));
  assert.is(reason(verifier.verify(seen)), "ok");
  // The ring now holds another key under k1: a signature checked now fails; the cached token needs no check.
  ring.k1 = other.publicKey;
  assert.equal(verifier.verify(seen), { ok: true, claims: claims("j-seen") });
  assert.is(reason(verifier.verify(unseen)), "bad_signature");
});

Cache("a cached token is refused past its exp (and the leeway), as an uncached one", () => {
  const { clock, verifier, claims } = setup();
  const token = signAccessToken(key, claims("j-short", 60));
  assert.is(reason(verifier.verify(token)), "ok");
  clock.advance(64_000);
  assert.is(reason(verifier.verify(token)), "ok", "inside the 5 s leeway");
  clock.advance(2_000);
  assert.is(reason(verifier.verify(token)), "expired");
  assert.is(reason(verifier.verify(token)), "expired", "and stays refused");
});

Cache("a cached token whose key left the ring is verified again, and refused", () => {
  const { ring, verifier, claims } = setup();
  const token = signAccessToken(key, claims("j-gone"));
  assert.is(reason(verifier.verify(token)), "ok");
  ring.k1 = undefined;
  assert.is(reason(verifier.verify(token)), "unknown_key");
});

Cache("refusals are not cached, and the cache keeps at most its bound (least recently used out first)", () => {
  const { ring, verifier, claims } = setup(2);
  const [a, b, c] = ["j-a", "j-b", "j-c"].map((jti) => signAccessToken(key, claims(jti)));
  const tampered = a!.slice(0, -2) + (a!.endsWith("AA") ? "BB" : "AA");
  assert.is(reason(verifier.verify(tampered)), "bad_signature");
  assert.is(reason(verifier.verify(tampered)), "bad_signature");
  for (const token of [a, b]) assert.is(reason(verifier.verify(token!)), "ok");
  assert.is(reason(verifier.verify(a!)), "ok"); // a is now the most recently used: b goes first
  assert.is(reason(verifier.verify(c!)), "ok");
  ring.k1 = other.publicKey;
  assert.is(reason(verifier.verify(a!)), "ok", "kept");
  assert.is(reason(verifier.verify(c!)), "ok", "kept");
  assert.is(reason(verifier.verify(b!)), "bad_signature", "pushed out: its signature is checked again");
});

Cache("cacheEntries 0 turns the cache off: every call checks the signature", () => {
  const { ring, verifier, claims } = setup(0);
  const token = signAccessToken(key, claims("j-off"));
  assert.is(reason(verifier.verify(token)), "ok");
  ring.k1 = other.publicKey;
  assert.is(reason(verifier.verify(token)), "bad_signature");
});

Cache.run();
