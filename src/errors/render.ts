// Renders one error in the body shape of each route family: OAuth body, developer envelope, partner envelope.
//
// Pure functions: status, headers and body come from the catalogue, the params and the locale; the caller
// supplies what only it knows (path, timestamp from the injected clock, correlation id) and writes the answer.
import {
  entryOf,
  isClassified,
  oauthErrorOf,
  oauthStatusOf,
  type ErrorCode,
  type OAuthError,
  type Params,
} from "./catalogue.js";
import type { Locale } from "./locale.js";
import { interpolate, messageFor, templateParams } from "./message.js";

/** An error as services raise it and readServiceError returns it. */
export interface ErrorToRender {
  code: ErrorCode;
  params?: Params;
  /** Field-level detail for the developer envelope, e.g. `[{ field: "redirect_uri", rule: "https_required" }]`. */
  details?: unknown;
}

/** What the front writes: status line, headers and a JSON body. */
export interface RenderedError<Body> {
  status: number;
  headers: Record<string, string>;
  body: Body;
}

/** The RFC 6749 §5.2 body of /v1/oauth/token and /v1/oauth/revoke, plus the service's code. */
export interface OAuthErrorBody {
  error: OAuthError;
  error_description: string;
  code: ErrorCode;
}

/** The developer envelope of the console and POST /v1/token. */
export interface DeveloperErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    /** The service's field-level detail (object or array); `[]` when there is none, so it can always be iterated. */
    details: unknown;
    params: Record<string, string | number>;
  };
}

/** The partner envelope of the business routes. */
export interface PartnerErrorBody {
  status: "error";
  statusCode: number;
  timestamp: string;
  path: string;
  message: string;
  /** Absent for unclassified failures (validation, unexpected errors). */
  code?: ErrorCode;
  params: Record<string, string | number>;
  correlationId: string;
}

/** What the partner envelope needs from the request. */
export interface PartnerContext {
  /** Request path, without the query. */
  path: string;
  /** ISO 8601 time from the injected clock, e.g. `new Date(clock.now()).toISOString()`. */
  timestamp: string;
  /** The request's correlation id (a UUID), also sent as `X-Correlation-Id` and written to the log. */
  correlationId: string;
}

/**
 * The params as a body shows them: only those the code declares, `number` params as JSON numbers even when
 * they came over the wire as strings. Undeclared params are left out (they are not part of the contract).
 */
export function bodyParams(code: ErrorCode, params: Params = {}): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, kind] of Object.entries(entryOf(code).params ?? {})) {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    if (value === undefined) continue;
    const asNumber = typeof value === "number" ? value : value.trim() === "" ? Number.NaN : Number(value);
    out[name] = kind === "number" && Number.isFinite(asNumber) ? asNumber : String(value);
  }
  return out;
}

/** The code's own headers (WWW-Authenticate, Retry-After, Allow), each left out when a param it needs is missing. */
export function codeHeaders(code: ErrorCode, params: Params = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(entryOf(code).headers ?? {})) {
    const supplied = templateParams(template).every((param) => {
      const value = Object.hasOwn(params, param) ? params[param] : undefined;
      return value !== undefined && String(value) !== "";
    });
    if (supplied) out[name] = interpolate(template, params);
  }
  return out;
}

/**
 * The OAuth body (RFC 6749 §5.2): `{ error, error_description, code }`. Status from oauthStatusOf (401 for
 * invalid_client, which also carries `WWW-Authenticate: Basic`); every answer carries `Cache-Control: no-store`
 * and `Pragma: no-cache` (RFC 6749 §5.1).
 */
export function renderOAuthError(error: ErrorToRender, locale: Locale): RenderedError<OAuthErrorBody> {
  const { code, params } = error;
  return {
    status: oauthStatusOf(code),
    headers: {
      ...codeHeaders(code, params),
      "Cache-Control": "no-store",
      Pragma: "no-cache",
      "Content-Language": locale,
    },
    body: { error: oauthErrorOf(code), error_description: messageFor(code, params, locale), code },
  };
}

/** The developer envelope: `{ error: { code, message, details, params } }`, status from the catalogue. */
export function renderDeveloperError(error: ErrorToRender, locale: Locale): RenderedError<DeveloperErrorBody> {
  const { code, params, details } = error;
  return {
    status: entryOf(code).status,
    headers: { ...codeHeaders(code, params), "Content-Language": locale },
    body: {
      error: {
        code,
        message: messageFor(code, params, locale),
        details: details !== null && typeof details === "object" ? details : [],
        params: bodyParams(code, params),
      },
    },
  };
}

/**
 * The partner envelope: `{ status: "error", statusCode, timestamp, path, message, code?, params, correlationId }`,
 * with `X-Correlation-Id`. `code` is left out for unclassified failures; 5xx messages are the catalogue's
 * generic ones, so nothing internal reaches the client (the cause goes to the log, by correlation id).
 */
export function renderPartnerError(
  error: ErrorToRender,
  locale: Locale,
  context: PartnerContext,
): RenderedError<PartnerErrorBody> {
  const { code, params } = error;
  const status = entryOf(code).status;
  return {
    status,
    headers: {
      ...codeHeaders(code, params),
      "Content-Language": locale,
      "X-Correlation-Id": context.correlationId,
    },
    body: {
      status: "error",
      statusCode: status,
      timestamp: context.timestamp,
      path: context.path,
      message: messageFor(code, params, locale),
      ...(isClassified(code) ? { code } : {}),
      params: bodyParams(code, params),
      correlationId: context.correlationId,
    },
  };
}
