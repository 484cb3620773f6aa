// Client authentication of the OAuth endpoints that mint or hold something for a client (POST /v1/oauth/token and
// POST /v1/oauth/par): the source address throttled, the id and secret checked, the credential's IP allowlist, the
// client throttled once it proved who it is (its id is public, and anyone could spend its budget), and whether
// its app may use OAuth at all. One implementation, so both endpoints refuse alike.
import { serviceError } from "../errors/index.js";
import { clientAddressAllowed, type VerifiedClient, type VerifyClient } from "./client-verifier.js";
import type { TokenThrottle } from "./throttle.js";

export interface ClientAuthenticationDeps {
  verifyClient: VerifyClient;
  throttle: TokenThrottle;
  domain: string;
}

export function createClientAuthentication(deps: ClientAuthenticationDeps) {
  const { domain } = deps;

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

  return {
    /** The first step of every request, before anything is read: the source address's budget. */
    admitAddress: (address: string) => deps.throttle.admitAddress(address),

    /** The client fields a request left out (listed with the endpoint's own in one oauth.invalid_request). */
    missingCredentials: (clientId: string, clientSecret: string): string[] => [
      ...(clientId ? [] : ["client_id"]),
      ...(clientSecret ? [] : ["client_secret"]),
    ],

    /**
     * The client, authenticated from an address its allowlist admits, within its budget (and that of `presented`,
     * a code or refresh token that already got invalid_grant), of an app that may use OAuth.
     */
    async authenticate(
      clientId: string,
      clientSecret: string,
      address: string,
      presented?: string,
    ): Promise<VerifiedClient> {
      const client = await deps.verifyClient(clientId, clientSecret);
      checkAddress(client, address);
      await deps.throttle.admitClient(client.clientId, presented);
      checkClientMayUseOAuth(client);
      return client;
    },
  };
}

export type ClientAuthentication = ReturnType<typeof createClientAuthentication>;
