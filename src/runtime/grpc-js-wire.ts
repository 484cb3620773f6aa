// The region hop's wire on @grpc/grpc-js, shared by its two ends (the data role's server, src/internal/
// region-grpc-server.ts, and the front's caller, src/gateway/grpc-js-caller.ts): protobuf-es messages as grpc-js
// payloads, grpc-js metadata as fetch Headers, and errors as connect's gRPC protocol writes and reads them
// (grpc-status, grpc-message and google.rpc.Status with its ErrorInfo in grpc-status-details-bin), so an error crosses
// the grpc-js hop exactly as it crossed connect-node's.
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import * as grpc from "@grpc/grpc-js";

/** The gRPC path of a method: `/<package.Service>/<Method>`. */
export function grpcPath(method: DescMethodUnary): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** Writes a protobuf-es message (or its init shape) as the bytes of a gRPC message. */
export function serializerOf(schema: DescMessage): (value: object) => Buffer {
  return (value) => {
    const bytes = toBinary(schema, create(schema, value as never));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/** Reads a gRPC message into a protobuf-es message. */
export function deserializerOf<S extends DescMessage>(schema: S): (bytes: Buffer) => MessageShape<S> {
  return (bytes) => fromBinary(schema, bytes);
}

const statusDetailsBin = "grpc-status-details-bin";
/** Set by the gRPC wire itself, never carried as metadata (grpc-js refuses or ignores them). */
const protocolKeys = new Set([
  "grpc-status",
  "grpc-message",
  "grpc-timeout",
  "grpc-encoding",
  "grpc-accept-encoding",
  "content-type",
  "te",
  "user-agent",
]);

/** Text metadata as Headers; binary (`-bin`) entries are left out: no service reads one. */
export function headersOf(metadata: grpc.Metadata): Headers {
  const headers = new Headers();
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    if (key.endsWith("-bin")) continue;
    for (const value of values) if (typeof value === "string") headers.append(key, value);
  }
  return headers;
}

/** Headers as grpc-js metadata (the wire's own keys left to grpc-js); `-bin` values are base64 (RFC 4648) in Headers. */
export function metadataOf(headers: Headers): grpc.Metadata {
  const metadata = new grpc.Metadata();
  headers.forEach((value, key) => {
    if (protocolKeys.has(key)) return;
    if (key.endsWith("-bin")) metadata.set(key, Buffer.from(value, "base64"));
    else metadata.add(key, value);
  });
  return metadata;
}

/** An error as a grpc-js server sends it: its code, raw message, metadata and, with details, grpc-status-details-bin. */
export function grpcStatusOf(error: unknown): grpc.StatusObject {
  const connectError = ConnectError.from(error);
  const trailer = setTrailerStatus(new Headers(), connectError);
  return {
    code: connectError.code as number as grpc.status,
    details: connectError.rawMessage,
    metadata: metadataOf(trailer),
  };
}

/**
 * A grpc-js client's error as the ConnectError connect's gRPC transport would have raised: the server's
 * google.rpc.Status when it sent one (code, message, details as connect reads them), else grpc-js's code and text.
 * An error grpc-js raises itself for a stream or connection the other side reset (RST_STREAM, a dropped connection
 * mid-call) is Aborted, as connect-node raises it; a connection that was never made stays Unavailable.
 */
export function connectErrorOf(error: grpc.ServiceError): ConnectError {
  const trailer = new Headers();
  const details = error.metadata?.get(statusDetailsBin)[0];
  if (details !== undefined)
    trailer.set(statusDetailsBin, Buffer.isBuffer(details) ? details.toString("base64") : details);
  if (error.metadata) {
    for (const [key, values] of Object.entries(error.metadata.toJSON())) {
      if (key.endsWith("-bin")) continue;
      for (const value of values) if (typeof value === "string") trailer.append(key, value);
    }
  }
  trailer.set("grpc-status", String(error.code));
  trailer.set("grpc-message", encodeURIComponent(error.details ?? ""));
  const found = findTrailerError(trailer) ?? new ConnectError(error.details ?? "", Code.Unknown);
  if (details === undefined && isReset(error))
    return new ConnectError(found.rawMessage, Code.Aborted, found.metadata, undefined, error);
  if (details === undefined) return new ConnectError(found.rawMessage, found.code, found.metadata, undefined, error);
  return found;
}

/**
 * grpc-js's own words (never a status the server sent) for a stream or connection the other side closed: a
 * RST_STREAM, a connection dropped or reset under a call, or "Failed to connect": a connection the peer accepted and
 * closed before its HTTP/2 settings (an h2c front against a TLS-only port). A refused connection is not one of them.
 */
function isReset(error: grpc.ServiceError): boolean {
  const details = error.details ?? "";
  if (error.code === grpc.status.INTERNAL) return /^Received RST_STREAM with code \d+/.test(details);
  if (error.code === grpc.status.UNAVAILABLE)
    return /^Connection dropped|ECONNRESET|Last error: Failed to connect \(/.test(details);
  return false;
}
