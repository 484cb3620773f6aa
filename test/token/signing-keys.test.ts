// Signing keys: the first key signs at once; a rotation publishes the new key before it signs and keeps the old one
// published until every token it signed has expired and every cached JWKS was refreshed; the key ring follows;
// private parts are sealed under the KEK (the KEK itself: test/token/key-encryption.test.ts). Time moves on a
// manual clock.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import {
  appTokenAudience,
  createAccessTokenVerifier,
  signAccessToken,
  type AccessTokenClaims,
} from "../../src/token/access-token.js";
import { createKeyRing } from "../../src/token/key-ring.js";
import { createHash, createPublicKey } from "node:crypto";
import {
  createSigningKeyStore,
  jwksCacheSeconds,
  publicJwkOf,
  signingKeyTiming,
} from "../../src/token/signing-keys.js";
import { useTestDatabase } from "../support/storage.js";

const Keys = suite("token/signing-keys");
const database = useTestDatabase(Keys);
const kek = Buffer.alloc(32, 7);
const second = 1000;

/** Every test runs on its own clock far in the future, so keys made by other tests never sign or retire here. */
let era = 0;
function freshClock() {
  return createManualClock(Date.UTC(2100 + ++era * 3, 0, 1) + Math.floor(Math.random() * 1e6) * second);
}

Keys("the JWKS cache lifetime comes from GetJwks' Cache-Control; timing is publish +330 s, retire +1230 s", () => {
  assert.is(jwksCacheSeconds, 300);
  assert.equal(signingKeyTiming(900), { publishAheadSeconds: 330, retireAfterSeconds: 1230 });
});

Keys("rotation: published before it signs, old key signs until then, stays published until retire_at", async () => {
  const clock = freshClock();
  const store = createSigningKeyStore({
    sql: database().sql,
    kek,
    clock,
    logger: silentLogger,
    accessTokenTtlSeconds: 900,
  });
  // Other tests' keys live in other eras; purge what is ours by asking only at our clock's times.
  await store.ensure();
  const first = await store.signingKey();
  const jwksBefore = (await store.published()).map((key) => key.kid);
  assert.ok(jwksBefore.includes(first.kid));

  const rotation = await store.rotate();
  assert.is(rotation.previousKid, first.kid);
  assert.is(rotation.signFrom.getTime() - rotation.publishAt.getTime(), 330 * second);
  assert.is(rotation.previousRetireAt!.getTime() - rotation.signFrom.getTime(), 1230 * second);
  // A second rotation while one is pending returns the pending one.
  assert.is((await store.rotate()).kid, rotation.kid);

  const published = async () => (await store.published()).map((key) => key.kid);
  // Published at once, both keys in the JWKS, the old one still signs.
  assert.ok((await published()).includes(rotation.kid));
  assert.ok((await published()).includes(first.kid));
  clock.advance(330 * second - 1);
  assert.is((await store.signingKey()).kid, first.kid);
  clock.advance(1);
  assert.is((await store.signingKey()).kid, rotation.kid);
  // The old key stays published until retire_at, then leaves.
  clock.advance(1230 * second - 1);
  assert.ok((await published()).includes(first.kid));
  clock.advance(1);
  assert.not.ok((await published()).includes(first.kid));
  assert.ok((await published()).includes(rotation.kid));
});

Keys(
  "the key ring finds the keys by kid, re-reads on an unknown kid at most once a second, and verifies tokens",
  async () => {
    const clock = freshClock();
    const { sql } = database();
    const store = createSigningKeyStore({ sql, kek, clock, logger: silentLogger, accessTokenTtlSeconds: 900 });
    await store.ensure();
    const ring = createKeyRing({ sql, clock, logger: silentLogger });
    await ring.refresh();
    const key = await store.signingKey();
    assert.ok(ring.publicKey(key.kid));
    let reads = 0;
    const counting = createKeyRing({
      sql: new Proxy(sql, {
        apply(target, self, args) {
          reads++;
          return Reflect.apply(target, self, args);
        },
      }),
      clock,
      logger: silentLogger,
    });
    await counting.refresh();
    const before = reads;
    for (let i = 0; i < 50; i++) assert.is(counting.publicKey("nope"), undefined);
    assert.is(await counting.lookup("nope"), undefined);
    assert.is(reads - before, 1, "fifty-one unknown kids in one second: one re-read");
    clock.advance(second);
    assert.is(await counting.lookup("nope"), undefined);
    assert.is(reads - before, 2);

    // A rotation made elsewhere is learnt on the unknown kid, and its tokens verify.
    const rotation = await store.rotate();
    clock.advance(330 * second);
    const signer = await store.signingKey();
    assert.is(signer.kid, rotation.kid);
    const now = Math.floor(clock.now() / 1000);
    const claims: AccessTokenClaims = {
      iss: "http://issuer/",
      aud: appTokenAudience,
      sub: "app",
      client_id: "lp_app_sbx",
      orgId: 1,
      companyId: 2,
      region: "uk",
      product: "FULL",
      scopes: ["items.read"],
      env: "SANDBOX",
      jti: "j",
      iat: now,
      exp: now + 900,
    };
    const verifier = createAccessTokenVerifier({
      issuer: "http://issuer/",
      audience: appTokenAudience,
      clock,
      keys: (kid) => ring.publicKey(kid),
      lifetimeSeconds: 900,
    });
    const token = signAccessToken(signer, claims);
    assert.ok(await ring.lookup(rotation.kid));
    assert.equal(verifier.verify(token), { ok: true, claims });
  },
);

Keys(
  "private parts are sealed under the KEK: another KEK cannot read them, and a restart with the same KEK can",
  async () => {
    const clock = freshClock();
    const { sql } = database();
    const store = createSigningKeyStore({ sql, kek, clock, logger: silentLogger, accessTokenTtlSeconds: 900 });
    await store.ensure();
    const { kid } = await store.signingKey();
    const [row] = await sql<
      { private_key_encrypted: Uint8Array }[]
    >`select private_key_encrypted from control.signing_keys where kid = ${kid}`;
    assert.not.ok(Buffer.from(row!.private_key_encrypted).includes(Buffer.from("BEGIN")), "no PEM in the column");
    const again = createSigningKeyStore({ sql, kek, clock, logger: silentLogger, accessTokenTtlSeconds: 900 });
    assert.is((await again.signingKey()).kid, kid);
    const wrong = createSigningKeyStore({
      sql,
      kek: Buffer.alloc(32, 9),
      clock,
      logger: silentLogger,
      accessTokenTtlSeconds: 900,
    });
    try {
      await wrong.signingKey();
      assert.unreachable("a different KEK must not open the key");
    } catch (error) {
      assert.match((error as Error).message, "TOKEN_KEY_ENCRYPTION_KEY differs");
    }
  },
);

Keys(
  "a key's JWK and kid: RS256 for signing, the kid its RFC 7638 thumbprint (the RFC's own example key)",
  async () => {
    // RFC 7638 section 3.1: this key's SHA-256 thumbprint is NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs.
    const n =
      "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBX" +
      "Arwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0f" +
      "M4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw";
    const jwk = await publicJwkOf(createPublicKey({ key: { kty: "RSA", n, e: "AQAB" }, format: "jwk" }));
    assert.equal(jwk, {
      kty: "RSA",
      kid: "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs",
      use: "sig",
      alg: "RS256",
      n,
      e: "AQAB",
    });

    // A key the store makes: its published kid is the thumbprint of its published n and e, in RFC 7638's member order.
    const store = createSigningKeyStore({
      sql: database().sql,
      kek,
      clock: freshClock(),
      logger: silentLogger,
      accessTokenTtlSeconds: 900,
    });
    await store.ensure();
    const { kid } = await store.signingKey();
    const published = (await store.published()).find((key) => key.kid === kid)!;
    const canonical = JSON.stringify({ e: published.e, kty: "RSA", n: published.n });
    assert.is(kid, createHash("sha256").update(canonical).digest("base64url"));
  },
);

Keys.run();
