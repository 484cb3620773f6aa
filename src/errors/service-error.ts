// How services raise a catalogue error, and how the front and gRPC clients read one back.
//
// On the wire an error is a gRPC status: the catalogue's gRPC code, the English message, and one
// `google.rpc.ErrorInfo` detail with `reason` = the catalogue code, `domain` = the raising service's full name,
// `metadata` = the params. ErrorInfo metadata is map<string,string>, so params always come back as strings,
// whether the error crossed the network or stayed in process; the renderer turns the params the catalogue
// declares as `number` back into JSON numbers, so both paths render the same body.
import { create } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { codeForGrpcStatus, entryOf, isErrorCode, type ErrorCode, type ParamsOf } from "./catalogue.js";
import { messageFor } from "./message.js";
import { databaseRetryAfterSeconds, isDatabaseUnavailable } from "../storage/unavailable.js";

/**
 * The ErrorInfo metadata key reserved for field-level details, JSON-encoded. No catalogue param may use it
 * (the catalogue test checks).
 */
export const detailsMetadataKey = "details";

/** An error as read back from a ConnectError (or anything thrown), ready for render.ts. */
export interface ReadServiceError {
  code: ErrorCode;
  /** The params, as strings (ErrorInfo metadata is map<string,string>). */
  params: Record<string, string>;
  /** The field-level details the service attached, decoded from JSON; absent when there were none. */
  details?: unknown;
}

function build(domain: string, code: ErrorCode, params: object, details: unknown, cause: unknown): ConnectError {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && name !== detailsMetadataKey) metadata[name] = String(value);
  }
  if (details !== undefined) metadata[detailsMetadataKey] = JSON.stringify(details);
  const info = create(ErrorInfoSchema, { reason: code, domain, metadata });
  return new ConnectError(
    messageFor(code, metadata),
    entryOf(code).grpc,
    undefined,
    [{ desc: ErrorInfoSchema, value: info }],
    cause,
  );
}

/**
 * The error a service throws for a catalogue code: a ConnectError with the catalogue's gRPC code, the English
 * message and an ErrorInfo detail. `domain` is the service's full name (`partnerapi.v1.TokenService`); `cause`
 * is kept for the log and never sent.
 *
 * @example throw serviceError(TokenService.typeName, "oauth.code_expired");
 */
export function serviceError<C extends ErrorCode>(
  domain: string,
  code: C,
  params?: ParamsOf<C>,
  cause?: unknown,
): ConnectError {
  return build(domain, code, params ?? {}, undefined, cause);
}

/**
 * Like serviceError, with field-level `details` for the developer envelope (any JSON value, typically
 * `[{ field: "redirect_uris[0]", rule: "https_required" }]`), carried JSON-encoded in the ErrorInfo metadata
 * under the reserved key `details`.
 */
export function serviceErrorWithDetails<C extends ErrorCode>(
  domain: string,
  code: C,
  params: ParamsOf<C>,
  details: unknown,
  cause?: unknown,
): ConnectError {
  return build(domain, code, params, details, cause);
}

/** The error of a database that is down, restarting or not answering in time: 503 with Retry-After, not a 500. */
export function databaseUnavailable(): ReadServiceError {
  return { code: "server.database_unavailable", params: { retryAfter: String(databaseRetryAfterSeconds) } };
}

/**
 * Reads any thrown value as a catalogue error: a ConnectError whose ErrorInfo reason is a catalogue code gives
 * that code, its params and details; a database that is unavailable (src/storage/unavailable.ts, the raw error or
 * the cause of a ConnectError without ErrorInfo) gives `server.database_unavailable`; a ConnectError without
 * ErrorInfo gives the generic code for its gRPC code (codeForGrpcStatus); anything else is `server.internal`.
 * Never throws.
 */
export function readServiceError(err: unknown): ReadServiceError {
  if (!(err instanceof ConnectError))
    return isDatabaseUnavailable(err) ? databaseUnavailable() : { code: "server.internal", params: {} };
  const info = err.findDetails(ErrorInfoSchema).find((detail) => isErrorCode(detail.reason));
  if (!info || !isErrorCode(info.reason)) {
    return isDatabaseUnavailable(err.cause) ? databaseUnavailable() : { code: codeForGrpcStatus(err.code), params: {} };
  }
  const params: Record<string, string> = {};
  let details: unknown;
  for (const [name, value] of Object.entries(info.metadata)) {
    if (name !== detailsMetadataKey) {
      params[name] = value;
      continue;
    }
    try {
      details = JSON.parse(value);
    } catch {
      // Details that do not decode are dropped: the code and message still tell the failure.
    }
  }
  return details === undefined ? { code: info.reason, params } : { code: info.reason, params, details };
}

/** True when `err` reads as the catalogue error `code`; for callers and tests that branch on codes. */
export function isServiceError(err: unknown, code: ErrorCode): boolean {
  return err instanceof ConnectError && readServiceError(err).code === code;
}
