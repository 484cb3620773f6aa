// Step 1 of a partner call with a token: `Authorization: Bearer <token>` (RFC 6750) or `Authorization: DPoP <token>`
// with a `DPoP` proof (RFC 9449 section 7). The token's signature and claims first (no network); then a token bound
// to a key (`cnf.jkt`) must come as DPoP with a proof of that key for this method, URL and token, and an unbound one
// as Bearer. The proof's jti goes into the shared replay cache (one SET NX); a cache that does not answer refuses
// the call (503), never admits it. Each refusal has its code and its WWW-Authenticate challenge (the catalogue).
import type { ErrorToRender } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";
import {
  createDpopNonces,
  createDpopVerifier,
  dpopNonceKey,
  DpopReplayCacheUnavailable,
  type AccessTokenClaims,
  type AccessTokenVerifier,
  type DpopNonces,
  type DpopVerifier,
} from "../token/index.js";

/** What step 1 reads of the request. */
export interface TokenCredentials {
  authorization: string;
  /** The DPoP header(s) as received. */
  dpop: string | readonly string[] | undefined;
  method: string;
  /** The request's path (no query): with the public base URL, what the proof's `htu` must name. */
  path: string;
}

export interface TokenAuthOptions {
  verifier: AccessTokenVerifier;
  /** DPoP proofs; absent: a DPoP-bound token or the DPoP scheme is refused (partner.dpop_proof_invalid). */
  dpop?: { verifier: DpopVerifier; nonces?: DpopNonces; publicBaseUrl: string };
  logger: Logger;
}

export type TokenAuth = (credentials: TokenCredentials) => Promise<AccessTokenClaims | ErrorToRender>;

/** RFC 7235 token68 after the scheme (case-insensitive), as RFC 6750 section 2.1 and RFC 9449 section 7.1 write it. */
const authorizationPattern = /^(Bearer|DPoP) +([A-Za-z0-9._~+/-]+=*) *$/i;

export function createTokenAuth(options: TokenAuthOptions): TokenAuth {
  const { verifier, dpop, logger } = options;

  const checkProof = async (
    credentials: TokenCredentials,
    token: string,
    jkt: string,
  ): Promise<ErrorToRender | undefined> => {
    if (!dpop) return { code: "partner.dpop_proof_invalid" };
    const url = `${dpop.publicBaseUrl}${credentials.path.replace(/^\//, "")}`;
    let result: Awaited<ReturnType<DpopVerifier["verify"]>>;
    try {
      result = await dpop.verifier.verify({
        proof: credentials.dpop,
        method: credentials.method,
        url,
        accessToken: token,
      });
    } catch (error) {
      if (!(error instanceof DpopReplayCacheUnavailable)) throw error;
      logger.warn("DPoP replay cache unavailable: partner call refused", { error: String(error.cause) });
      return { code: "server.unavailable" };
    }
    if (!result.ok) {
      logger.debug("DPoP proof refused", { reason: result.reason });
      if (result.reason === "nonce_required" && dpop.nonces)
        return { code: "partner.dpop_nonce_required", params: { nonce: dpop.nonces.current() } };
      return { code: "partner.dpop_proof_invalid" };
    }
    // Section 7.1: the proof's key is the one the token was bound to.
    if (result.jkt !== jkt) {
      logger.debug("DPoP proof refused", { reason: "other_key" });
      return { code: "partner.dpop_proof_invalid" };
    }
    return undefined;
  };

  return async (credentials) => {
    const match = authorizationPattern.exec(credentials.authorization);
    if (!match) return { code: "partner.token_invalid" };
    const scheme = match[1]!.toLowerCase() === "dpop" ? "DPoP" : "Bearer";
    const token = match[2]!;
    const verified = verifier.verify(token);
    if (!verified.ok) {
      logger.debug("access token refused", { reason: verified.reason });
      return { code: "partner.token_invalid" };
    }
    const jkt = verified.claims.cnf?.jkt;
    // A bound token copied without its key is worth nothing: never accepted as Bearer (RFC 9449 section 7.2).
    if (jkt === undefined) return scheme === "Bearer" ? verified.claims : { code: "partner.dpop_token_unbound" };
    if (scheme === "Bearer") return { code: "partner.dpop_bound_token" };
    return (await checkProof(credentials, token, jkt)) ?? verified.claims;
  };
}

/**
 * The gateway's DPoP setup: the replay cache in the shared store (`store`, Redis in production: a proof used at one
 * front is refused at every other), and server nonces from the KEK when DPOP_NONCES is on (any front accepts them).
 */
export function partnerDpopOptions(options: {
  store: KeyValueStore;
  clock: Clock;
  kek: Buffer;
  nonces: boolean;
  publicBaseUrl: string;
}): NonNullable<TokenAuthOptions["dpop"]> {
  const { store, clock } = options;
  const nonces = options.nonces ? createDpopNonces({ key: dpopNonceKey(options.kek), clock }) : undefined;
  return { verifier: createDpopVerifier({ store, clock, nonces }), nonces, publicBaseUrl: options.publicBaseUrl };
}
