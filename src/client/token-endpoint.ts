// The token endpoints of the spec, one function per request: the authorization-code exchange and the refresh at
// POST /v1/oauth/token, revocation at POST /v1/oauth/revoke, sandbox client credentials at POST /v1/token, and
// pushed authorization requests at POST /v1/oauth/par (RFC 9126). A DPoP client's token and PAR requests carry a
// proof (the transport signs it): the tokens, and a pushed request's code, are then bound to its key.
// No state here: the connections module decides when to call them and what to store.

import { clientError } from "./errors.js";
import type { Transport } from "./transport.js";

/** The token response of the spec (Resources: Token response). */
export interface TokenResponse {
  access_token: string;
  /** `Bearer`, or `DPoP` for a token bound to the client's DPoP key (sent as `Authorization: DPoP`). */
  token_type: string;
  expires_in: number;
  /** OAuth grants only: the newest refresh token, replacing the one presented. */
  refresh_token?: string;
  refresh_token_expires_in?: number;
  scope: string;
  /** OAuth grants only: the connected company. */
  merchant_id?: number;
  /** Base of every partner URL, with trailing slash. */
  api_base_url: string;
}

export interface TokenEndpoint {
  /** Exchanges an authorization code (single use: never retried after an answer, only after no response). */
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier?: string | undefined }): Promise<TokenResponse>;
  /** Rotates a refresh token. Safe to retry: a replay inside the server's grace window answers the same successor. */
  refresh(refreshToken: string): Promise<TokenResponse>;
  /** RFC 7009: `{ ok: true }` for any token once the client authenticates. */
  revoke(refreshToken: string): Promise<void>;
  /** Sandbox client credentials (POST /v1/token); `merchantId` may be left out when the organization has one sandbox merchant. */
  mintSandbox(merchantId?: number): Promise<TokenResponse>;
  /**
   * RFC 9126: pushes an authorization request's parameters (`response_type`, `redirect_uri`, `state`,
   * `code_challenge`, ...); the answer's `request_uri` goes on the authorize URL beside `client_id`, once.
   */
  pushAuthorization(parameters: Record<string, string>): Promise<PushedAuthorization>;
}

/** POST /v1/oauth/par's answer (RFC 9126 section 2.2). */
export interface PushedAuthorization {
  /** `urn:ietf:params:oauth:request_uri:…`: single use, for this client only. */
  request_uri: string;
  /** Seconds left to send the merchant's browser to the authorize URL. */
  expires_in: number;
}

export interface TokenEndpointOptions {
  transport: Transport;
  /** {base_url}: the token endpoints are at /v1/... of it. */
  baseUrl: string;
  clientId: string | undefined;
  clientSecret: string | undefined;
  acceptLanguage?: string | undefined;
  /** Whether token and PAR requests carry a DPoP proof (the client was given the `dpop` option). */
  dpop?: boolean | undefined;
}

/** Every field of TokenResponse has its type (the optional ones when present): the answer is what the type says. */
function isTokenResponse(body: Record<string, unknown>): body is Record<string, unknown> & TokenResponse {
  const optional = (name: string, type: "string" | "number") => body[name] === undefined || typeof body[name] === type;
  return (
    typeof body["access_token"] === "string" &&
    typeof body["token_type"] === "string" &&
    typeof body["expires_in"] === "number" &&
    typeof body["scope"] === "string" &&
    typeof body["api_base_url"] === "string" &&
    optional("refresh_token", "string") &&
    optional("refresh_token_expires_in", "number") &&
    optional("merchant_id", "number")
  );
}

function tokenResponse(body: Record<string, unknown>, path: string): TokenResponse {
  if (!isTokenResponse(body)) {
    throw clientError(
      "client.bad_response",
      `${path} answered without a token response (RFC 6749 5.1 and api_base_url)`,
    );
  }
  return body;
}

export function createTokenEndpoint(options: TokenEndpointOptions): TokenEndpoint {
  const { transport } = options;
  const client = () => {
    if (!options.clientId || !options.clientSecret) {
      throw clientError("client.misconfigured", "clientId and clientSecret are needed for the token endpoints");
    }
    return { client_id: options.clientId, client_secret: options.clientSecret };
  };
  const post = (path: string, body: Record<string, unknown>, write: boolean, proof = options.dpop) =>
    transport.send({
      method: "POST",
      path: new URL(path, options.baseUrl).toString(),
      body,
      write,
      partner: false,
      acceptLanguage: options.acceptLanguage,
      dpop: proof,
    });

  return {
    async exchangeCode({ code, redirectUri, codeVerifier }) {
      const body: Record<string, unknown> = {
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        ...client(),
      };
      if (codeVerifier !== undefined) body["code_verifier"] = codeVerifier;
      return tokenResponse(await post("/v1/oauth/token", body, true), "/v1/oauth/token");
    },
    async refresh(refreshToken) {
      return tokenResponse(
        await post("/v1/oauth/token", { grant_type: "refresh_token", refresh_token: refreshToken, ...client() }, false),
        "/v1/oauth/token",
      );
    },
    async revoke(refreshToken) {
      // RFC 9449 asks for no proof at revocation: the client's credentials are its authentication.
      await post("/v1/oauth/revoke", { token: refreshToken, ...client() }, false, false);
    },
    async mintSandbox(merchantId) {
      const body: Record<string, unknown> = { grant_type: "client_credentials", ...client() };
      if (merchantId !== undefined) body["merchant_id"] = merchantId;
      return tokenResponse(await post("/v1/token", body, false), "/v1/token");
    },
    async pushAuthorization(parameters) {
      // A write: a lost answer leaves a pushed request the client cannot name; it is short lived and never used.
      const body = await post("/v1/oauth/par", { ...parameters, ...client() }, true);
      if (typeof body["request_uri"] !== "string" || typeof body["expires_in"] !== "number")
        throw clientError("client.bad_response", "/v1/oauth/par answered without request_uri and expires_in");
      return { request_uri: body["request_uri"], expires_in: body["expires_in"] };
    },
  };
}
