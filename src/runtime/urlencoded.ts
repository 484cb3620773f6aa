// application/x-www-form-urlencoded text (form bodies and query strings), parsed in time linear in its length
// whatever the bytes are. URLSearchParams took 0.14 s for a 64 KiB body of `%FF&` (its replacement path is slow),
// and the check for bytes that are not UTF-8 that ran beside it 0.5 s more: ten such bodies froze every listener
// of the process for seconds (issue 27). Here each pair is percent-decoded once into bytes and checked by
// buffer.isUtf8 (no exception thrown per bad pair), and the pairs are counted, and refused past a limit, before
// any is decoded.
import { isUtf8 } from "node:buffer";

export type UrlEncoded =
  /** `pairs` in order; `notUtf8` the names (read with U+FFFD) of the pairs whose name or value is not UTF-8. */
  | { kind: "pairs"; pairs: Array<[string, string]>; notUtf8: string[] }
  /** More than `limit` pairs: nothing was decoded. */
  | { kind: "too_many"; limit: number };

/**
 * Parses `text` as the WHATWG URL standard's urlencoded parser does (sequences split on `&`, empty ones skipped,
 * name and value split on the first `=`, `+` read as a space, `%XX` percent-decoded, a `%` not followed by two hex
 * digits kept as it is), except that a name or value whose bytes are not UTF-8 is reported in `notUtf8` (read
 * with U+FFFD) instead of silently replaced. More than `maxPairs` pairs: `too_many`, before decoding any.
 */
export function parseUrlEncoded(text: string, maxPairs: number): UrlEncoded {
  if (countPairs(text) > maxPairs) return { kind: "too_many", limit: maxPairs };
  const pairs: Array<[string, string]> = [];
  const notUtf8 = new Set<string>();
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end < 0) end = text.length;
    if (end > start) {
      const sequence = text.slice(start, end);
      const equals = sequence.indexOf("=");
      const name = decodeComponent(equals < 0 ? sequence : sequence.slice(0, equals));
      const value = decodeComponent(equals < 0 ? "" : sequence.slice(equals + 1));
      pairs.push([name.text, value.text]);
      if (!name.utf8 || !value.utf8) notUtf8.add(name.text);
    }
    start = end + 1;
  }
  return { kind: "pairs", pairs, notUtf8: [...notUtf8] };
}

/** Reads a query string for a page: like parseUrlEncoded without a limit, bytes that are not UTF-8 as U+FFFD. */
export function queryParams(search: string): URLSearchParams {
  const parsed = parseUrlEncoded(search.startsWith("?") ? search.slice(1) : search, Number.POSITIVE_INFINITY);
  return new URLSearchParams(parsed.kind === "pairs" ? parsed.pairs : []);
}

/** The number of non-empty `&`-separated sequences: one pass, nothing allocated. */
export function countPairs(text: string): number {
  let count = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end < 0) end = text.length;
    if (end > start) count++;
    start = end + 1;
  }
  return count;
}

const plus = /\+/g;

/** One name or value: `+` as a space, then percent-decoded; `utf8` false when the decoded bytes are not UTF-8. */
function decodeComponent(raw: string): { text: string; utf8: boolean } {
  const spaced = raw.includes("+") ? raw.replace(plus, " ") : raw;
  if (!spaced.includes("%")) return { text: spaced, utf8: true };
  const bytes = Buffer.from(spaced, "utf8");
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x25 && i + 2 < bytes.length && isHex(bytes[i + 1]!) && isHex(bytes[i + 2]!)) {
      bytes[length++] = (hexValue(bytes[i + 1]!) << 4) | hexValue(bytes[i + 2]!);
      i += 2;
    } else {
      bytes[length++] = byte;
    }
  }
  const decoded = bytes.subarray(0, length);
  // toString("utf8") replaces what is not UTF-8 with U+FFFD, as URLSearchParams would; isUtf8 says whether it had to.
  return { text: decoded.toString("utf8"), utf8: isUtf8(decoded) };
}

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function hexValue(byte: number): number {
  return byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x61 + 10;
}
