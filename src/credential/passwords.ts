// Merchant users' passwords: scrypt (memory-hard, from node:crypto) with a random salt per password.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { productionPasswordHashCost } from "../config/config.js";

/**
 * scrypt's cost as log2 of N, with r = 8 and p = 1: 15 (N = 2^15, 32 MiB, tens of milliseconds) is the OWASP
 * password storage cheat sheet's minimum for scrypt, the default and, under NODE_ENV=production, the least allowed
 * (PASSWORD_HASH_COST). The cost is stored with each hash, so a hash keeps verifying after the setting changes.
 */
export const defaultPasswordHashCost = productionPasswordHashCost;
const blockSize = 8;
const parallelism = 1;
const keyLength = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must cover 128 * N * r bytes plus a little; the default (32 MiB) is exactly at the edge.
    scrypt(password, salt, keyLength, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes a password as `scrypt$N$r$p$salt$hash` (base64url parts), N = 2^`cost`. */
export async function hashPassword(password: string, cost = defaultPasswordHashCost): Promise<string> {
  const salt = randomBytes(16);
  const options = { N: 2 ** cost, r: blockSize, p: parallelism };
  const key = await derive(password, salt, options);
  return ["scrypt", options.N, options.r, options.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/**
 * A well-formed hash of cost `cost` that no password produces: verified against when no account matches, so an
 * unknown email costs the same scrypt as a wrong password.
 */
export function unknownPasswordHash(cost = defaultPasswordHashCost): string {
  return ["scrypt", 2 ** cost, blockSize, parallelism, "A".repeat(22), "A".repeat(43)].join("$");
}

/** True when `password` matches `stored`; false for any malformed stored value. Constant time in the key. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
