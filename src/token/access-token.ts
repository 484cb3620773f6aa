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
  | "bad_claims";

export type VerifyResult = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: TokenRejection };

/** Finds the public key of a `kid` among the published keys; undefined when unknown. */
export type PublicKeyLookup = (kid: string) => KeyObject | undefined;

export interface AccessTokenVerifierOptions {
  issuer: string;
  audience: string;
  keys: PublicKeyLookup;
  clock: Clock;
  /** Tolerated clock skew between instances, in seconds. */
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
 * expiry and the types of the claims the gateway relies on. Synchronous and allocation-light: it runs on every call.
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
 * The signature half of verification, shared by every token kind we issue: RS256 only (`alg` is never the token's
 * choice), `typ: at+jwt`, a known `kid`, a valid signature, and a JSON object payload. Claims are the caller's to check.
 */
export function verifyJwtSignature(
  token: string,
  keys: PublicKeyLookup,
): { ok: true; claims: Record<string, unknown>; kid: string } | { ok: false; reason: TokenRejection } {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = parseSegment(headerPart);
  if (header?.["alg"] !== "RS256" || typeof header["kid"] !== "string") return { ok: false, reason: "malformed" };
  if (header["typ"] !== "at+jwt") return { ok: false, reason: "wrong_type" };
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
    isInteger(claims["exp"])
  );
}

/** Reads a PEM or DER private key; for keys decrypted from storage. */
export function privateKeyFrom(pem: string): KeyObject {
  return createPrivateKey(pem);
}

/** The public half of a private key, for the verifier and the JWKS. */
export function publicKeyOf(privateKey: KeyObject): KeyObject {
  return createPublicKey(privateKey);
}
