// The token owner's public surface (TokenService: the token endpoint, access tokens, signing keys, refresh
// families): what other folders may use of src/token/, and the only way in.
export {
  appTokenAudience,
  createAccessTokenVerifier,
  signJwt,
  signJwtAsync,
  verifyJwtSignature,
  type AccessTokenClaims,
  type AccessTokenVerifier,
  type PublicKeyLookup,
  type SigningKey,
} from "./access-token.js";
export { loadKeyEncryptionKey, seal, unseal } from "./key-encryption.js";
export { clientAddressAllowed, type VerifiedClient, type VerifyClient } from "./client-verifier.js";
export { createKeyRing } from "./key-ring.js";
export { createTokenService } from "./service.js";
export {
  createDpopVerifier,
  dpopSigningAlgorithms,
  DpopReplayCacheUnavailable,
  type DpopNonces,
  type DpopVerifier,
} from "./dpop-proof.js";
export { createDpopNonces, dpopNonceKey } from "./dpop-nonces.js";
export { createSigningKeyStore } from "./signing-keys.js";
