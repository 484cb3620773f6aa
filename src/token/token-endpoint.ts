// POST /v1/oauth/token as a readable list of named steps: throttle, know the grant type, check its parameters,
// authenticate the client, check the client may use OAuth, run the grant, count invalid_grant answers.
import type { ExchangeTokenRequest } from "../../gen/partnerapi/v1/token_service_pb.js";
import { entryOf, readServiceError, serviceError } from "../errors/index.js";
import type { TokenResponse } from "./issuer.js";
import type { VerifiedClient, VerifyClient } from "./client-verifier.js";
import { grantTypes, type GrantContext, type GrantType } from "./grants/index.js";
import { parameterFields } from "./grants/grant-type.js";
import type { TokenThrottle } from "./throttle.js";

export interface TokenEndpointDeps {
  grants: GrantContext;
  verifyClient: VerifyClient;
  throttle: TokenThrottle;
}

export interface TokenEndpoint {
  exchange(request: ExchangeTokenRequest, clientAddress: string): Promise<TokenResponse>;
}

export function createTokenEndpoint(deps: TokenEndpointDeps): TokenEndpoint {
  const { domain } = deps.grants;

  const throttle = (request: ExchangeTokenRequest, address: string) => deps.throttle.admit(request.clientId || "-", address);

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

  const authenticateClient = (request: ExchangeTokenRequest) => deps.verifyClient(request.clientId, request.clientSecret);

  /** Archived apps mint nothing; a production credential needs an approved app (it only exists after approval). */
  const checkClientMayUseOAuth = (client: VerifiedClient) => {
    if (client.appState === "ARCHIVED") throw serviceError(domain, "developer.app_archived");
    if (client.environment === "PRODUCTION" && client.appState !== "APPROVED") throw serviceError(domain, "developer.app_not_approved");
  };

  const countInvalidGrant = async (request: ExchangeTokenRequest, error: unknown) => {
    const { code } = readServiceError(error);
    if (entryOf(code).oauth === "invalid_grant") await deps.throttle.invalidGrant(request.clientId);
  };

  return {
    async exchange(request, clientAddress) {
      await throttle(request, clientAddress);
      const grant = knowGrantType(request);
      checkParameters(request, grant);
      const client = await authenticateClient(request);
      checkClientMayUseOAuth(client);
      try {
        return await grant.handle(request, client, deps.grants);
      } catch (error) {
        await countInvalidGrant(request, error);
        throw error;
      }
    },
  };
}
