// RFC 8414 authorization server metadata, from the configuration: what oauth4webapi and other clients discover
// (with RFC 9207's flag that authorization responses name their issuer).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetAuthorizationServerMetadataResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { Config } from "../config/config.js";
import { allScopes } from "../credential/index.js";
import { dpopSigningAlgorithms } from "./dpop-proof.js";

/** The metadata document. client_credentials is listed: the endpoint accepts it with sandbox credentials. */
export function authorizationServerMetadata(
  config: Config,
): MessageInitShape<typeof GetAuthorizationServerMetadataResponseSchema> {
  const authMethods = ["client_secret_basic", "client_secret_post"];
  return {
    issuer: config.urls.base,
    authorizationEndpoint: `${config.urls.auth}/oauth/authorize`,
    tokenEndpoint: `${config.urls.base}v1/oauth/token`,
    revocationEndpoint: `${config.urls.base}v1/oauth/revoke`,
    jwksUri: `${config.urls.base}.well-known/jwks.json`,
    grantTypesSupported: ["authorization_code", "refresh_token", "client_credentials"],
    responseTypesSupported: ["code"],
    responseModesSupported: ["query"],
    codeChallengeMethodsSupported: ["S256"],
    tokenEndpointAuthMethodsSupported: authMethods,
    revocationEndpointAuthMethodsSupported: authMethods,
    scopesSupported: allScopes(),
    // RFC 9207 section 3: the authorization responses carry `iss` (src/grant/authorization.ts).
    authorizationResponseIssParameterSupported: true,
    // RFC 9126 section 5; required per app only (src/grant/authorization.ts), never of every client.
    pushedAuthorizationRequestEndpoint: `${config.urls.base}v1/oauth/par`,
    requirePushedAuthorizationRequests: false,
    // RFC 9449 section 5.1: what a DPoP proof may be signed with.
    dpopSigningAlgValuesSupported: [...dpopSigningAlgorithms],
  };
}
