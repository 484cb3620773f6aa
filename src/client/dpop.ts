// DPoP (RFC 9449) on the client side: one key pair per client (generated here, or given so that tokens bound to it
// outlive a restart), a proof for every request that needs one (section 4: `htm`, `htu` without query or fragment,
// `iat`, a fresh `jti`, `ath` on resource calls), and the server's nonces (section 8), kept per origin from every
// `DPoP-Nonce` header and put in the next proof. The private key is never exported: a generated one is made
// non-extractable, and proofs are signed with Web Crypto through jose.
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { randomToken, sha256Base64url } from "./encoding.js";

/** The algorithms the API accepts for proofs (its metadata's dpop_signing_alg_values_supported). */
export type DpopAlgorithm = "ES256" | "ES384" | "PS256" | "RS256" | "EdDSA";

/** A Web Crypto key pair to prove possession with (`crypto.subtle.generateKey`, or jose's `generateKeyPair`). */
export interface DpopKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** The `dpop` option: `true` for a key pair made by the client (ES256), or the key pair to use. */
export type DpopOption = true | { keyPair?: DpopKeyPair | undefined; alg?: DpopAlgorithm | undefined };

export interface DpopSigner {
  /** The key's RFC 7638 thumbprint (`cnf.jkt` of the tokens bound to it). */
  thumbprint(): Promise<string>;
  /** A new proof for one request; `accessToken` on resource calls (its hash goes in `ath`). */
  proof(method: string, url: URL, accessToken?: string): Promise<string>;
  /** Keeps the `DPoP-Nonce` an answer from `url`'s origin carried, for the next proof to it. */
  observe(url: URL, headers: Headers): void;
}

interface Key {
  pair: DpopKeyPair;
  jwk: JWK;
  jkt: string;
  alg: DpopAlgorithm;
}

export function createDpopSigner(option: DpopOption, clock: { now(): number }): DpopSigner {
  const alg = (option === true ? undefined : option.alg) ?? "ES256";
  const given = option === true ? undefined : option.keyPair;
  let key: Promise<Key> | undefined;
  const keyOf = (): Promise<Key> => {
    key ??= (async () => {
      const pair = given ?? ((await generateKeyPair(alg, { extractable: false })) as DpopKeyPair);
      // The public half only: exportJWK of a public key carries no private member.
      const jwk = await exportJWK(pair.publicKey);
      return { pair, jwk, jkt: await calculateJwkThumbprint(jwk, "sha256"), alg };
    })();
    return key;
  };
  const nonces = new Map<string, string>();
  return {
    thumbprint: async () => (await keyOf()).jkt,
    async proof(method, url, accessToken) {
      const { pair, jwk } = await keyOf();
      const claims: Record<string, unknown> = {
        htm: method,
        htu: `${url.origin}${url.pathname}`,
        iat: Math.floor(clock.now() / 1000),
        jti: randomToken(16),
      };
      if (accessToken !== undefined) claims["ath"] = await sha256Base64url(accessToken);
      const nonce = nonces.get(url.origin);
      if (nonce !== undefined) claims["nonce"] = nonce;
      return new SignJWT(claims).setProtectedHeader({ alg, typ: "dpop+jwt", jwk }).sign(pair.privateKey);
    },
    observe(url, headers) {
      const nonce = headers.get("dpop-nonce");
      // RFC 9449 section 8.1: NQCHAR only (visible ASCII but `"` and `\`).
      if (nonce !== null && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(nonce)) nonces.set(url.origin, nonce);
    },
  };
}

/**
 * Whether a refusal asks for the proof again with the server's nonce (section 8): the OAuth body's `use_dpop_nonce`,
 * a resource's `WWW-Authenticate: DPoP error="use_dpop_nonce"`, or the developer envelope's code for it; with the
 * nonce in `DPoP-Nonce`.
 */
export function asksForNonce(headers: Headers, oauthError: string | undefined, code: string | undefined): boolean {
  if (headers.get("dpop-nonce") === null) return false;
  const challenge = headers.get("www-authenticate") ?? "";
  return (
    oauthError === "use_dpop_nonce" ||
    /(^|,)\s*DPoP\b[\s\S]*error="use_dpop_nonce"/i.test(challenge) ||
    (code?.endsWith(".dpop_nonce_required") ?? false)
  );
}
