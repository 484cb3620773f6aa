// DPoP proof verification (src/token/dpop-proof.ts, RFC 9449 section 4.3): a good proof gives its key's thumbprint,
// and each check refuses with its own reason: header count, JWS shape, typ, alg (none, HS256, an unknown one), the
// jwk (absent, private, not a key), the signature, the claims, htm, htu (query and fragment ignored), the iat window
// (on the manual clock), the jti replay cache (in the store, failing closed while it is down), ath, and nonces.
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import * as assert from "uvu/assert";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type CryptoKey } from "jose";
import { suite } from "../support/suite.js";
import { entryOf } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { createMemoryStore } from "../../src/storage/key-value.js";
import {
  accessTokenHash,
  createDpopVerifier,
  DpopReplayCacheUnavailable,
  dpopProofWindowSeconds,
  dpopSigningAlgorithms,
  normalizedHtu,
} from "../../src/token/dpop-proof.js";
import { createDpopNonces, dpopNoncePeriodSeconds } from "../../src/token/dpop-nonces.js";
import { flakyStore } from "../support/storage.js";
import { randomBytes } from "node:crypto";
import { createRedisStore } from "../../src/storage/key-value.js";
import { silentLogger } from "../../src/runtime/logger.js";

const Proofs = suite("token/dpop-proof");
const clock = createManualClock(Date.UTC(2026, 5, 1));
const url = "https://api.example.test/v1/orders";
let key: { privateKey: CryptoKey; publicKey: CryptoKey };
let jwk: JWK;

Proofs.before(async () => {
  key = await generateKeyPair("ES256", { extractable: true });
  jwk = await exportJWK(key.publicKey);
});

interface ProofParts {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  signer?: CryptoKey;
  alg?: string;
}

/** A proof for GET `url`, made now on the manual clock; any part may be replaced. */
async function proof(parts: ProofParts = {}): Promise<string> {
  const alg = parts.alg ?? "ES256";
  return new SignJWT({
    jti: randomUUID(),
    htm: "GET",
    htu: url,
    iat: Math.floor(clock.now() / 1000),
    ...parts.claims,
  })
    .setProtectedHeader({ alg, typ: "dpop+jwt", jwk, ...parts.header } as never)
    .sign(parts.signer ?? key.privateKey);
}

const verifier = (store = createMemoryStore({ clock })) => createDpopVerifier({ store, clock });

Proofs("a good proof is accepted and names its key's RFC 7638 thumbprint", async () => {
  const result = await verifier().verify({ proof: await proof(), method: "GET", url });
  assert.equal(result, { ok: true, jkt: await calculateJwkThumbprint(jwk, "sha256") });
});

Proofs("an RSA (PS256) and an Ed25519 proof are accepted too", async () => {
  for (const alg of ["PS256", "EdDSA"]) {
    const pair = await generateKeyPair(alg);
    const other = await exportJWK(pair.publicKey);
    const made = await proof({ alg, header: { jwk: other }, signer: pair.privateKey });
    const result = await verifier().verify({ proof: made, method: "GET", url });
    assert.equal(result, { ok: true, jkt: await calculateJwkThumbprint(other, "sha256") }, alg);
  }
});

/** A proof signed by node:crypto with `privateKey` (ES256, RS256 or EdDSA): what jose refuses to make. */
function handSigned(
  alg: string,
  publicJwk: Record<string, unknown>,
  privateKey: KeyObject,
  extra: Record<string, unknown> = {},
): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const claims = { jti: randomUUID(), htm: "GET", htu: url, iat: Math.floor(clock.now() / 1000) };
  const input = `${part({ alg, typ: "dpop+jwt", jwk: publicJwk, ...extra })}.${part(claims)}`;
  const signature =
    alg === "ES256"
      ? sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" })
      : sign(alg === "RS256" ? "sha256" : null, Buffer.from(input), privateKey);
  return `${input}.${signature.toString("base64url")}`;
}

Proofs("RS256 and ES384 proofs are accepted; the jwk's extra members do not change its thumbprint", async () => {
  for (const alg of ["RS256", "ES384"] as const) {
    const pair = await generateKeyPair(alg);
    const other = await exportJWK(pair.publicKey);
    const made = await proof({ alg, header: { jwk: { ...other, use: "sig", kid: "k1" } }, signer: pair.privateKey });
    const result = await verifier().verify({ proof: made, method: "GET", url });
    assert.equal(result, { ok: true, jkt: await calculateJwkThumbprint(other, "sha256") }, alg);
  }
});

Proofs(
  "a key that does not fit alg, an RSA key under 2048 bits, an Ed448 key, crit and b64 headers are refused",
  async () => {
    const v = verifier();
    const p384 = await generateKeyPair("ES384");
    // An ES256 proof naming a P-384 key, and an ES384 proof naming a P-256 key: the curve is alg's, or no key.
    const wrongCurve = await proof({ header: { jwk: await exportJWK(p384.publicKey) }, signer: key.privateKey });
    assert.equal(await v.verify({ proof: wrongCurve, method: "GET", url }), { ok: false, reason: "bad_key" });
    const es384 = await proof({ alg: "ES384", signer: p384.privateKey });
    assert.equal(await v.verify({ proof: es384, method: "GET", url }), { ok: false, reason: "bad_key" });
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const weak = handSigned("RS256", small.publicKey.export({ format: "jwk" }), small.privateKey);
    assert.equal(await v.verify({ proof: weak, method: "GET", url }), { ok: false, reason: "bad_key" });
    // EdDSA is Ed25519 only (as jose verified it before): an Ed448 key is refused.
    const ed448 = generateKeyPairSync("ed448");
    const made448 = handSigned("EdDSA", ed448.publicKey.export({ format: "jwk" }), ed448.privateKey);
    assert.equal(await v.verify({ proof: made448, method: "GET", url }), { ok: false, reason: "bad_key" });
    const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const p256Jwk = p256.publicKey.export({ format: "jwk" });
    assert.is((await v.verify({ proof: handSigned("ES256", p256Jwk, p256.privateKey), method: "GET", url })).ok, true);
    for (const header of [
      { crit: ["exp"], exp: 1 },
      { b64: false, crit: ["b64"] },
    ]) {
      const made = handSigned("ES256", p256Jwk, p256.privateKey, header);
      assert.equal(await v.verify({ proof: made, method: "GET", url }), { ok: false, reason: "malformed" });
    }
    // A signature of the wrong length for ES256 (DER instead of r||s) is no signature.
    const [head, body] = (await proof()).split(".");
    const der = Buffer.alloc(70, 1).toString("base64url");
    assert.equal(await v.verify({ proof: `${head}.${body}.${der}`, method: "GET", url }), {
      ok: false,
      reason: "bad_signature",
    });
  },
);

Proofs("no header, two headers, and not a JWS are refused", async () => {
  const v = verifier();
  assert.equal(await v.verify({ proof: undefined, method: "GET", url }), { ok: false, reason: "missing" });
  const two = [await proof(), await proof()];
  assert.equal(await v.verify({ proof: two, method: "GET", url }), { ok: false, reason: "multiple" });
  assert.equal(await v.verify({ proof: "a.b", method: "GET", url }), { ok: false, reason: "malformed" });
  assert.equal(await v.verify({ proof: "!!.!!.!!", method: "GET", url }), { ok: false, reason: "malformed" });
  const long = `${"a".repeat(9000)}.b.c`;
  assert.equal(await v.verify({ proof: long, method: "GET", url }), { ok: false, reason: "malformed" });
});

Proofs("typ other than dpop+jwt is refused", async () => {
  const made = await proof({ header: { typ: "JWT" } });
  assert.equal(await verifier().verify({ proof: made, method: "GET", url }), { ok: false, reason: "wrong_type" });
});

Proofs("alg none, HS256 and an algorithm not on the list are refused", async () => {
  const unsigned = (header: object) =>
    `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(
      JSON.stringify({ jti: "x", htm: "GET", htu: url, iat: Math.floor(clock.now() / 1000) }),
    ).toString("base64url")}.`;
  const none = unsigned({ alg: "none", typ: "dpop+jwt", jwk });
  assert.equal(await verifier().verify({ proof: none, method: "GET", url }), {
    ok: false,
    reason: "unsupported_algorithm",
  });
  const secret = new TextEncoder().encode("a shared secret of thirty-two bytes!");
  const hs = await proof({ alg: "HS256", signer: secret as never });
  assert.equal(await verifier().verify({ proof: hs, method: "GET", url }), {
    ok: false,
    reason: "unsupported_algorithm",
  });
  const es512 = unsigned({ alg: "ES512", typ: "dpop+jwt", jwk });
  assert.equal(await verifier().verify({ proof: `${es512}c2ln`, method: "GET", url }), {
    ok: false,
    reason: "unsupported_algorithm",
  });
});

Proofs("a missing jwk, a private jwk and a jwk that is not a key are refused", async () => {
  const v = verifier();
  const check = async (header: Record<string, unknown>, reason: string) =>
    assert.equal(await v.verify({ proof: await proof({ header }), method: "GET", url }), { ok: false, reason });
  await check({ jwk: undefined }, "bad_key");
  const privateJwk = await exportJWK(key.privateKey);
  await check({ jwk: privateJwk }, "private_key");
  await check({ jwk: { kty: "EC", crv: "P-256", x: "AAAA", y: "AAAA" } }, "bad_key");
  await check({ jwk: { kty: "oct", k: "c2VjcmV0" } }, "private_key");
});

Proofs("a proof signed by another key than its jwk is refused", async () => {
  const other = await generateKeyPair("ES256");
  const made = await proof({ signer: other.privateKey });
  assert.equal(await verifier().verify({ proof: made, method: "GET", url }), { ok: false, reason: "bad_signature" });
});

Proofs("missing or mistyped claims are refused", async () => {
  const v = verifier();
  for (const claims of [{ jti: undefined }, { jti: "" }, { htm: 1 }, { htu: undefined }, { iat: "now" }]) {
    const made = await proof({ claims });
    assert.equal(await v.verify({ proof: made, method: "GET", url }), { ok: false, reason: "bad_claims" });
  }
});

Proofs("htm must be the request's method", async () => {
  const made = await proof({ claims: { htm: "POST" } });
  assert.equal(await verifier().verify({ proof: made, method: "GET", url }), { ok: false, reason: "wrong_method" });
});

Proofs("htu must be the request's URL; its query and fragment are ignored, its host case too", async () => {
  const v = verifier();
  const other = await proof({ claims: { htu: "https://api.example.test/v1/items" } });
  assert.equal(await v.verify({ proof: other, method: "GET", url }), { ok: false, reason: "wrong_url" });
  const otherHost = await proof({ claims: { htu: "https://evil.example.test/v1/orders" } });
  assert.equal(await v.verify({ proof: otherHost, method: "GET", url }), { ok: false, reason: "wrong_url" });
  const notUrl = await proof({ claims: { htu: "/v1/orders" } });
  assert.equal(await v.verify({ proof: notUrl, method: "GET", url }), { ok: false, reason: "wrong_url" });
  const withQuery = await proof({ claims: { htu: "https://API.example.test:443/v1/orders?x=1#f" } });
  assert.equal((await v.verify({ proof: withQuery, method: "GET", url: `${url}?companyId=5` })).ok, true);
  assert.is(normalizedHtu("ftp://example.test/x"), undefined);
});

Proofs("iat older than the window or ahead of the leeway is refused; inside both it is accepted", async () => {
  const v = verifier();
  const now = Math.floor(clock.now() / 1000);
  const old = await proof({ claims: { iat: now - dpopProofWindowSeconds - 1 } });
  assert.equal(await v.verify({ proof: old, method: "GET", url }), { ok: false, reason: "too_old" });
  const ahead = await proof({ claims: { iat: now + 6 } });
  assert.equal(await v.verify({ proof: ahead, method: "GET", url }), { ok: false, reason: "from_the_future" });
  const edge = await proof({ claims: { iat: now - dpopProofWindowSeconds + 1 } });
  assert.equal((await v.verify({ proof: edge, method: "GET", url })).ok, true);
  const made = await proof();
  clock.advance((dpopProofWindowSeconds + 1) * 1000);
  assert.equal(await v.verify({ proof: made, method: "GET", url }), { ok: false, reason: "too_old" });
});

Proofs("a proof used once is refused the second time, also with its jti in another proof of the key", async () => {
  const v = verifier();
  const made = await proof();
  assert.equal((await v.verify({ proof: made, method: "GET", url })).ok, true);
  assert.equal(await v.verify({ proof: made, method: "GET", url }), { ok: false, reason: "replayed" });
  const jti = randomUUID();
  assert.equal((await v.verify({ proof: await proof({ claims: { jti } }), method: "GET", url })).ok, true);
  const again = await proof({ claims: { jti, htm: "GET" } });
  assert.equal(await v.verify({ proof: again, method: "GET", url }), { ok: false, reason: "replayed" });
});

Proofs("a refused proof does not use up its jti", async () => {
  const v = verifier();
  const jti = randomUUID();
  const wrong = await proof({ claims: { jti, htm: "POST" } });
  assert.equal((await v.verify({ proof: wrong, method: "GET", url })).ok, false);
  assert.equal((await v.verify({ proof: await proof({ claims: { jti } }), method: "GET", url })).ok, true);
});

Proofs("the replay cache down: the proof is not admitted, the store's failure is raised (fail closed)", async () => {
  const { store, state } = flakyStore(clock);
  state.down = true;
  const made = await proof();
  try {
    await verifier(store).verify({ proof: made, method: "GET", url });
    assert.unreachable("admitted without the replay cache");
  } catch (error) {
    assert.instance(error, DpopReplayCacheUnavailable);
  }
});

Proofs("ath must be the hash of the access token on a resource call", async () => {
  const v = verifier();
  const token = "header.payload.signature";
  const missing = await proof();
  assert.equal(await v.verify({ proof: missing, method: "GET", url, accessToken: token }), {
    ok: false,
    reason: "wrong_token_hash",
  });
  const wrong = await proof({ claims: { ath: accessTokenHash("another.token.value") } });
  assert.equal(await v.verify({ proof: wrong, method: "GET", url, accessToken: token }), {
    ok: false,
    reason: "wrong_token_hash",
  });
  const right = await proof({ claims: { ath: accessTokenHash(token) } });
  assert.equal((await v.verify({ proof: right, method: "GET", url, accessToken: token })).ok, true);
  // RFC 9449 section 4.2's example: ath of the token is base64url(SHA-256(token)).
  assert.is(
    accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
    "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo",
  );
});

Proofs(
  "with nonces on: no nonce, a made-up one and an expired one are refused; a current one is accepted",
  async () => {
    const nonces = createDpopNonces({ key: Buffer.alloc(32, 7), clock });
    const v = createDpopVerifier({ store: createMemoryStore({ clock }), clock, nonces });
    const check = async (nonce: unknown) => v.verify({ proof: await proof({ claims: { nonce } }), method: "GET", url });
    assert.equal(await check(undefined), { ok: false, reason: "nonce_required" });
    assert.equal(await check("made-up"), { ok: false, reason: "nonce_required" });
    const handedOut = nonces.current();
    assert.equal((await check(handedOut)).ok, true);
    clock.advance(dpopNoncePeriodSeconds * 1000);
    assert.equal((await check(handedOut)).ok, true, "still accepted in the next period");
    clock.advance(dpopNoncePeriodSeconds * 1000);
    assert.equal(await check(handedOut), { ok: false, reason: "nonce_required" });
    assert.equal((await check(nonces.current())).ok, true);
  },
);

const redisUrl = process.env["TEST_REDIS_URL"];

Proofs(
  "two fronts on one Redis (two connections, one prefix): a proof accepted at one is refused at the other, and of 10 parallel uses across both exactly one is accepted",
  async () => {
    const prefix = `pa_test_dpop_${randomBytes(6).toString("hex")}:`;
    const open = () => createRedisStore({ url: redisUrl!, logger: silentLogger, prefix, clock });
    const [storeA, storeB] = [await open(), await open()];
    try {
      const [frontA, frontB] = [verifier(storeA), verifier(storeB)];
      const made = await proof();
      assert.equal((await frontA.verify({ proof: made, method: "GET", url })).ok, true);
      assert.equal(await frontB.verify({ proof: made, method: "GET", url }), { ok: false, reason: "replayed" });
      const parallel = await proof();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? frontA : frontB).verify({ proof: parallel, method: "GET", url }),
        ),
      );
      assert.is(results.filter((result) => result.ok).length, 1);
    } finally {
      await Promise.all([storeA.close(), storeB.close()]);
    }
  },
  { skip: redisUrl ? false : "TEST_REDIS_URL is not set" },
);

Proofs("the WWW-Authenticate algs of the partner codes are the algorithms accepted", () => {
  const listed = `algs="${dpopSigningAlgorithms.join(" ")}"`;
  for (const code of ["partner.dpop_proof_invalid", "partner.dpop_nonce_required", "partner.dpop_bound_token"] as const)
    assert.ok(entryOf(code).headers?.["WWW-Authenticate"]?.includes(listed), code);
});

Proofs.run();
