// Minting: the access token (RS256 at+jwt with the spec's claims plus iss and client_id) and the token response
// with exactly the spec's fields. The signing key is fetched before any transaction (it may read the database); the
// token is signed (on the thread pool) before the write that rotates a refresh token, or inside the transaction of
// a code exchange or a grace replay, so a response is returned only once the rotation it reports has committed.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ExchangeTokenResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { Config } from "../config/config.js";
import { epochSeconds, type Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import {
  appTokenAudience,
  signAccessToken,
  signAccessTokenAsync,
  type AccessTokenClaims,
  type SigningKey,
} from "./access-token.js";
import { scopesForProduct } from "../credential/index.js";
import type { SigningKeyStore } from "./signing-keys.js";
import type { VerifiedClient } from "./client-verifier.js";

export type TokenResponse = MessageInitShape<typeof ExchangeTokenResponseSchema>;

/** The fields every token response has, whichever endpoint and grant (spec, "Token response": present on all). */
export interface CommonTokenFields {
  accessToken: string;
  /** "DPoP" for a token bound to a key (RFC 9449 section 5), "Bearer" otherwise. */
  tokenType: "Bearer" | "DPoP";
  expiresIn: number;
  scope: string;
  apiBaseUrl: string;
}

/** The merchant a token is for, as the directory knows it. */
export interface TokenMerchant {
  companyId: number;
  region: string;
}

export interface TokenIssuer {
  /** The key that signs now; call before opening a transaction. */
  signingKey(): Promise<SigningKey>;
  /**
   * Signs an access token for `client` and `merchant` on the thread pool; what every mint uses. With `dpopJkt` the
   * token is bound to that DPoP key (`cnf.jkt`, RFC 9449 section 6.1).
   */
  mintAccessToken(key: SigningKey, client: VerifiedClient, merchant: TokenMerchant, dpopJkt?: string): Promise<string>;
  /** The same token signed on the calling thread (fixtures and tests; a request path uses mintAccessToken). */
  accessToken(key: SigningKey, client: VerifiedClient, merchant: TokenMerchant): string;
  /** The fields of every token response: the access token, its type, its lifetime, the scope bundle, api_base_url. */
  commonFields(accessToken: string, client: VerifiedClient, dpopJkt?: string): CommonTokenFields;
  /** The OAuth token response: access token, the refresh token, and the spec's fixed fields. */
  response(
    accessToken: string,
    client: VerifiedClient,
    merchant: TokenMerchant,
    refreshToken: string,
    dpopJkt?: string,
  ): TokenResponse;
}

export function createTokenIssuer(options: {
  keys: SigningKeyStore;
  config: Config;
  clock: Clock;
  ids: IdSource;
}): TokenIssuer {
  const { keys, config, clock, ids } = options;
  const commonFields = (accessToken: string, client: VerifiedClient, dpopJkt?: string): CommonTokenFields => ({
    accessToken,
    tokenType: dpopJkt === undefined ? "Bearer" : "DPoP",
    expiresIn: config.lifetimes.accessToken,
    scope: scopesForProduct(client.product).join(" "),
    apiBaseUrl: `${config.urls.base}v1/`,
  });
  const claims = (client: VerifiedClient, merchant: TokenMerchant, dpopJkt?: string): AccessTokenClaims => {
    const iat = epochSeconds(clock);
    return {
      iss: config.urls.base,
      aud: appTokenAudience,
      sub: client.appId,
      client_id: client.clientId,
      orgId: client.organizationId,
      companyId: merchant.companyId,
      region: merchant.region,
      product: client.product,
      scopes: scopesForProduct(client.product),
      env: client.environment,
      ...(client.allowedIps.length > 0 ? { allowedIps: client.allowedIps } : {}),
      jti: ids.uuid(),
      iat,
      exp: iat + config.lifetimes.accessToken,
      ...(dpopJkt === undefined ? {} : { cnf: { jkt: dpopJkt } }),
    };
  };
  return {
    signingKey: () => keys.signingKey(),
    mintAccessToken: (key, client, merchant, dpopJkt) => signAccessTokenAsync(key, claims(client, merchant, dpopJkt)),
    accessToken: (key, client, merchant) => signAccessToken(key, claims(client, merchant)),
    commonFields,
    response(accessToken, client, merchant, refreshToken, dpopJkt) {
      return {
        ...commonFields(accessToken, client, dpopJkt),
        refreshToken,
        refreshTokenExpiresIn: config.lifetimes.refreshToken,
        merchantId: BigInt(merchant.companyId),
      };
    },
  };
}
