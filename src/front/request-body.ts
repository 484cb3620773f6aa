// Reading a request body: the media type decides the decoder (JSON or form), and a body over the limit is refused
// without being read further (413), so a client cannot make the front buffer more than BODY_LIMIT_BYTES. Bodies
// are UTF-8 only (RFC 8259 section 8.1 for JSON; the WHATWG URL standard for forms): another declared charset is
// 415, bytes that are not UTF-8 are a malformed body, never read with replacement characters.
import type { IncomingHttpHeaders } from "node:http";
import { invalidUtf8Names } from "../runtime/percent-encoding.js";

export type BodyResult =
  | { kind: "json"; value: unknown }
  | { kind: "form"; value: Params; invalidUtf8: string[] }
  | { kind: "empty" }
  | { kind: "error"; code: "request.unsupported_media_type"; contentType: string }
  | { kind: "error"; code: "request.body_too_large"; limit: number }
  | { kind: "error"; code: "request.malformed_body" };

/** What reading a body needs of a request: its headers, its chunks, and a pause (node:http's IncomingMessage). */
export type BodySource = { headers: IncomingHttpHeaders; pause(): void } & AsyncIterable<Buffer>;

/** Reads and decodes the body of `request`, reading at most `limit` bytes. */
export async function readBody(request: BodySource, limit: number): Promise<BodyResult> {
  const declared = request.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return tooLarge(request, limit);
  const contentType = request.headers["content-type"] ?? "";
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > limit) return tooLarge(request, limit);
    chunks.push(chunk);
  }
  if (size === 0 && mediaType === "") return { kind: "empty" };
  if (mediaType !== "application/json" && mediaType !== "application/x-www-form-urlencoded") {
    return { kind: "error", code: "request.unsupported_media_type", contentType: mediaType || "(none)" };
  }
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== "utf-8") {
    return { kind: "error", code: "request.unsupported_media_type", contentType: `${mediaType}; charset=${charset}` };
  }
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    return { kind: "error", code: "request.malformed_body" };
  }
  if (mediaType === "application/json") return parseJson(text);
  return { kind: "form", value: parseForm(text), invalidUtf8: invalidUtf8Names(text) };
}

// fatal: bytes that are not UTF-8 throw instead of becoming U+FFFD; ignoreBOM: a BOM stays, and JSON.parse refuses it.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The charset parameter of a Content-Type (RFC 9110 section 8.3.1: case-insensitive, possibly quoted), lower-cased. */
function charsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(";").slice(1)) {
    const index = parameter.indexOf("=");
    if (index < 0 || parameter.slice(0, index).trim().toLowerCase() !== "charset") continue;
    return parameter.slice(index + 1).trim().replace(/^"(.*)"$/, "$1").toLowerCase();
  }
  return undefined;
}


/** Stops reading: the rest of the body is discarded by closing the connection after the answer. */
function tooLarge(request: BodySource, limit: number): BodyResult {
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

/** Form or query parameters by name: a map without a prototype, a repeated name a list (valid only for repeated fields). */
export type Params = Record<string, string | string[]>;

/** application/x-www-form-urlencoded (WHATWG URL standard); a repeated key becomes a list. */
export function parseForm(text: string): Params {
  return collectParams(new URLSearchParams(text));
}

/**
 * Form or query parameters by name; a repeated name becomes a list, in order. Linear in the number of pairs: a
 * repeat appends to its list in place (copying the list on every repeat made a 64 KiB body of one key repeated
 * 32,768 times cost seconds of CPU before any authentication). The map has no prototype, so `__proto__`,
 * `constructor` or `toString` are keys like any other, never inherited values or the prototype itself.
 */
export function collectParams(params: URLSearchParams): Params {
  const out: Params = Object.create(null);
  for (const [key, value] of params) {
    const seen = out[key];
    if (seen === undefined) out[key] = value;
    else if (typeof seen === "string") out[key] = [seen, value];
    else seen.push(value);
  }
  return out;
}
