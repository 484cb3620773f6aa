// Client authentication for the OAuth endpoints: the CredentialService checks the id and secret (a secret in its
// rotation overlap works; wrong id, wrong secret and revoked credentials are alike developer.invalid_client).
// This module turns its answer into the plain record the grants use.
import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { inProcessContext } from "../runtime/in-process-context.js";
import {
  CredentialService,
  Environment,
  Product as ProductEnum,
  VerifyClientCredentialsRequestSchema,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { CredentialEnvironment } from "../credential/secrets.js";
import type { Product } from "./access-token.js";

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

const productNames: Record<ProductEnum, Product | undefined> = {
  [ProductEnum.UNSPECIFIED]: undefined,
  [ProductEnum.FULL]: "FULL",
  [ProductEnum.ONLINE_ORDER]: "ONLINE_ORDER",
  [ProductEnum.ADSR]: "ADSR",
};

/** A VerifyClient calling the CredentialService implementation in process. */
export function clientVerifier(credentials: ServiceImpl<typeof CredentialService>): VerifyClient {
  const method = CredentialService.method.verifyClientCredentials;
  return async (clientId, clientSecret) => {
    const context = inProcessContext(CredentialService, method);
    const answer = await credentials.verifyClientCredentials(create(VerifyClientCredentialsRequestSchema, { clientId, clientSecret }), context);
    const app = answer.app!;
    const product = productNames[app.product!];
    if (!product) throw new Error(`client ${clientId} has an app without a product`);
    return {
      clientId,
      appId: app.appId!,
      organizationId: Number(app.organizationId),
      product,
      environment: app.environment === Environment.PRODUCTION ? "PRODUCTION" : "SANDBOX",
      appState: app.appState ?? "",
      allowedIps: [...(app.allowedIps ?? [])],
    };
  };
}
