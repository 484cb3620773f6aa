// POST /v1/oauth/token as a readable list of named steps: throttle the source address, know the grant type, check
// its parameters, authenticate the client (./client-authentication.ts: id and secret, IP allowlist, the client's
// budget and that of a presented code or refresh token that already got invalid_grant, whether it may use OAuth),
// verify a DPoP proof (RFC 9449 section 5: the grant binds what it issues to the proof's key), run the grant, count
// invalid_grant answers per credential.
import type { ExchangeTokenRequest } from "../../gen/partnerapi/v1/token_service_pb.js";
import { entryOf, readServiceError, serviceError } from "../errors/index.js";
import type { TokenResponse } from "./issuer.js";
import type { VerifiedClient } from "./client-verifier.js";
import type { ClientAuthentication } from "./client-authentication.js";
import { grantTypes, type GrantContext, type GrantType } from "./grants/index.js";
import { parameterFields } from "./grants/grant-type.js";
import type { TokenThrottle } from "./throttle.js";
import type { TokenRequestDpop } from "./dpop-at-token-endpoint.js";

export interface TokenEndpointDeps {
  grants: GrantContext;
  /** Shared with POST /v1/oauth/par (./client-authentication.ts). */
  clients: ClientAuthentication;
  throttle: TokenThrottle;
  dpop: TokenRequestDpop;
}

/** The request's DPoP header (null or undefined: none) and the endpoint's public URL its proof must name. */
export interface TokenRequestProof {
  header: string | null | undefined;
  url: string;
}

export interface TokenEndpoint {
  exchange(request: ExchangeTokenRequest, clientAddress: string, proof: TokenRequestProof): Promise<TokenResponse>;
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
    async exchange(request, clientAddress, proof) {
      await deps.clients.admitAddress(clientAddress);
      const grant = knowGrantType(request);
      checkParameters(request, grant);
      const client = await deps.clients.authenticate(
        request.clientId,
        request.clientSecret,
        clientAddress,
        presented(request, grant),
      );
      const dpopJkt = await deps.dpop.keyOf(proof.header, proof.url, "oauth");
      // An app that requires DPoP gets no Bearer token, by any grant.
      if (client.requireDpop && dpopJkt === undefined) throw serviceError(domain, "oauth.dpop_required");
      try {
        return await grant.handle(request, client, deps.grants, dpopJkt);
      } catch (error) {
        await countInvalidGrant(client, request, grant, error);
        throw error;
      }
    },
  };
}
