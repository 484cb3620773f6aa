// The access token: an RS256 JWT (RFC 9068 profile, `typ: at+jwt`) carrying the spec's claims. Signing and the hot
// verification path use node:crypto directly: measured here, about three times jose's verification rate, and every
// partner call verifies one.
import { createPrivateKey, createPublicKey, sign as rsaSign, verify as rsaVerify, type KeyObject } from "node:crypto";
import type { CredentialEnvironment, Product } from "../credential/index.js";
import type { Clock } from "../runtime/clock.js";
import { createBoundedCache } from "../runtime/ttl-cache.js";

/** `aud` of app tokens: "a fixed service-specific string of the form service-app" (spec, Access token claims). */
export const appTokenAudience = "partnerapi-app";
/** `aud` of merchant-user session tokens; refused where app tokens belong, and the reverse. */
export const merchantUserAudience = "partnerapi-merchant";

export type { Product };
/** A token's `env` claim: its credential's environment. */
export type TokenEnvironment = CredentialEnvironment;

/** The claims of an app access token: the spec's table plus `iss` and `client_id` (RFC 9068 section 2.2). */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  client_id: string;
  orgId: number;
  companyId: number;
  region: string;
  product: Product;
  scopes: string[];
  env: TokenEnvironment;
  /** Present only when the credential has an allowlist. */
  allowedIps?: string[];
  jti: string;
  iat: number;
  exp: number;
  /** Never minted by us; checked when present (RFC 7519 section 4.1.5). */
  nbf?: number;
  /** A DPoP-bound token's key (RFC 9449 section 6.1): its RFC 7638 thumbprint. Absent: a Bearer token. */
  cnf?: { jkt: string };
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

const signingInputOf = (key: SigningKey, claims: object) =>
  `${encode({ alg: "RS256", typ: "at+jwt", kid: key.kid })}.${encode(claims)}`;

/**
 * Signs any claims set as an RS256 JWT with header `{alg: RS256, typ: at+jwt, kid}` (app and console tokens), on the
 * libuv thread pool (the callback form of crypto.sign): an RSA-2048 signature is about half a millisecond of CPU
 * that would otherwise stall the event loop, and off it the mints use every core. The pool is sized at start
 * (src/runtime/thread-pool.ts).
 */
export function signJwtAsync(key: SigningKey, claims: object): Promise<string> {
  const signingInput = signingInputOf(key, claims);
  return new Promise((resolve, reject) =>
    rsaSign("sha256", Buffer.from(signingInput), key.privateKey, (error, signature) =>
      error ? reject(error) : resolve(`${signingInput}.${signature.toString("base64url")}`),
    ),
  );
}

/** Signs an app access token off the event loop; what the grants and the sandbox mint use. */
export function signAccessTokenAsync(key: SigningKey, claims: AccessTokenClaims): Promise<string> {
  return signJwtAsync(key, claims);
}

/** The same signature on the calling thread: for fixtures and tools, never on a request path. */
export function signJwt(key: SigningKey, claims: object): string {
  const signingInput = signingInputOf(key, claims);
  const signature = rsaSign("sha256", Buffer.from(signingInput), key.privateKey).toString("base64url");
  return `${signingInput}.${signature}`;
}

/** Signs an app access token on the calling thread (fixtures; requests use signAccessTokenAsync). */
export function signAccessToken(key: SigningKey, claims: AccessTokenClaims): string {
  return signJwt(key, claims);
}

/** Why a token was refused; for the log only (the caller sees one code, partner.token_invalid). */
export type TokenRejection =
  | "malformed"
  | "unknown_key"
  | "bad_signature"
  | "wrong_type"
  | "wrong_issuer"
  | "wrong_audience"
  | "expired"
  | "bad_claims"
  /** A `crit` or `b64` header parameter: no extension is understood here (RFC 7515 section 4.1.11, RFC 7797). */
  | "unsupported_header"
  /** `nbf` ahead of now by more than the leeway (RFC 7519 section 4.1.5). */
  | "not_yet_valid"
  /** `exp - iat` longer than the issuer's access-token lifetime plus the leeway. */
  | "too_long_lived";

export type VerifyResult = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: TokenRejection };

/** Finds the public key of a `kid` among the published keys; undefined when unknown. */
export type PublicKeyLookup = (kid: string) => KeyObject | undefined;

export interface AccessTokenVerifierOptions {
  issuer: string;
  audience: string;
  keys: PublicKeyLookup;
  clock: Clock;
  /**
   * The issuer's access-token lifetime (ACCESS_TOKEN_TTL_SECONDS): a token whose `exp - iat` exceeds it by more than
   * the leeway was not minted by our issuer as configured, and is refused (docs/decisions.md, "Access tokens parsed
   * strictly").
   */
  lifetimeSeconds: number;
  /** Tolerated clock skew between instances, in seconds: for `exp`, `iat`, `nbf` and the lifetime. Default 5. */
  leewaySeconds?: number;
  /**
   * Tokens whose signature this verifier has checked, kept (least recently used first out) so each token's RSA
   * verification runs once, not on each of its calls; 0 turns the cache off. Default verifiedTokenCacheEntries.
   */
  cacheEntries?: number;
}

/** Verified tokens remembered per process: ~2 KB each (the token and its claims), so about 20 MB at most. */
export const verifiedTokenCacheEntries = 10_000;

export interface AccessTokenVerifier {
  verify(token: string): VerifyResult;
}

/**
 * Verifies signature (RS256 only: `alg` is never taken from the token's choice of algorithms), `typ`, `iss`, `aud`,
 * expiry, `nbf`, the lifetime and the types of the claims the gateway relies on. Synchronous and allocation-light:
 * it runs on every call.
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  const leeway = options.leewaySeconds ?? 5;
  const verified = createBoundedCache<VerifiedToken>({
    clock: options.clock,
    ttlMs: Infinity,
    maxEntries: options.cacheEntries ?? verifiedTokenCacheEntries,
  });
  /** The checks that depend on the time run on every call, cached or not. */
  const inTime = (claims: AccessTokenClaims): VerifyResult => {
    const now = Math.floor(options.clock.now() / 1000);
    if (claims.exp <= now - leeway) return { ok: false, reason: "expired" };
    if (claims.iat > now + leeway) return { ok: false, reason: "bad_claims" };
    if (claims.nbf !== undefined && claims.nbf > now + leeway) return { ok: false, reason: "not_yet_valid" };
    return { ok: true, claims };
  };
  return {
    verify(token) {
      const cached = verified.get(token);
      // The key lookup still runs on a hit: it is what keeps a key ring's periodic re-read going (key-ring.ts), so
      // the next rotation's key is known before the first token it signs arrives. A key gone from the ring (only
      // after every token it signed expired: signing-keys.ts) ends its cached tokens too.
      if (cached && options.keys(cached.kid)) {
        const result = inTime(cached.claims);
        if (!result.ok) verified.delete(token);
        return result;
      }
      const signed = verifyJwtSignature(token, options.keys);
      if (!signed.ok) return signed;
      const claims = signed.claims;
      if (!hasClaimTypes(claims)) return { ok: false, reason: "bad_claims" };
      if (claims.iss !== options.issuer) return { ok: false, reason: "wrong_issuer" };
      if (claims.aud !== options.audience) return { ok: false, reason: "wrong_audience" };
      if (claims.exp - claims.iat > options.lifetimeSeconds + leeway) return { ok: false, reason: "too_long_lived" };
      const result = inTime(claims);
      // Only a token valid now is kept, until the moment `inTime` would call it expired (or sooner when pushed out).
      if (result.ok) verified.set(token, { claims, kid: signed.kid }, (claims.exp + leeway) * 1000);
      return result;
    },
  };
}

/**
 * A verified token, kept in the one bounded cache (least recently used first out) keyed by the token itself (its
 * signature makes it unforgeable: a different claim is a different key). Only successes are kept, so a flood of bad
 * tokens cannot push good ones out faster than the signatures it costs to verify them. Each entry ends when the token
 * expires (with the leeway); `inTime` still checks every hit.
 */
interface VerifiedToken {
  claims: AccessTokenClaims;
  kid: string;
}

/**
 * The signature half of verification, shared by every token kind we issue: three parts each in canonical base64url,
 * RS256 only (`alg` is never the token's choice), `typ: at+jwt`, no `crit` or `b64`, a known `kid`, a valid
 * signature, and a JSON object payload. Claims are the caller's to check.
 */
export function verifyJwtSignature(
  token: string,
  keys: PublicKeyLookup,
): { ok: true; claims: Record<string, unknown>; kid: string } | { ok: false; reason: TokenRejection } {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  // Buffer's decoder skips padding, whitespace and foreign characters and ignores the unused bits: without this, one
  // signature had many spellings that all verified (RFC 7515 section 2 and 7.1: base64url with no padding).
  if (!isCanonicalBase64url(headerPart) || !isCanonicalBase64url(payloadPart) || !isCanonicalBase64url(signaturePart))
    return { ok: false, reason: "malformed" };
  const header = parseSegment(headerPart);
  if (header?.["alg"] !== "RS256" || typeof header["kid"] !== "string") return { ok: false, reason: "malformed" };
  if (header["typ"] !== "at+jwt") return { ok: false, reason: "wrong_type" };
  // RFC 7515 section 4.1.11: a `crit` listing an extension we do not understand must be refused, and we understand
  // none. `b64` (RFC 7797) changes what is signed, and is meaningless without `crit`: refused either way.
  if (header["crit"] !== undefined || header["b64"] !== undefined) return { ok: false, reason: "unsupported_header" };
  const key = keys(header["kid"]);
  if (!key) return { ok: false, reason: "unknown_key" };
  const valid = rsaVerify(
    "sha256",
    Buffer.from(`${headerPart}.${payloadPart}`),
    key,
    Buffer.from(signaturePart, "base64url"),
  );
  if (!valid) return { ok: false, reason: "bad_signature" };
  const claims = parseSegment(payloadPart);
  return claims ? { ok: true, claims, kid: header["kid"] } : { ok: false, reason: "bad_claims" };
}

/** Each character's 6-bit value in the base64url alphabet (RFC 4648 section 5), -1 outside it. */
const base64urlValues = (() => {
  const values = new Int8Array(128).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (let index = 0; index < alphabet.length; index++) values[alphabet.charCodeAt(index)] = index;
  return values;
})();

/**
 * True when `text` is the one spelling of its bytes: base64url characters only (no padding, no whitespace), a length
 * some byte string encodes to, and zero unused bits in the last character (RFC 4648 section 3.5). No allocation.
 */
function isCanonicalBase64url(text: string): boolean {
  const length = text.length;
  const tail = length % 4;
  if (length === 0 || tail === 1) return false;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code > 127 || base64urlValues[code]! < 0) return false;
  }
  if (tail === 0) return true;
  // 2 characters carry 1 byte (4 unused bits), 3 carry 2 bytes (2 unused bits).
  const last = base64urlValues[text.charCodeAt(length - 1)]!;
  return (last & (tail === 2 ? 0b1111 : 0b11)) === 0;
}

function parseSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const isString = (value: unknown): value is string => typeof value === "string";
const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);

function hasClaimTypes(claims: Record<string, unknown>): claims is Record<string, unknown> & AccessTokenClaims {
  return (
    isString(claims["iss"]) &&
    isString(claims["aud"]) &&
    isString(claims["sub"]) &&
    isString(claims["client_id"]) &&
    isInteger(claims["orgId"]) &&
    isInteger(claims["companyId"]) &&
    isString(claims["region"]) &&
    (claims["product"] === "FULL" || claims["product"] === "ONLINE_ORDER" || claims["product"] === "ADSR") &&
    Array.isArray(claims["scopes"]) &&
    claims["scopes"].every(isString) &&
    (claims["env"] === "SANDBOX" || claims["env"] === "PRODUCTION") &&
    (claims["allowedIps"] === undefined ||
      (Array.isArray(claims["allowedIps"]) && claims["allowedIps"].every(isString))) &&
    isString(claims["jti"]) &&
    isInteger(claims["iat"]) &&
    isInteger(claims["exp"]) &&
    (claims["nbf"] === undefined || isInteger(claims["nbf"])) &&
    (claims["cnf"] === undefined || isConfirmation(claims["cnf"]))
  );
}

/** `cnf` as we mint it: an object whose `jkt` is a SHA-256 thumbprint (43 base64url characters). */
function isConfirmation(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const jkt = (value as Record<string, unknown>)["jkt"];
  return typeof jkt === "string" && /^[A-Za-z0-9_-]{43}$/.test(jkt);
}

/** Reads a PEM or DER private key; for keys decrypted from storage. */
export function privateKeyFrom(pem: string): KeyObject {
  return createPrivateKey(pem);
}

/** The public half of a private key, for the verifier and the JWKS. */
export function publicKeyOf(privateKey: KeyObject): KeyObject {
  return createPublicKey(privateKey);
}
