// Client authentication for the OAuth endpoints: the credential owner checks the id and secret (a secret in its
// rotation overlap works; wrong id, wrong secret and revoked credentials are alike developer.invalid_client) and
// answers the plain record the grants use. This module names that contract and the allowlist check on it.
import { addressAllowed, type VerifiedClient } from "../credential/index.js";

export type { VerifiedClient };

/** Checks a client id and secret; rejects with developer.invalid_client (the credential owner's verifyClientCredentials). */
export type VerifyClient = (clientId: string, clientSecret: string) => Promise<VerifiedClient>;

/**
 * Whether the authenticated client may be used from `clientAddress` (the caller's address as the front saw it):
 * always without an allowlist; with one, only from a listed address. An address that is not an IP (an internal
 * caller, which has none) is never on a list, so an allowlisted credential fails closed there.
 */
export function clientAddressAllowed(client: VerifiedClient, clientAddress: string): boolean {
  return client.allowedIps.length === 0 || addressAllowed(client.allowedIps, clientAddress);
}
