// POST /v1/oauth/token as a readable list of named steps: throttle the source address, know the grant type, check
// its parameters, authenticate the client (./client-authentication.ts: id and secret, IP allowlist, the client's
// budget and that of a presented code or refresh token that already got invalid_grant, whether it may use OAuth),
// run the grant, count invalid_grant answers per credential.
import type { ExchangeTokenRequest } from "../../gen/partnerapi/v1/token_service_pb.js";
import { entryOf, readServiceError, serviceError } from "../errors/index.js";
import type { TokenResponse } from "./issuer.js";
import type { VerifiedClient } from "./client-verifier.js";
import type { ClientAuthentication } from "./client-authentication.js";
import { grantTypes, type GrantContext, type GrantType } from "./grants/index.js";
import { parameterFields } from "./grants/grant-type.js";
import type { TokenThrottle } from "./throttle.js";

export interface TokenEndpointDeps {
  grants: GrantContext;
  /** Shared with POST /v1/oauth/par (./client-authentication.ts). */
  clients: ClientAuthentication;
  throttle: TokenThrottle;
}

export interface TokenEndpoint {
  exchange(request: ExchangeTokenRequest, clientAddress: string): Promise<TokenResponse>;
}

export function createTokenEndpoint(deps: TokenEndpointDeps): TokenEndpoint {
  const { domain } = deps.grants;

  /** The code or refresh token the request presents, if its grant has one. */
  const presented = (request: ExchangeTokenRequest, grant: GrantType) =>
    grant.credential ? request[parameterFields[grant.credential]] : undefined;

  const knowGrantType = (request: ExchangeTokenRequest): GrantType => {
    const grant = grantTypes.get(request.grantType);
    if (!grant) throw serviceError(domain, "oauth.unsupported_grant_type");
    return grant;
  };

  const checkParameters = (request: ExchangeTokenRequest, grant: GrantType) => {
    const missing = deps.clients.missingCredentials(request.clientId, request.clientSecret);
    for (const parameter of grant.parameters) if (!request[parameterFields[parameter]]) missing.push(parameter);
    if (missing.length > 0) throw serviceError(domain, "oauth.invalid_request", { fields: missing.join(", ") });
  };

  const countInvalidGrant = async (
    client: VerifiedClient,
    request: ExchangeTokenRequest,
    grant: GrantType,
    error: unknown,
  ) => {
    const { code } = readServiceError(error);
    const credential = presented(request, grant);
    if (entryOf(code).oauth === "invalid_grant" && credential !== undefined)
      await deps.throttle.invalidGrant(client.clientId, credential);
  };

  return {
    async exchange(request, clientAddress) {
      await deps.clients.admitAddress(clientAddress);
      const grant = knowGrantType(request);
      checkParameters(request, grant);
      const client = await deps.clients.authenticate(
        request.clientId,
        request.clientSecret,
        clientAddress,
        presented(request, grant),
      );
      try {
        return await grant.handle(request, client, deps.grants);
      } catch (error) {
        await countInvalidGrant(client, request, grant, error);
        throw error;
      }
    },
  };
}
