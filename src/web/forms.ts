// Reading the form bodies of both sites (application/x-www-form-urlencoded), moved from the consent site.
import type http from "node:http";
import { invalidUtf8Names } from "../runtime/percent-encoding.js";

/** Largest form body the sites read: their forms are a few hundred bytes (a redirect URI list a few kilobytes). */
export const formLimitBytes = 16 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads an application/x-www-form-urlencoded body of at most formLimitBytes; undefined otherwise, and when the body
 * is not UTF-8, or a name or value holds a NUL or percent-decodes to bytes that are not UTF-8: no stored string may
 * hold them (PostgreSQL refuses NUL in text), so such a form is a bad request, not a failed query.
 */
export async function readForm(request: http.IncomingMessage, limitBytes = formLimitBytes): Promise<URLSearchParams | undefined> {
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    return undefined;
  }
  const form = new URLSearchParams(text);
  for (const [name, value] of form) if (name.includes("\u0000") || value.includes("\u0000")) return undefined;
  return invalidUtf8Names(text).length === 0 ? form : undefined;
}
