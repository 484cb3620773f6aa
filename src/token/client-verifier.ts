// Client authentication for the OAuth endpoints: the CredentialService checks the id and secret (a secret in its
// rotation overlap works; wrong id, wrong secret and revoked credentials are alike developer.invalid_client).
// This module turns its answer into the plain record the grants use.
import type { ServiceImpl } from "@connectrpc/connect";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import {
  addressAllowed,
  environmentName,
  productName,
  type CredentialEnvironment,
  type Product,
} from "../credential/index.js";
import { createInProcessClient } from "../runtime/service-caller.js";

/** An authenticated client and what a token is minted from. */
export interface VerifiedClient {
  clientId: string;
  appId: string;
  organizationId: number;
  product: Product;
  environment: CredentialEnvironment;
  /** DRAFT, IN_REVIEW, APPROVED, REJECTED or ARCHIVED. */
  appState: string;
  /** The credential's allowlist; empty when it has none. */
  allowedIps: string[];
}

/** Checks a client id and secret; rejects with developer.invalid_client. */
export type VerifyClient = (clientId: string, clientSecret: string) => Promise<VerifiedClient>;

/**
 * Whether the authenticated client may be used from `clientAddress` (the caller's address as the front saw it):
 * always without an allowlist; with one, only from a listed address. An address that is not an IP (an internal
 * caller, which has none) is never on a list, so an allowlisted credential fails closed there.
 */
export function clientAddressAllowed(client: VerifiedClient, clientAddress: string): boolean {
  return client.allowedIps.length === 0 || addressAllowed(client.allowedIps, clientAddress);
}

/** A VerifyClient calling the CredentialService implementation in process. */
export function clientVerifier(credentials: ServiceImpl<typeof CredentialService>): VerifyClient {
  const client = createInProcessClient(CredentialService, credentials);
  return async (clientId, clientSecret) => {
    const { app } = await client.verifyClientCredentials({ clientId, clientSecret });
    const product = productName(app!.product);
    if (!product) throw new Error(`client ${clientId} has an app without a product`);
    return {
      clientId,
      appId: app!.appId!,
      organizationId: Number(app!.organizationId),
      product,
      environment: environmentName(app!.environment),
      appState: app!.appState ?? "",
      allowedIps: [...(app!.allowedIps ?? [])],
    };
  };
}
