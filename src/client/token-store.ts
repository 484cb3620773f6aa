// Where a merchant's tokens are kept. The client reads the store before every renewal and writes the newest
// refresh token to it before the access token that came with it is used (spec, Authentication 9).

/** What is stored for one connected merchant. Plain JSON: a store may serialise it as it likes. */
export interface MerchantTokens {
  merchantId: number;
  /** `oauth`: renewed with the refresh token. `sandbox`: renewed by minting again at POST /v1/token. */
  kind: "oauth" | "sandbox";
  accessToken: string;
  /** When the access token expires, ms since the epoch (its JWT `exp`). */
  accessTokenExpiresAt: number;
  /** `DPoP` when the tokens are bound to the client's DPoP key (sent as `Authorization: DPoP` with a proof). */
  tokenType?: "Bearer" | "DPoP" | undefined;
  /** The RFC 7638 thumbprint of the key DPoP-bound tokens are bound to: only that key can use or refresh them. */
  dpopJkt?: string | undefined;
  /** The newest refresh token (OAuth only). It replaces the one presented, which is finished. */
  refreshToken?: string | undefined;
  scope: string;
  /** The token response's `api_base_url` (with trailing slash): every partner URL is built from it. */
  apiBaseUrl: string;
  /**
   * Set when the token endpoint answered `invalid_grant` for this connection: the code it gave
   * (`oauth.grant_revoked`, `oauth.refresh_reused`, ...). The merchant must connect again; nothing is renewed.
   */
  reconnectRequired?: string | undefined;
}

/**
 * Per-merchant storage of tokens. `put` must be durable when it resolves: the client uses a new access token only
 * after `put` of the refresh token that came with it has resolved, and a `put` that rejects stops the call. Keep one
 * store (or one key prefix) per app: keys are merchant ids only.
 */
export interface TokenStore {
  get(merchantId: number): Promise<MerchantTokens | undefined>;
  put(merchantId: number, tokens: MerchantTokens): Promise<void>;
}

/** The default store: a Map in this process. Tokens are gone at exit; use a persistent store in production. */
export function createMemoryTokenStore(): TokenStore {
  const entries = new Map<number, MerchantTokens>();
  return {
    async get(merchantId) {
      const entry = entries.get(merchantId);
      return entry === undefined ? undefined : { ...entry };
    },
    async put(merchantId, tokens) {
      entries.set(merchantId, { ...tokens });
    },
  };
}
