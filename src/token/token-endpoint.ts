// POST /v1/oauth/token as a readable list of named steps: throttle the source address, know the grant type, check
// its parameters, authenticate the client, check its IP allowlist, throttle the client (and a presented code or
// refresh token that already got invalid_grant), check the client may use OAuth, run the grant, count invalid_grant
// answers per credential. A DPoP proof (RFC 9449 section 5) is verified once the client has authenticated: the
// grant binds what it issues to the proof's key. The client is throttled only once it has proved who it is, from an address it allows:
// its id is public, and anyone could spend its budget.
import type { ExchangeTokenRequest } from "../../gen/partnerapi/v1/token_service_pb.js";
import { entryOf, readServiceError, serviceError } from "../errors/index.js";
import type { TokenResponse } from "./issuer.js";
import { clientAddressAllowed, type VerifiedClient, type VerifyClient } from "./client-verifier.js";
import { grantTypes, type GrantContext, type GrantType } from "./grants/index.js";
import { parameterFields } from "./grants/grant-type.js";
import type { TokenThrottle } from "./throttle.js";
import type { TokenRequestDpop } from "./dpop-at-token-endpoint.js";

export interface TokenEndpointDeps {
  grants: GrantContext;
  verifyClient: VerifyClient;
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

  const throttleAddress = (address: string) => deps.throttle.admitAddress(address);

  /** The code or refresh token the request presents, if its grant has one. */
  const presented = (request: ExchangeTokenRequest, grant: GrantType) =>
    grant.credential ? request[parameterFields[grant.credential]] : undefined;

  const throttleClient = (client: VerifiedClient, request: ExchangeTokenRequest, grant: GrantType) =>
    deps.throttle.admitClient(client.clientId, presented(request, grant));

  const knowGrantType = (request: ExchangeTokenRequest): GrantType => {
    const grant = grantTypes.get(request.grantType);
    if (!grant) throw serviceError(domain, "oauth.unsupported_grant_type");
    return grant;
  };

  const checkParameters = (request: ExchangeTokenRequest, grant: GrantType) => {
    const missing: string[] = [];
    if (!request.clientId) missing.push("client_id");
    if (!request.clientSecret) missing.push("client_secret");
    for (const parameter of grant.parameters) if (!request[parameterFields[parameter]]) missing.push(parameter);
    if (missing.length > 0) throw serviceError(domain, "oauth.invalid_request", { fields: missing.join(", ") });
  };

  const authenticateClient = (request: ExchangeTokenRequest) =>
    deps.verifyClient(request.clientId, request.clientSecret);

  /** The credential's allowlist, as on partner routes (oauth.ip_denied: 401 invalid_client in the OAuth body). */
  const checkAddress = (client: VerifiedClient, address: string) => {
    if (!clientAddressAllowed(client, address)) throw serviceError(domain, "oauth.ip_denied");
  };

  /** Archived apps mint nothing; a production credential needs an approved app (it only exists after approval). */
  const checkClientMayUseOAuth = (client: VerifiedClient) => {
    if (client.appState === "ARCHIVED") throw serviceError(domain, "developer.app_archived");
    if (client.environment === "PRODUCTION" && client.appState !== "APPROVED")
      throw serviceError(domain, "developer.app_not_approved");
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
      await throttleAddress(clientAddress);
      const grant = knowGrantType(request);
      checkParameters(request, grant);
      const client = await authenticateClient(request);
      checkAddress(client, clientAddress);
      await throttleClient(client, request, grant);
      checkClientMayUseOAuth(client);
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
