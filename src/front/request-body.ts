// Reading a request body: the media type decides the decoder (JSON or form), and a body over the limit is refused
// without being read further (413), so a client cannot make the front buffer more than BODY_LIMIT_BYTES. Bodies
// are UTF-8 only (RFC 8259 section 8.1 for JSON; the WHATWG URL standard for forms): another declared charset is
// 415, bytes that are not UTF-8 are a malformed body, never read with replacement characters. Decoding is linear in
// the bytes whatever they are, and a body with more fields than any route accepts is refused before its fields are
// decoded (issue 27): one hostile body must not hold the event loop every listener of the process shares.
import type { IncomingHttpHeaders } from "node:http";
import { readChunks } from "../runtime/client-gone.js";
import { firstDuplicateKey } from "../runtime/json-duplicate-keys.js";
import type { FieldViolation } from "../runtime/wire/index.js";
import { parseUrlEncoded } from "../runtime/urlencoded.js";

/**
 * The most fields (form pairs, or members of a JSON body's object) a request may carry: more than any route
 * accepts (the largest, an access request, takes up to 500 store ids and two other fields), so only a body
 * no route could accept is refused by it.
 */
export const maxRequestFields = 1024;

export type BodyResult =
  | { kind: "json"; value: unknown }
  | { kind: "form"; value: Params; invalidUtf8: string[] }
  /** Refused before validation: too many fields, or a JSON member name repeated. */
  | { kind: "invalid"; violations: FieldViolation[] }
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
  // A client that closes mid-body throws ClientGone (src/runtime/client-gone.ts): its doing, not an outage.
  const chunks = await readChunks(request, limit, () => request.pause());
  if (chunks === "too_large") return { kind: "error", code: "request.body_too_large", limit };
  if (chunks.length === 0 && mediaType === "") return { kind: "empty" };
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
  const form = parseUrlEncoded(text, maxRequestFields);
  if (form.kind === "too_many") return tooManyFields("(body)");
  return { kind: "form", value: collectParams(form.pairs), invalidUtf8: form.notUtf8 };
}

/** The violation of a body or query with more than maxRequestFields fields. */
export function tooManyFields(where: "(body)" | "(query)"): BodyResult & { kind: "invalid" } {
  return { kind: "invalid", violations: [{ field: where, rule: `must have at most ${maxRequestFields} fields` }] };
}

// fatal: bytes that are not UTF-8 throw instead of becoming U+FFFD; ignoreBOM: a BOM stays, and JSON.parse refuses it.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The charset parameter of a Content-Type (RFC 9110 section 8.3.1: case-insensitive, possibly quoted), lower-cased. */
function charsetOf(contentType: string): string | undefined {
  for (const parameter of contentType.split(";").slice(1)) {
    const index = parameter.indexOf("=");
    if (index < 0 || parameter.slice(0, index).trim().toLowerCase() !== "charset") continue;
    return parameter
      .slice(index + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
  }
  return undefined;
}

/** Stops reading: the rest of the body is discarded by closing the connection after the answer. */
function tooLarge(request: BodySource, limit: number): BodyResult {
  request.pause();
  return { kind: "error", code: "request.body_too_large", limit };
}

function parseJson(text: string): BodyResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "error", code: "request.malformed_body" };
  }
  if (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length > maxRequestFields
  )
    return tooManyFields("(body)");
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== undefined)
    return { kind: "invalid", violations: [{ field: duplicate, rule: "must not be sent more than once" }] };
  return { kind: "json", value };
}

/** Form or query parameters by name: a map without a prototype, a repeated name a list (valid only for repeated fields). */
export type Params = Record<string, string | string[]>;

/** application/x-www-form-urlencoded (WHATWG URL standard), however many pairs; a repeated key becomes a list. */
export function parseForm(text: string): Params {
  const form = parseUrlEncoded(text, Number.POSITIVE_INFINITY);
  return form.kind === "pairs" ? collectParams(form.pairs) : {};
}

/**
 * Form or query parameters by name; a repeated name becomes a list, in order. Linear in the number of pairs: a
 * repeat appends to its list in place (copying the list on every repeat made a 64 KiB body of one key repeated
 * 32,768 times cost seconds of CPU before any authentication). The map has no prototype, so `__proto__`,
 * `constructor` or `toString` are keys like any other, never inherited values or the prototype itself.
 */
export function collectParams(params: Iterable<[string, string]>): Params {
  const out: Params = Object.create(null);
  for (const [key, value] of params) {
    const seen = out[key];
    if (seen === undefined) out[key] = value;
    else if (typeof seen === "string") out[key] = [seen, value];
    else seen.push(value);
  }
  return out;
}
