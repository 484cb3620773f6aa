// grant_type=client_credentials (RFC 6749 section 4.4) at /v1/oauth/token: sandbox credentials only, with the rules
// of POST /v1/token (src/token/sandbox-tokens.ts): merchant_id optional
// only when the organization has exactly one active sandbox merchant, the same access token. Production FULL and
// ONLINE_ORDER credentials get developer.use_oauth, ADSR ones developer.use_api_key (400 unauthorized_client).
// The endpoint's own throttles (per client id and per source address) apply, not the /v1/token one.
// The answer is the OAuth shape without a refresh token (RFC 6749 section 4.4.3), with merchant_id, since the
// merchant may have been inferred.
import type { GrantType } from "./grant-type.js";

export const grantType = "client_credentials";
export const parameters = [] as const;

export const handle: GrantType["handle"] = async (request, client, context, dpopJkt) => {
  const { sandbox, issuer } = context;
  const merchantId = request.merchantId === undefined ? undefined : Number(request.merchantId);
  const minted = await sandbox.mint(client, merchantId, dpopJkt);
  return {
    ...issuer.commonFields(minted.accessToken, client, dpopJkt),
    merchantId: BigInt(minted.merchant.company_id),
  };
};

export const clientCredentials: GrantType = { grantType, parameters, handle };
