// What a successful verification answers (./verification.ts): plain records other owners and edges use, and what
// this owner's verification caches hold.
import type { CredentialEnvironment, Product } from "./products.js";

/** The app a verified credential belongs to, and the credential's own allowlist. */
export interface VerifiedApp {
  appId: string;
  organizationId: number;
  product: Product;
  environment: CredentialEnvironment;
  /** DRAFT, IN_REVIEW, APPROVED, REJECTED or ARCHIVED. */
  appState: string;
  /** The credential's allowlist (addresses and CIDR ranges); empty when it has none. */
  allowedIps: string[];
}

/** An authenticated client id: what a token is minted from. */
export interface VerifiedClient extends VerifiedApp {
  clientId: string;
  /** The app requires DPoP (RFC 9449): its tokens are minted only with a proof. */
  requireDpop: boolean;
}

/** A verified API key. */
export interface VerifiedKey extends VerifiedApp {
  apiKeyId: number;
}
