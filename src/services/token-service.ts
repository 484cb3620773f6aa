// TokenService: OAuth grants, revocation, sandbox client credentials and the published JWKS.
import type { ServiceImpl } from "@connectrpc/connect";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { ServiceContext } from "./dependencies.js";
import { notBuilt } from "./not-built.js";

export function createTokenService(_context: ServiceContext): ServiceImpl<typeof TokenService> {
  return {
    exchangeToken: notBuilt(TokenService, "ExchangeToken"),
    revokeToken: notBuilt(TokenService, "RevokeToken"),
    mintSandboxToken: notBuilt(TokenService, "MintSandboxToken"),
    getJwks: notBuilt(TokenService, "GetJwks"),
    getAuthorizationServerMetadata: notBuilt(TokenService, "GetAuthorizationServerMetadata"),
    rotateSigningKey: notBuilt(TokenService, "RotateSigningKey"),
  };
}
