// Percent-encoded text (application/x-www-form-urlencoded bodies and query strings) that does not decode to UTF-8:
// URLSearchParams reads such bytes as U+FFFD, so the front and the consent site find them here and refuse them.

/**
 * The names (as URLSearchParams decodes them) of the pairs of an urlencoded string whose name or value
 * percent-decodes to bytes that are not UTF-8 (`%FF`, or `%ED%A0%80`, a surrogate's encoding): URLSearchParams
 * reads them as U+FFFD, which would store something the client never sent. In order, each name once.
 */
export function invalidUtf8Names(text: string): string[] {
  const names = new Set<string>();
  for (const pair of text.split("&")) {
    if (!pair.includes("%")) continue;
    const index = pair.indexOf("=");
    const [name, value] = index < 0 ? [pair, ""] : [pair.slice(0, index), pair.slice(index + 1)];
    if (!percentDecodesToUtf8(name) || !percentDecodesToUtf8(value)) names.add([...new URLSearchParams(`${name}=`).keys()][0] ?? name);
  }
  return [...names];
}

function percentDecodesToUtf8(raw: string): boolean {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(raw[i]!, "utf8"));
    }
  }
  try {
    utf8.decode(Uint8Array.from(bytes));
    return true;
  } catch {
    return false;
  }
}

// fatal: bytes that are not UTF-8 throw instead of becoming U+FFFD.
const utf8 = new TextDecoder("utf-8", { fatal: true });
