// The client's one error class family. Every failure a caller sees is a PartnerApiError with the spec's `code`,
// the HTTP `status`, `params` and `correlationId`, whichever of the three body shapes the server answered in
// (partner envelope, developer envelope, OAuth body). Callers branch on `code`, never on `message`.

/** Codes of the spec and of docs/error-codes.md a partner call or a token call can answer with. */
export type ServerErrorCode =
  | "partner.scope_denied"
  | "partner.env_mismatch"
  | "partner.ip_denied"
  | "partner.grant_missing"
  | "partner.rate_limited"
  | "partner.window_too_large"
  | "partner.invalid_window"
  | "partner.order_not_found"
  | "partner.acting_user_unavailable"
  | "partner.api_key_invalid"
  | "partner.company_param_required"
  | "partner.company_not_granted"
  | "partner.api_key_product"
  | "partner.api_key_unavailable"
  | "partner.token_missing"
  | "partner.token_invalid"
  | "partner.region_unavailable"
  | "partner.feed_updated_from_invalid"
  | "partner.feed_cursor_invalid"
  | "partner.category_not_found"
  | "partner.category_items_mismatch"
  | "db.duplicate"
  | "db.not_found"
  | "company.not_provisioned"
  | "developer.invalid_client"
  | "developer.merchant_required"
  | "developer.merchant_not_found"
  | "developer.merchant_inactive"
  | "developer.app_archived"
  | "developer.app_not_approved"
  | "developer.grant_missing"
  | "developer.env_mismatch"
  | "developer.use_oauth"
  | "developer.use_api_key"
  | "developer.region_unconfigured"
  | "developer.rate_limited"
  | "developer.invalid_request"
  | "oauth.invalid_request"
  | "oauth.unsupported_grant_type"
  | "oauth.code_invalid"
  | "oauth.code_expired"
  | "oauth.redirect_uri_mismatch"
  | "oauth.pkce_failed"
  | "oauth.refresh_invalid"
  | "oauth.refresh_expired"
  | "oauth.refresh_reused"
  | "oauth.grant_revoked"
  | "oauth.rate_limited"
  | "oauth.dpop_proof_invalid"
  | "oauth.dpop_nonce_required"
  | "oauth.dpop_key_mismatch"
  | "oauth.dpop_required"
  | "oauth.invalid_request_uri"
  | "oauth.pushed_request_required"
  | "developer.dpop_proof_invalid"
  | "developer.dpop_nonce_required"
  | "developer.dpop_required"
  | "partner.dpop_proof_invalid"
  | "partner.dpop_nonce_required"
  | "partner.dpop_bound_token"
  | "partner.dpop_token_unbound"
  | "partner.dpop_required"
  | "server.internal"
  | "server.unimplemented"
  | "server.unavailable"
  | "server.database_unavailable"
  | "server.timeout";

/** Codes the client itself raises, for failures that never got (or never needed) an answer from the server. */
export type ClientErrorCode =
  /** No HTTP response at all (connection refused or reset, DNS), after the retries the spec allows. */
  | "client.network"
  /** The token store's `put` failed: the new tokens were not persisted, so they are not used. */
  | "client.token_store_failed"
  /** No tokens are stored for this merchant: connect it first. */
  | "client.not_connected"
  /** The callback's `state` differs from the one stored when the authorize URL was made. */
  | "client.state_mismatch"
  /** The callback's `iss` is missing or names another authorization server (RFC 9207 mix-up defence). */
  | "client.issuer_mismatch"
  /** The callback has neither `error` nor a usable `code` and `merchant_id`, or repeats a parameter. */
  | "client.callback_invalid"
  /** A method needs an option the client was not given (client secret, API key, redirect URI). */
  | "client.misconfigured"
  /** A success answer that is not the JSON object the route returns. */
  | "client.bad_response"
  /**
   * The merchant's stored tokens are bound to another DPoP key than this client's (a key made by an earlier
   * process): they cannot be used or refreshed, so the merchant must connect again (a ReconnectRequiredError).
   */
  | "client.dpop_key_changed";

/** Any code: the known ones autocomplete, a code added to the server later still type-checks. */
export type ErrorCode = ServerErrorCode | ClientErrorCode | "access_denied" | (string & {});

/** Which body the error came in. */
export type ErrorShape = "partner" | "developer" | "oauth" | "authorize" | "client" | "unknown";

export interface PartnerApiErrorInit {
  /** Absent for unclassified server failures (strict-validation 400s, generic 500s): the spec sends no code. */
  code?: ErrorCode | undefined;
  /** HTTP status; 0 when there was no response. */
  status: number;
  message: string;
  params?: Record<string, unknown> | undefined;
  correlationId?: string | undefined;
  shape: ErrorShape;
  /** Developer envelope: field-level validation detail. */
  details?: unknown;
  /** OAuth body (and the authorize callback): the RFC 6749 `error` value, e.g. `invalid_grant`. */
  oauthError?: string | undefined;
  cause?: unknown;
}

/** A failed call. `code` is what to branch on; `message` is localised and may change. */
export class PartnerApiError extends Error {
  readonly code: ErrorCode | undefined;
  readonly status: number;
  readonly params: Readonly<Record<string, unknown>>;
  readonly correlationId: string | undefined;
  readonly shape: ErrorShape;
  readonly details: unknown;
  readonly oauthError: string | undefined;

  constructor(init: PartnerApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "PartnerApiError";
    this.code = init.code;
    this.status = init.status;
    this.params = init.params ?? {};
    this.correlationId = init.correlationId;
    this.shape = init.shape;
    this.details = init.details;
    this.oauthError = init.oauthError;
  }
}

/**
 * The connection to a merchant is finished: the token endpoint answered `invalid_grant` (refresh token revoked,
 * reused, expired or unknown). Terminal, as the spec says: the client makes no further renewal attempt for this
 * merchant and answers every later call with this error until the merchant connects again.
 */
export class ReconnectRequiredError extends PartnerApiError {
  readonly merchantId: number;

  constructor(merchantId: number, init: PartnerApiErrorInit) {
    super(init);
    this.name = "ReconnectRequiredError";
    this.merchantId = merchantId;
  }
}

/** The authorize callback did not yield a code: the merchant declined (`access_denied`), or the callback is not ours. */
export class AuthorizationCallbackError extends PartnerApiError {
  constructor(init: Omit<PartnerApiErrorInit, "status" | "shape">) {
    super({ ...init, status: 0, shape: "authorize" });
    this.name = "AuthorizationCallbackError";
  }
}

/** Builds a client-side error (no server answer involved). */
export function clientError(code: ClientErrorCode, message: string, cause?: unknown): PartnerApiError {
  return new PartnerApiError({ code, status: 0, message, shape: "client", cause });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * Reads a failure answer in whichever of the spec's three shapes it came: the partner envelope
 * (`status: "error"`), the developer envelope (`error` an object) or the OAuth body (`error` a string).
 * `X-Correlation-Id` stands in when the body has no `correlationId`.
 */
export function errorFromBody(status: number, headers: Headers, body: unknown): PartnerApiError {
  const headerCorrelation = headers.get("x-correlation-id") ?? undefined;
  if (isObject(body) && body["status"] === "error") {
    return new PartnerApiError({
      code: text(body["code"]),
      status,
      message: text(body["message"]) ?? `HTTP ${status}`,
      params: isObject(body["params"]) ? body["params"] : {},
      correlationId: text(body["correlationId"]) ?? headerCorrelation,
      shape: "partner",
    });
  }
  if (isObject(body) && isObject(body["error"])) {
    const error = body["error"];
    return new PartnerApiError({
      code: text(error["code"]),
      status,
      message: text(error["message"]) ?? `HTTP ${status}`,
      params: isObject(error["params"]) ? error["params"] : {},
      details: error["details"],
      correlationId: headerCorrelation,
      shape: "developer",
    });
  }
  if (isObject(body) && typeof body["error"] === "string") {
    return new PartnerApiError({
      code: text(body["code"]) ?? body["error"],
      status,
      message: text(body["error_description"]) ?? body["error"],
      oauthError: body["error"],
      correlationId: headerCorrelation,
      shape: "oauth",
    });
  }
  return new PartnerApiError({ status, message: `HTTP ${status}`, correlationId: headerCorrelation, shape: "unknown" });
}
