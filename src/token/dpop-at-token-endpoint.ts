// The DPoP proof of a token request (RFC 9449 section 5): verified against the endpoint's public URL and POST, its
// key the one the issued tokens are bound to. Absent: the tokens stay Bearer. Every refusal is the endpoint family's
// own code (the OAuth body's invalid_dpop_proof / use_dpop_nonce at /v1/oauth/token, the developer envelope at
// POST /v1/token); a replay cache that does not answer refuses the request (503), never lets the proof through.
import { serviceError } from "../errors/index.js";
import type { Logger } from "../runtime/logger.js";
import { DpopReplayCacheUnavailable, type DpopNonces, type DpopVerifier } from "./dpop-proof.js";

/** Which endpoint's codes a refusal uses. */
export type TokenEndpointFamily = "oauth" | "developer";

export interface TokenRequestDpop {
  /**
   * The key (RFC 7638 thumbprint) of the request's DPoP proof, checked for a POST to `url`; undefined when the request
   * sent none. `header` is the DPoP header as the service received it (repeated headers joined by commas).
   */
  keyOf(header: string | null | undefined, url: string, family: TokenEndpointFamily): Promise<string | undefined>;
}

export function createTokenRequestDpop(options: {
  verifier: DpopVerifier;
  nonces?: DpopNonces;
  domain: string;
  logger: Logger;
}): TokenRequestDpop {
  const { verifier, nonces, domain, logger } = options;
  return {
    async keyOf(header, url, family) {
      if (header === null || header === undefined) return undefined;
      // A JWS never holds a comma: one that does is several DPoP headers joined (refused, section 4.3 check 1).
      const proof = header.includes(",") ? header.split(",").map((part) => part.trim()) : header;
      let result: Awaited<ReturnType<DpopVerifier["verify"]>>;
      try {
        result = await verifier.verify({ proof, method: "POST", url });
      } catch (error) {
        if (!(error instanceof DpopReplayCacheUnavailable)) throw error;
        logger.warn("DPoP replay cache unavailable: token request refused", { error: String(error.cause) });
        throw serviceError(domain, "server.unavailable", {}, error);
      }
      if (result.ok) return result.jkt;
      logger.info("DPoP proof refused at the token endpoint", { reason: result.reason });
      if (result.reason === "nonce_required" && nonces)
        throw serviceError(domain, `${family}.dpop_nonce_required`, { nonce: nonces.current() });
      throw serviceError(domain, `${family}.dpop_proof_invalid`);
    },
  };
}
