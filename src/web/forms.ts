// Reading the form bodies of both sites (application/x-www-form-urlencoded), moved from the consent site.
import type http from "node:http";
import { readChunks } from "../runtime/client-gone.js";
import { parseUrlEncoded } from "../runtime/urlencoded.js";

/**
 * The most pairs a site's form may hold: more than any of their forms sends (the consent form's store choices are
 * the largest, up to 500 stores). A form over it is refused before any pair is decoded.
 */
export const formPairLimit = 1024;

/** Largest form body the sites read: their forms are a few hundred bytes (a redirect URI list a few kilobytes). */
export const formLimitBytes = 16 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads an application/x-www-form-urlencoded body of at most formLimitBytes; undefined otherwise, and when the body
 * is not UTF-8, or a name or value holds a NUL or percent-decodes to bytes that are not UTF-8: no stored string may
 * hold them (PostgreSQL refuses NUL in text), so such a form is a bad request, not a failed query. Also undefined for
 * more than formPairLimit pairs. Linear in the bytes whatever they are (src/runtime/urlencoded.ts).
 */
export async function readForm(
  request: http.IncomingMessage,
  limitBytes = formLimitBytes,
): Promise<URLSearchParams | undefined> {
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return undefined;
  // A client that closes mid-body throws ClientGone (src/runtime/client-gone.ts): its doing, not an outage.
  const chunks = await readChunks(request, limitBytes, () => {});
  if (chunks === "too_large") return undefined;
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    return undefined;
  }
  const form = parseUrlEncoded(text, formPairLimit);
  if (form.kind === "too_many" || form.notUtf8.length > 0) return undefined;
  for (const [name, value] of form.pairs) if (name.includes("\u0000") || value.includes("\u0000")) return undefined;
  return new URLSearchParams(form.pairs);
}
