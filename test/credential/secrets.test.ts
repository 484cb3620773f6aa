// src/credential/secrets.ts: the formats of client ids, client secrets and API keys (spec, "Credentials": the prefix
// selects the environment), how they are made from 256 random bits, parsed, hashed with SHA-256 and compared.
import { createHash } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  clientIdEnvironment,
  clientSecretEnvironment,
  hashesEqual,
  hashSecret,
  lookupLength,
  newApiKey,
  newClientId,
  newClientSecret,
  newPassword,
  parseApiKey,
  prefixes,
  secretBytes,
} from "../../src/credential/secrets.js";
import { cryptoIds, type IdSource } from "../../src/runtime/ids.js";

const Secrets = suite("credential/secrets");

/** Ids whose random tokens are predictable: each call answers the next letter, repeated to the base64url length. */
function fixedIds(): IdSource & { sizes: number[] } {
  const sizes: number[] = [];
  let next = 0;
  return {
    sizes,
    uuid: () => "00000000-0000-4000-8000-000000000000",
    randomToken: (bytes) => {
      sizes.push(bytes);
      const letter = "ABCDEFGH"[next++]!;
      return letter.repeat(Math.ceil((bytes * 8) / 6));
    },
  };
}

Secrets("formats: prefixes select the environment; secrets carry 256 random bits; keys parse back", () => {
  assert.is(clientIdEnvironment(newClientId(cryptoIds, "SANDBOX")), "SANDBOX");
  assert.is(clientIdEnvironment(newClientId(cryptoIds, "PRODUCTION")), "PRODUCTION");
  assert.is(clientIdEnvironment("lp_app_xx123"), undefined);
  const secret = newClientSecret(cryptoIds, "PRODUCTION");
  assert.match(secret, /^lp_sk_pk_[A-Za-z0-9_-]{43}$/);
  assert.is(Buffer.from(secret.slice("lp_sk_pk_".length), "base64url").length, 32);
  const key = newApiKey(cryptoIds, "SANDBOX");
  const parsed = parseApiKey(key.key);
  assert.equal(parsed && [parsed.environment, parsed.lookupId], ["SANDBOX", key.lookupId]);
  assert.ok(hashesEqual(hashSecret(parsed!.secret), key.hash));
  assert.not.ok(key.hash.equals(hashSecret(key.key)), "only the random part is hashed");
  for (const bad of [
    "",
    "lp_ak_sb_",
    key.key + "x",
    key.key.replace("lp_ak_sb_", "lp_ak_xx_"),
    key.key.slice(0, -1) + "!",
  ]) {
    assert.is(parseApiKey(bad), undefined, bad);
  }
  assert.not.ok(hashesEqual(hashSecret("a"), hashSecret("b")));
});

Secrets("spec prefixes: lp_app_sb/lp_app_pk, lp_sk_sb_/lp_sk_pk_, lp_ak_sb_/lp_ak_pk_; 32 bytes of randomness", () => {
  assert.equal(prefixes, {
    clientId: { SANDBOX: "lp_app_sb", PRODUCTION: "lp_app_pk" },
    clientSecret: { SANDBOX: "lp_sk_sb_", PRODUCTION: "lp_sk_pk_" },
    apiKey: { SANDBOX: "lp_ak_sb_", PRODUCTION: "lp_ak_pk_" },
  });
  assert.is(secretBytes, 32);
  assert.is(lookupLength, 12);
});

Secrets("client ids: the prefix and 18 random bytes (24 base64url characters)", () => {
  const ids = fixedIds();
  assert.is(newClientId(ids, "SANDBOX"), "lp_app_sb" + "A".repeat(24));
  assert.is(newClientId(ids, "PRODUCTION"), "lp_app_pk" + "B".repeat(24));
  assert.equal(ids.sizes, [18, 18]);
  assert.match(newClientId(cryptoIds, "SANDBOX"), /^lp_app_sb[A-Za-z0-9_-]{24}$/);
});

Secrets("client secrets: the prefix and 32 random bytes; the prefix names the environment", () => {
  const ids = fixedIds();
  assert.is(newClientSecret(ids, "SANDBOX"), "lp_sk_sb_" + "A".repeat(43));
  assert.equal(ids.sizes, [32]);
  assert.is(clientSecretEnvironment(newClientSecret(cryptoIds, "SANDBOX")), "SANDBOX");
  assert.is(clientSecretEnvironment(newClientSecret(cryptoIds, "PRODUCTION")), "PRODUCTION");
  for (const other of ["", "lp_sk_xx_abc", "lp_ak_sb_abc", "lp_app_sbabc", "LP_SK_SB_abc"]) {
    assert.is(clientSecretEnvironment(other), undefined, other);
  }
});

Secrets(
  "API keys: prefix, 12-character lookup id (9 bytes), 43-character secret (32 bytes); only the secret is hashed",
  () => {
    const ids = fixedIds();
    const key = newApiKey(ids, "PRODUCTION");
    assert.equal(ids.sizes, [9, 32]);
    assert.is(key.key, "lp_ak_pk_" + "A".repeat(12) + "B".repeat(43));
    assert.is(key.lookupId, "A".repeat(12));
    assert.ok(key.hash.equals(createHash("sha256").update("B".repeat(43)).digest()));
    assert.equal(parseApiKey(key.key), { environment: "PRODUCTION", lookupId: "A".repeat(12), secret: "B".repeat(43) });
    assert.is(parseApiKey(key.key.slice(0, -1)), undefined, "one character short");
    assert.is(parseApiKey("lp_ak_pk_" + "A".repeat(12) + "B".repeat(42) + "="), undefined, "padding is not base64url");
  },
);

Secrets("hashSecret is SHA-256 of the UTF-8 text; hashesEqual refuses different lengths", () => {
  assert.is(hashSecret("abc").toString("hex"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.is(
    hashSecret("é").toString("hex"),
    createHash("sha256")
      .update(Buffer.from([0xc3, 0xa9]))
      .digest("hex"),
  );
  assert.ok(hashesEqual(hashSecret("abc"), hashSecret("abc")));
  assert.not.ok(hashesEqual(hashSecret("abc"), hashSecret("abc").subarray(0, 31)));
});

Secrets("generated merchant passwords: 18 random bytes, base64url", () => {
  const ids = fixedIds();
  assert.is(newPassword(ids), "A".repeat(24));
  assert.equal(ids.sizes, [18]);
  assert.match(newPassword(cryptoIds), /^[A-Za-z0-9_-]{24}$/);
});

Secrets.run();
