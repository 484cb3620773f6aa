// RFC 8414 authorization server metadata, from the configuration: what oauth4webapi and other clients discover.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetAuthorizationServerMetadataResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { Config } from "../config/config.js";
import { allScopes } from "../credential/index.js";

/** The metadata document. client_credentials is listed: the endpoint accepts it with sandbox credentials. */
export function authorizationServerMetadata(config: Config): MessageInitShape<typeof GetAuthorizationServerMetadataResponseSchema> {
  const authMethods = ["client_secret_basic", "client_secret_post"];
  return {
    issuer: config.BASE_URL,
    authorizationEndpoint: `${config.AUTH_URL}/oauth/authorize`,
    tokenEndpoint: `${config.BASE_URL}v1/oauth/token`,
    revocationEndpoint: `${config.BASE_URL}v1/oauth/revoke`,
    jwksUri: `${config.BASE_URL}.well-known/jwks.json`,
    grantTypesSupported: ["authorization_code", "refresh_token", "client_credentials"],
    responseTypesSupported: ["code"],
    responseModesSupported: ["query"],
    codeChallengeMethodsSupported: ["S256"],
    tokenEndpointAuthMethodsSupported: authMethods,
    revocationEndpointAuthMethodsSupported: authMethods,
    scopesSupported: allScopes(),
  };
}
