// Formats of client ids, client secrets and API keys, how they are made, hashed and compared.
//
// Every secret here is 32 bytes from a CSPRNG (256 bits). For secrets of that entropy a single SHA-256 is the
// right hash: a KDF (scrypt, argon2) exists to slow down guessing of low-entropy passwords, and nobody can
// enumerate 2^256 candidates however fast the hash is. A fast hash also keeps verification well under a
// millisecond. Hashes are compared with crypto.timingSafeEqual.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IdSource } from "../runtime/ids.js";
import type { CredentialEnvironment } from "./products.js";

/** Spec, "Credentials": the prefix of each credential kind selects its environment. */
export const prefixes = {
  clientId: { SANDBOX: "lp_app_sb", PRODUCTION: "lp_app_pk" },
  clientSecret: { SANDBOX: "lp_sk_sb_", PRODUCTION: "lp_sk_pk_" },
  apiKey: { SANDBOX: "lp_ak_sb_", PRODUCTION: "lp_ak_pk_" },
} as const;

/** Bytes of randomness in every secret and key: 256 bits. */
export const secretBytes = 32;
/** base64url length of 32 bytes without padding. */
const secretLength = 43;
/** Bytes of the public lookup id embedded in an API key: 72 bits, enough to never collide in practice. */
const lookupBytes = 9;
/** base64url length of 9 bytes. */
export const lookupLength = 12;

/** SHA-256 of a presented secret; the only form in which secrets are stored. */
export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

/** Constant-time comparison of two hashes (always 32 bytes each, so lengths never leak). */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new client id for `environment`: the prefix and 18 random bytes. Ids are public, not secret. */
export function newClientId(ids: IdSource, environment: CredentialEnvironment): string {
  return prefixes.clientId[environment] + ids.randomToken(18);
}

/** A new client secret: the environment's prefix and 256 random bits. */
export function newClientSecret(ids: IdSource, environment: CredentialEnvironment): string {
  return prefixes.clientSecret[environment] + ids.randomToken(secretBytes);
}

/** The environment a client id's prefix names; undefined for anything else. */
export function clientIdEnvironment(clientId: string): CredentialEnvironment | undefined {
  if (clientId.startsWith(prefixes.clientId.SANDBOX)) return "SANDBOX";
  if (clientId.startsWith(prefixes.clientId.PRODUCTION)) return "PRODUCTION";
  return undefined;
}

/** The environment a client secret's prefix names; undefined for anything else. */
export function clientSecretEnvironment(secret: string): CredentialEnvironment | undefined {
  if (secret.startsWith(prefixes.clientSecret.SANDBOX)) return "SANDBOX";
  if (secret.startsWith(prefixes.clientSecret.PRODUCTION)) return "PRODUCTION";
  return undefined;
}

/** A new API key: prefix, a public lookup id (to find the row), then 256 random bits (only hashed). */
export function newApiKey(
  ids: IdSource,
  environment: CredentialEnvironment,
): { key: string; lookupId: string; hash: Buffer } {
  const lookupId = ids.randomToken(lookupBytes);
  const secret = ids.randomToken(secretBytes);
  return { key: prefixes.apiKey[environment] + lookupId + secret, lookupId, hash: hashSecret(secret) };
}

/** The parts of a well-formed API key; undefined when malformed (wrong prefix or length). */
export function parseApiKey(
  key: string,
): { environment: CredentialEnvironment; lookupId: string; secret: string } | undefined {
  const environment = key.startsWith(prefixes.apiKey.SANDBOX)
    ? "SANDBOX"
    : key.startsWith(prefixes.apiKey.PRODUCTION)
      ? "PRODUCTION"
      : undefined;
  if (!environment) return undefined;
  const rest = key.slice(prefixes.apiKey[environment].length);
  if (rest.length !== lookupLength + secretLength || !/^[A-Za-z0-9_-]+$/.test(rest)) return undefined;
  return { environment, lookupId: rest.slice(0, lookupLength), secret: rest.slice(lookupLength) };
}

/** A random password for a generated merchant login: 18 bytes (144 bits), base64url. */
export function newPassword(ids: IdSource): string {
  return ids.randomToken(18);
}
