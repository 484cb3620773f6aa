// The token kit: access tokens (sign, verify), their signing keys (store, rotation, JWKS), the key ring verifiers
// use, the key-encryption key, and the scope bundles. Import from here.
export * from "./access-token.js";
export { createKeyRing, type KeyRing, type KeyRingOptions } from "./key-ring.js";
export { loadKeyEncryptionKey } from "./key-encryption.js";
export { scopesForProduct, allScopes } from "../credential/scopes.js";
export {
  createSigningKeyStore,
  jwksCacheSeconds,
  keyRefreshSeconds,
  signingKeyTiming,
  type RotationResult,
  type SigningKeyStore,
} from "./signing-keys.js";
