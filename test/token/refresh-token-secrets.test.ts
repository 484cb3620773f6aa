// src/token/refresh-token-secrets.ts: refresh tokens (256 bits, prefixed by environment), the HMAC-derived
// successor of a refresh token, and the SHA-256 that is stored.
import { createHmac } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { hashSecret } from "../../src/credential/secrets.js";
import { cryptoIds, type IdSource } from "../../src/runtime/ids.js";
import {
  hashToken,
  newRefreshToken,
  refreshTokenEnvironment,
  refreshTokenPrefixes,
  successorKey,
  successorOf,
} from "../../src/token/refresh-token-secrets.js";

const RefreshTokenSecrets = suite("token/refresh-token-secrets");

/** Ids that record the sizes asked for and answer one letter repeated to the base64url length. */
function fixedIds(letter: string, sizes: number[]): IdSource {
  return {
    uuid: () => "00000000-0000-4000-8000-000000000000",
    randomToken: (bytes) => {
      sizes.push(bytes);
      return letter.repeat(Math.ceil((bytes * 8) / 6));
    },
  };
}

const sandboxToken = "lp_rt_sb_" + "A".repeat(43);

RefreshTokenSecrets("spec prefixes: lp_rt_sb_ and lp_rt_pk_", () => {
  assert.equal(refreshTokenPrefixes, { SANDBOX: "lp_rt_sb_", PRODUCTION: "lp_rt_pk_" });
});

RefreshTokenSecrets("refresh tokens carry 256 random bits (43 base64url characters)", () => {
  const sizes: number[] = [];
  assert.is(newRefreshToken(fixedIds("R", sizes), "SANDBOX"), "lp_rt_sb_" + "R".repeat(43));
  assert.is(newRefreshToken(fixedIds("R", sizes), "PRODUCTION"), "lp_rt_pk_" + "R".repeat(43));
  assert.equal(sizes, [32, 32]);
  assert.match(newRefreshToken(cryptoIds, "PRODUCTION"), /^lp_rt_pk_[A-Za-z0-9_-]{43}$/);
});

RefreshTokenSecrets("the environment of a well-formed token; anything else is undefined and never looked up", () => {
  assert.is(refreshTokenEnvironment(sandboxToken), "SANDBOX");
  assert.is(refreshTokenEnvironment(newRefreshToken(cryptoIds, "PRODUCTION")), "PRODUCTION");
  for (const bad of [
    "",
    "lp_rt_sb_",
    sandboxToken.slice(0, -1),
    sandboxToken + "A",
    "lp_rt_sb_" + "A".repeat(42) + "=",
    "lp_rt_sb_" + "A".repeat(42) + "+",
    "lp_rt_xx_" + "A".repeat(43),
    "lp_sk_sb_" + "A".repeat(43),
    "LP_RT_SB_" + "A".repeat(43),
  ]) {
    assert.is(refreshTokenEnvironment(bad), undefined, bad);
  }
});

RefreshTokenSecrets("successor key: 32 bytes derived from the KEK, stable for one KEK, different for another", () => {
  const kek = Buffer.alloc(32, 1);
  const key = successorKey(kek);
  assert.is(key.length, 32);
  assert.ok(key.equals(successorKey(Buffer.alloc(32, 1))));
  assert.not.ok(key.equals(kek));
  assert.not.ok(key.equals(successorKey(Buffer.alloc(32, 2))));
});

RefreshTokenSecrets(
  "successor: HMAC-SHA256(key, token) with the same prefix; deterministic, itself a well-formed token",
  () => {
    const key = successorKey(Buffer.alloc(32, 7));
    const successor = successorOf(key, sandboxToken);
    assert.is(successor, "lp_rt_sb_" + createHmac("sha256", key).update(sandboxToken).digest("base64url"));
    assert.is(successorOf(key, sandboxToken), successor, "a grace replay gets the very same successor");
    assert.is(refreshTokenEnvironment(successor), "SANDBOX");
    assert.is.not(successor, sandboxToken);
    assert.is.not(successorOf(successorKey(Buffer.alloc(32, 8)), sandboxToken), successor, "another server key");
    assert.is(refreshTokenEnvironment(successorOf(key, successor)), "SANDBOX", "successors chain");
    const production = "lp_rt_pk_" + "A".repeat(43);
    assert.match(successorOf(key, production), /^lp_rt_pk_[A-Za-z0-9_-]{43}$/);
    assert.is.not(successorOf(key, production).slice(9), successor.slice(9), "the prefix is part of the HMAC input");
  },
);

RefreshTokenSecrets("successor of anything but a refresh token throws", () => {
  const key = successorKey(Buffer.alloc(32, 7));
  for (const bad of ["", "lp_sk_sb_" + "A".repeat(43), sandboxToken.slice(0, -1)]) {
    assert.throws(
      () => successorOf(key, bad),
      (error: Error) => error.message === "not a refresh token",
      bad,
    );
  }
});

RefreshTokenSecrets("stored form: SHA-256 (hashSecret itself)", () => {
  assert.is(hashToken, hashSecret);
  assert.is(hashToken("abc").toString("hex"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

RefreshTokenSecrets.run();
