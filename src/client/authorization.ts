// The authorize step of the OAuth flow, on the partner's server: the URL to send the merchant's browser to (with
// an unguessable single-use `state` and a PKCE S256 pair), and the validation of the callback the consent site
// redirects back to, in the spec's order (Endpoints, authorize 7): `error` before `code`, `state` compared with
// the stored value on both paths, in constant time; and, when the issuer is known, `iss` compared with it before
// anything else (RFC 9207 section 2.4: the server's metadata sets authorization_response_iss_parameter_supported, so
// a response without `iss`, or naming another issuer, is a mix-up attack and is refused).

import { constantTimeEqual, randomToken, sha256Base64url } from "./encoding.js";
import { AuthorizationCallbackError } from "./errors.js";

/** What to keep (server side, e.g. in the partner's session) between the redirect and the callback. */
export interface PendingAuthorization {
  /** Where to send the merchant's browser. */
  url: string;
  /** The `state` sent; the callback must echo it. */
  state: string;
  /** The PKCE verifier; sent at the code exchange. Never put it in the URL or a browser-visible place. */
  codeVerifier: string;
  /** The redirect URI the code will be bound to. */
  redirectUri: string;
}

export interface AuthorizeUrlInput {
  /** {auth_url}: the consent site's host. */
  authUrl: string;
  clientId: string;
  redirectUri: string;
  /** Accepted and ignored by the server (the product bundle is granted); sent only when given. */
  scope?: string | undefined;
}

/** The authorization request's parameters, with a fresh 256-bit `state` and PKCE S256 pair (verifier 43 characters, RFC 7636 4.1). */
async function authorizationParameters(input: AuthorizeUrlInput) {
  const state = randomToken();
  const codeVerifier = randomToken();
  const parameters: Record<string, string> = {
    response_type: "code",
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    state,
    code_challenge: await sha256Base64url(codeVerifier),
    code_challenge_method: "S256",
  };
  if (input.scope !== undefined) parameters["scope"] = input.scope;
  return { parameters, state, codeVerifier };
}

/** A new authorize URL with a fresh 256-bit `state` and PKCE S256 pair, every parameter on the URL. */
export async function createAuthorizationRequest(input: AuthorizeUrlInput): Promise<PendingAuthorization> {
  const { parameters, state, codeVerifier } = await authorizationParameters(input);
  const url = new URL("/oauth/authorize", input.authUrl);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return { url: url.toString(), state, codeVerifier, redirectUri: input.redirectUri };
}

/**
 * The same request pushed first (RFC 9126): `push` sends the parameters server to server (POST /v1/oauth/par, with
 * the client's credentials and, for a DPoP client, a proof that binds the code to its key), and the authorize URL
 * carries only `client_id` and the single-use `request_uri` it answered.
 */
export async function createPushedAuthorizationRequest(
  input: AuthorizeUrlInput,
  push: (parameters: Record<string, string>) => Promise<{ request_uri: string }>,
): Promise<PendingAuthorization> {
  const { parameters, state, codeVerifier } = await authorizationParameters(input);
  const { client_id: _sentBeside, ...pushed } = parameters;
  const { request_uri: requestUri } = await push(pushed);
  const url = new URL("/oauth/authorize", input.authUrl);
  url.searchParams.set("client_id", input.clientId);
  url.searchParams.set("request_uri", requestUri);
  return { url: url.toString(), state, codeVerifier, redirectUri: input.redirectUri };
}

/** A callback that carries a code. */
export interface AuthorizationCode {
  code: string;
  /** The company the merchant connected (`merchant_id`). */
  merchantId: number;
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1)
    throw new AuthorizationCallbackError({ code: "client.callback_invalid", message: `the callback repeats ${name}` });
  return values[0];
}

/**
 * Validates the callback (the full URL, its query string, or its parameters) against the `state` stored when the
 * authorize URL was made and, when given, the server's issuer (its `baseUrl`, the metadata's `issuer`). Throws
 * AuthorizationCallbackError with `client.issuer_mismatch` when `iss` is missing or another issuer's, the `error`
 * value (e.g. `access_denied`) when the merchant declined, `client.state_mismatch` when `state` is not ours (on either
 * path), `client.callback_invalid` when the callback has no usable code or merchant_id.
 */
export function validateCallback(
  callback: string | URL | URLSearchParams,
  expectedState: string,
  expectedIssuer?: string,
): AuthorizationCode {
  const params =
    callback instanceof URLSearchParams
      ? callback
      : callback instanceof URL
        ? callback.searchParams
        : new URL(callback, "http://callback.invalid").searchParams;
  // RFC 9207 section 2.4: simple string comparison, before the response is otherwise processed.
  if (expectedIssuer !== undefined && single(params, "iss") !== expectedIssuer) {
    throw new AuthorizationCallbackError({
      code: "client.issuer_mismatch",
      message: "the callback does not name this API's issuer (iss, RFC 9207)",
    });
  }
  const state = single(params, "state");
  const stateMatches = state !== undefined && expectedState !== "" && constantTimeEqual(state, expectedState);

  // `error` first: a declined (or failed) authorization carries no code.
  const error = single(params, "error");
  if (error !== undefined) {
    if (!stateMatches)
      throw new AuthorizationCallbackError({
        code: "client.state_mismatch",
        message: "the callback's state is not the one this authorization sent",
      });
    const description = single(params, "error_description");
    throw new AuthorizationCallbackError({
      code: error,
      oauthError: error,
      message: description ?? `authorization failed: ${error}`,
    });
  }

  const code = single(params, "code");
  if (code === undefined || code === "")
    throw new AuthorizationCallbackError({
      code: "client.callback_invalid",
      message: "the callback has neither error nor code",
    });
  if (!stateMatches)
    throw new AuthorizationCallbackError({
      code: "client.state_mismatch",
      message: "the callback's state is not the one this authorization sent",
    });
  const merchant = single(params, "merchant_id");
  if (merchant === undefined || !/^[1-9]\d{0,15}$/.test(merchant) || !Number.isSafeInteger(Number(merchant))) {
    throw new AuthorizationCallbackError({
      code: "client.callback_invalid",
      message: "the callback has no valid merchant_id",
    });
  }
  return { code, merchantId: Number(merchant) };
}
