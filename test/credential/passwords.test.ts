// src/credential/passwords.ts: merchant users' passwords hashed with scrypt (N=2^15, r=8, p=1) and a random salt,
// stored as scrypt$N$r$p$salt$hash, and verified in constant time.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { hashPassword, unknownPasswordHash, verifyPassword } from "../../src/credential/passwords.js";

const Passwords = suite("credential/passwords");

Passwords(
  "passwords: scrypt with a salt, verified in constant time; malformed stored values never verify",
  async () => {
    const stored = await hashPassword("correct horse");
    assert.match(stored, /^scrypt\$32768\$8\$1\$/);
    assert.not.ok(stored.includes("correct horse"));
    assert.is.not(await hashPassword("correct horse"), stored, "salted");
    assert.ok(await verifyPassword("correct horse", stored));
    assert.not.ok(await verifyPassword("correct horse!", stored));
    assert.not.ok(await verifyPassword("x", "plain"));
  },
);

Passwords("the stored form: six $-separated parts, a 16-byte salt and a 32-byte key in base64url", async () => {
  const parts = (await hashPassword("correct horse")).split("$");
  assert.is(parts.length, 6);
  assert.equal(parts.slice(0, 4), ["scrypt", "32768", "8", "1"]);
  assert.is(Buffer.from(parts[4]!, "base64url").length, 16);
  assert.is(Buffer.from(parts[5]!, "base64url").length, 32);
  assert.match(parts[4]!, /^[A-Za-z0-9_-]{22}$/);
  assert.match(parts[5]!, /^[A-Za-z0-9_-]{43}$/);
});

Passwords("a stored value with another scheme, or without salt or hash, never verifies", async () => {
  const stored = await hashPassword("correct horse");
  const [, n, r, p, salt, hash] = stored.split("$");
  assert.not.ok(await verifyPassword("correct horse", ["bcrypt", n, r, p, salt, hash].join("$")));
  assert.not.ok(await verifyPassword("correct horse", ["scrypt", n, r, p, "", hash].join("$")));
  assert.not.ok(await verifyPassword("correct horse", ["scrypt", n, r, p, salt].join("$")));
  assert.not.ok(
    await verifyPassword("correct horse", ["scrypt", n, r, p, salt, hash!.slice(0, -2)].join("$")),
    "a shorter key",
  );
});

Passwords(
  "another cost (PASSWORD_HASH_COST) is stored in the hash, and a hash verifies whatever the setting",
  async () => {
    const cheap = await hashPassword("correct horse", 10);
    assert.equal(cheap.split("$").slice(0, 4), ["scrypt", "1024", "8", "1"]);
    assert.ok(await verifyPassword("correct horse", cheap));
    assert.not.ok(await verifyPassword("correct horse!", cheap));
  },
);

Passwords("the unknown-account hash: well formed at the given cost, and no password verifies against it", async () => {
  assert.is(
    unknownPasswordHash(),
    "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  );
  const cheap = unknownPasswordHash(10);
  assert.equal(cheap.split("$").slice(0, 4), ["scrypt", "1024", "8", "1"]);
  for (const password of ["", "correct horse", "A".repeat(64)]) assert.not.ok(await verifyPassword(password, cheap));
});

Passwords.run();
