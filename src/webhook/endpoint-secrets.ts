// An endpoint's signing key at rest: sealed under the key-encryption key (AES-256-GCM, as the token signing keys
// are: src/token/key-encryption.ts), bound to the endpoint's id so a sealed key moved to another row fails to open.
import { seal, unseal } from "../token/index.js";

const context = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export function sealEndpointKey(kek: Buffer, endpointId: string, key: Buffer): Buffer {
  return seal(kek, key, context(endpointId));
}

export function openEndpointKey(kek: Buffer, endpointId: string, sealed: Uint8Array): Buffer {
  return unseal(kek, sealed, context(endpointId));
}
