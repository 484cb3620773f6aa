// Reading a request body: the media type decides the decoder (JSON or form), and a body over the limit is refused
// without being read further (413), so a client cannot make the front buffer more than BODY_LIMIT_BYTES.
import type { IncomingMessage } from "node:http";

export type BodyResult =
  | { kind: "json"; value: unknown }
  | { kind: "form"; value: Record<string, string | string[]> }
  | { kind: "empty" }
  | { kind: "error"; code: "request.unsupported_media_type"; contentType: string }
  | { kind: "error"; code: "request.body_too_large"; limit: number }
  | { kind: "error"; code: "request.malformed_body" };

/** Reads and decodes the body of `request`, reading at most `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = request.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return tooLarge(request, limit);
  const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return tooLarge(request, limit);
    chunks.push(chunk);
  }
  if (size === 0 && mediaType === "") return { kind: "empty" };
  const text = Buffer.concat(chunks).toString("utf8");
  switch (mediaType) {
    case "application/json":
      return parseJson(text);
    case "application/x-www-form-urlencoded":
      return { kind: "form", value: parseForm(text) };
    default:
      return { kind: "error", code: "request.unsupported_media_type", contentType: mediaType || "(none)" };
  }
}

/** Stops reading: the rest of the body is discarded by closing the connection after the answer. */
function tooLarge(request: IncomingMessage, limit: number): BodyResult {
  request.pause();
  return { kind: "error", code: "request.body_too_large", limit };
}

function parseJson(text: string): BodyResult {
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch {
    return { kind: "error", code: "request.malformed_body" };
  }
}

/** application/x-www-form-urlencoded (WHATWG URL standard); a repeated key becomes a list. */
export function parseForm(text: string): Record<string, string | string[]> {
  return collectParams(new URLSearchParams(text));
}

/** Form or query parameters by name; a repeated name becomes a list (valid only for repeated fields). */
export function collectParams(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}
