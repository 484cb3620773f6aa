// DPoP proofs (RFC 9449): the checks of section 4.3, shared by the token endpoint and the partner gateway. A proof
// is a JWT with `typ: dpop+jwt`, signed by the private half of the public `jwk` in its own header, naming the
// request (`htm`, `htu`), when it was made (`iat`), once (`jti`), and on resource calls the token (`ath`).
// node:crypto verifies the signature with the key imported once per thumbprint (RFC 7638, computed here); the
// replay cache is the shared key-value store, one SET NX per proof, so a proof used at one front is refused at every
// other. (jose did the verification before: a third more CPU per proof, docs/decisions.md.)
import { constants, createHash, createPublicKey, verify, type JsonWebKeyInput, type KeyObject } from "node:crypto";
import type { Clock } from "../runtime/clock.js";
import { createBoundedCache, type BoundedCache } from "../runtime/ttl-cache.js";
import type { KeyValueStore } from "../storage/key-value.js";

/**
 * The algorithms a proof may use: asymmetric only (section 4.3, check 5: never `none`, never a MAC). ES256 is what
 * every DPoP client implements; the others cover RSA-only and Ed25519 keys. Advertised in the metadata.
 */
export const dpopSigningAlgorithms = ["ES256", "ES384", "PS256", "RS256", "EdDSA"] as const;

/**
 * How old a proof may be: `iat` at most this many seconds in the past (section 11.1: "a relatively brief period").
 * The replay cache keeps each `jti` this long plus the leeway, so a proof cannot outlive its entry.
 */
export const dpopProofWindowSeconds = 60;
/** How far in the future `iat` may be: instances' and clients' clocks differ by a few seconds. */
export const dpopClockLeewaySeconds = 5;
/** The longest proof accepted, in characters: a proof with a 4096-bit RSA key and its claims is under 2 KB. */
export const maxDpopProofLength = 8192;

/** Why a proof was refused: for the log and the unit tests (the caller sees invalid_dpop_proof or use_dpop_nonce). */
export type DpopRejection =
  | "missing"
  | "multiple"
  | "malformed"
  | "wrong_type"
  | "unsupported_algorithm"
  | "bad_key"
  | "private_key"
  | "bad_signature"
  | "bad_claims"
  | "wrong_method"
  | "wrong_url"
  | "too_old"
  | "from_the_future"
  | "replayed"
  | "wrong_token_hash"
  | "nonce_required";

export type DpopResult = { ok: true; jkt: string } | { ok: false; reason: DpopRejection };

/** The request a proof must name. */
export interface DpopRequest {
  /** The DPoP header's values as received: none, one, or (refused) several. */
  proof: string | readonly string[] | undefined;
  /** The HTTP method, upper case. */
  method: string;
  /** The request's URL as the client addressed it (the public base plus the path); query and fragment are ignored. */
  url: string;
  /** The access token, on a resource call: the proof's `ath` must be its hash (section 4.3, check 10). */
  accessToken?: string;
}

export interface DpopVerifier {
  verify(request: DpopRequest): Promise<DpopResult>;
}

/** Server nonces (section 8), when turned on: what a proof's `nonce` must be, and the one to send next. */
export interface DpopNonces {
  /** The nonce to hand out now (the `DPoP-Nonce` header). */
  current(): string;
  /** Whether `nonce` is one this server handed out recently enough. */
  accepts(nonce: string): boolean;
}

export interface DpopVerifierOptions {
  /** The replay cache: Redis in production, so a `jti` is seen once across every front. */
  store: KeyValueStore;
  clock: Clock;
  /** Server nonces; absent: a proof's `nonce` is not required (and ignored). */
  nonces?: DpopNonces;
}

/** A store failure while checking the replay cache: the caller answers 503, never admits the proof (fail closed). */
export class DpopReplayCacheUnavailable extends Error {
  constructor(cause: unknown) {
    super("the DPoP replay cache is unavailable", { cause });
  }
}

const refused = (reason: DpopRejection): DpopResult => ({ ok: false, reason });

/** base64url(SHA-256(ASCII(token))): a proof's `ath` (section 4.2). */
export function accessTokenHash(token: string): string {
  return createHash("sha256").update(token, "ascii").digest("base64url");
}

/**
 * `htu` compared as section 4.3 check 9 says: without query and fragment, after URL normalisation (RFC 3986 section
 * 6: scheme and host case, default port, percent-encoding case). Undefined when it is no absolute http(s) URL.
 */
export function normalizedHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return `${url.origin}${url.pathname}`;
}

/**
 * Imported public keys (node:crypto KeyObjects), by `alg` and the key's RFC 7638 thumbprint: a client signs every
 * proof with the same key, and importing it was a fifth of a proof's cost (bench/dpop.ts). The thumbprint names the
 * key's material exactly (its required members), so the KeyObject is the same for every proof naming it; only the
 * key's parsing is kept, never a verdict on a proof: each proof's signature is still verified. Bounded, least
 * recently used out.
 */
export const dpopKeyCacheEntries = 10_000;

export function createDpopVerifier(options: DpopVerifierOptions): DpopVerifier {
  const { store, clock, nonces } = options;
  const keys = createBoundedCache<KeyObject>({ clock, ttlMs: Infinity, maxEntries: dpopKeyCacheEntries });
  return {
    async verify(request) {
      const proof = request.proof;
      if (proof === undefined || (Array.isArray(proof) && proof.length === 0)) return refused("missing");
      // Section 4.3 check 1: exactly one DPoP header.
      if (typeof proof !== "string") return refused(proof.length === 1 ? "malformed" : "multiple");
      const signed = verifySignature(proof, keys);
      if (!signed.ok) return signed;
      const { claims, jkt } = signed;
      const rejection = claimsRejection(claims, request, clock.now(), nonces);
      if (rejection) return refused(rejection);
      // Last, once everything else holds: a proof refused for another reason does not use up its jti.
      const ttlMs = (dpopProofWindowSeconds + 2 * dpopClockLeewaySeconds) * 1000;
      let first: boolean;
      try {
        first = await store.setIfAbsent(`dpop:jti:${jkt}:${hashOf(claims["jti"] as string)}`, "1", ttlMs);
      } catch (error) {
        throw new DpopReplayCacheUnavailable(error);
      }
      return first ? { ok: true, jkt } : refused("replayed");
    },
  };
}

/** A jti in a Redis key: hashed, so its length and characters are ours, not the client's. */
const hashOf = (value: string) => createHash("sha256").update(value).digest("base64url");

type Signed = { ok: true; claims: Record<string, unknown>; jkt: string } | { ok: false; reason: DpopRejection };

/** Checks 2 to 6 of section 4.3: a JWS, `typ: dpop+jwt`, an asymmetric `alg`, a public `jwk`, a valid signature. */
function verifySignature(proof: string, keys: BoundedCache<KeyObject>): Signed {
  if (proof.length > maxDpopProofLength) return { ok: false, reason: "malformed" };
  const parts = proof.split(".");
  if (parts.length !== 3 || !parts.every((part) => base64urlPattern.test(part)))
    return { ok: false, reason: "malformed" };
  const header = parseJson(Buffer.from(parts[0]!, "base64url"));
  if (header === undefined) return { ok: false, reason: "malformed" };
  if (header["typ"] !== "dpop+jwt") return { ok: false, reason: "wrong_type" };
  const alg = header["alg"];
  if (typeof alg !== "string" || !(dpopSigningAlgorithms as readonly string[]).includes(alg))
    return { ok: false, reason: "unsupported_algorithm" };
  // RFC 7515 section 4.1.11: an extension this verifier does not know must not be ignored (none is understood).
  if ("crit" in header || "b64" in header) return { ok: false, reason: "malformed" };
  const jwk = header["jwk"];
  if (!jwk || typeof jwk !== "object" || Array.isArray(jwk)) return { ok: false, reason: "bad_key" };
  // Section 4.3 check 6: the header carries the public key only; a private member means a leaked key.
  if (["d", "p", "q", "dp", "dq", "qi", "k"].some((member) => member in jwk))
    return { ok: false, reason: "private_key" };
  const key = publicKeyOf(jwk as Record<string, unknown>, alg as DpopAlgorithm, keys);
  if (key === undefined) return { ok: false, reason: "bad_key" };
  const signature = Buffer.from(parts[2]!, "base64url");
  if (!verifies(alg as DpopAlgorithm, `${parts[0]}.${parts[1]}`, key.object, signature))
    return { ok: false, reason: "bad_signature" };
  const claims = parseJson(Buffer.from(parts[1]!, "base64url"));
  return claims ? { ok: true, claims, jkt: key.jkt } : { ok: false, reason: "bad_claims" };
}

const base64urlPattern = /^[A-Za-z0-9_-]*$/;
type DpopAlgorithm = (typeof dpopSigningAlgorithms)[number];

/** The JWK members of RFC 7638 section 3.2 per key type, in lexicographic order: what the thumbprint hashes. */
const thumbprintMembers: Record<string, readonly string[]> = {
  EC: ["crv", "kty", "x", "y"],
  RSA: ["e", "kty", "n"],
  OKP: ["crv", "kty", "x"],
};

/** What `alg` needs of the key (RFC 7518 section 3, RFC 8037): its type, and for EC and OKP its curve. */
function keyFits(alg: DpopAlgorithm, jwk: Record<string, unknown>): boolean {
  switch (alg) {
    case "ES256":
      return jwk["kty"] === "EC" && jwk["crv"] === "P-256";
    case "ES384":
      return jwk["kty"] === "EC" && jwk["crv"] === "P-384";
    case "PS256":
    case "RS256":
      return jwk["kty"] === "RSA";
    case "EdDSA":
      // Ed25519 only, as jose verified it before (and as Web Crypto signs).
      return jwk["kty"] === "OKP" && jwk["crv"] === "Ed25519";
  }
}

/**
 * The key's RFC 7638 thumbprint and its KeyObject (imported once per `alg` and thumbprint, then cached); undefined
 * when the key does not fit `alg`, lacks a required member, or is no valid public key (an RSA modulus under 2048 bits
 * too, as RFC 7518 section 3.3 asks).
 */
function publicKeyOf(
  jwk: Record<string, unknown>,
  alg: DpopAlgorithm,
  keys: BoundedCache<KeyObject>,
): { object: KeyObject; jkt: string } | undefined {
  if (!keyFits(alg, jwk)) return undefined;
  const members = thumbprintMembers[jwk["kty"] as string]!;
  if (!members.every((member) => typeof jwk[member] === "string")) return undefined;
  const canonical = JSON.stringify(Object.fromEntries(members.map((member) => [member, jwk[member]])));
  const jkt = createHash("sha256").update(canonical).digest("base64url");
  const cacheKey = `${alg}\u0000${jkt}`;
  let object = keys.get(cacheKey);
  if (object === undefined) {
    try {
      object = createPublicKey({ key: JSON.parse(canonical) as JsonWebKeyInput["key"], format: "jwk" });
    } catch {
      return undefined;
    }
    if (jwk["kty"] === "RSA" && (object.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return undefined;
    keys.set(cacheKey, object);
  }
  return { object, jkt };
}

/** The JWS signature check of `alg` (RFC 7518 section 3): ECDSA's raw r||s form, PSS with a 32-byte salt. */
function verifies(alg: DpopAlgorithm, input: string, key: KeyObject, signature: Buffer): boolean {
  const data = Buffer.from(input, "ascii");
  try {
    switch (alg) {
      case "ES256":
        return signature.length === 64 && verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, signature);
      case "ES384":
        return signature.length === 96 && verify("sha384", data, { key, dsaEncoding: "ieee-p1363" }, signature);
      case "RS256":
        return verify("sha256", data, key, signature);
      case "PS256":
        return verify(
          "sha256",
          data,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
          signature,
        );
      case "EdDSA":
        return verify(null, data, key, signature);
    }
  } catch {
    return false;
  }
}

/** A JSON object from base64url-decoded bytes (strict UTF-8); undefined for anything else. */
function parseJson(payload: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Checks 7 to 11 of section 4.3 (the claims' types, `htm`, `htu`, `iat` in the window, the nonce, `ath`): the first that fails. */
function claimsRejection(
  claims: Record<string, unknown>,
  request: DpopRequest,
  nowMs: number,
  nonces: DpopNonces | undefined,
): DpopRejection | undefined {
  const { jti, htm, htu, iat, ath, nonce } = claims;
  if (typeof jti !== "string" || jti.length === 0 || jti.length > 256) return "bad_claims";
  if (typeof htm !== "string" || typeof htu !== "string" || !Number.isFinite(iat)) return "bad_claims";
  if (htm !== request.method) return "wrong_method";
  const expected = normalizedHtu(request.url);
  if (expected === undefined || normalizedHtu(htu) !== expected) return "wrong_url";
  const now = nowMs / 1000;
  if ((iat as number) < now - dpopProofWindowSeconds) return "too_old";
  if ((iat as number) > now + dpopClockLeewaySeconds) return "from_the_future";
  if (nonces && (typeof nonce !== "string" || !nonces.accepts(nonce))) return "nonce_required";
  if (request.accessToken !== undefined && ath !== accessTokenHash(request.accessToken)) return "wrong_token_hash";
  return undefined;
}
