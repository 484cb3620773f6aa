// Duplicate member names in a JSON text. JSON.parse keeps the last of them silently; RFC 8259 section 4 says names
// SHOULD be unique and that receivers differ on which one counts, so two readers of the same body (a proxy that
// checks the first, we who act on the last) could disagree. A request body repeating a name is refused, naming it
// (docs/decisions.md, "Hostile input").

/**
 * The path (`a`, `lines.0.name`) of the first member name repeated within one object of `text`, or undefined.
 * `text` must already be valid JSON (JSON.parse accepted it): one pass over it, linear in its length.
 */
export function firstDuplicateKey(text: string): string | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === quote) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (top?.kind === "object" && top.expectingKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.keys.has(key)) return pathOf(stack, key);
        top.keys.add(key);
        top.key = key;
        top.expectingKey = false;
      }
      i = end;
    } else if (char === openBrace) {
      stack.push({ kind: "object", keys: new Set(), key: "", expectingKey: true });
    } else if (char === openBracket) {
      stack.push({ kind: "array", index: 0 });
    } else if (char === closeBrace || char === closeBracket) {
      stack.pop();
    } else if (char === comma) {
      const top = stack[stack.length - 1];
      if (top?.kind === "object") top.expectingKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

type Frame =
  | { kind: "object"; keys: Set<string>; key: string; expectingKey: boolean }
  | { kind: "array"; index: number };

const [quote, backslash, openBrace, closeBrace, openBracket, closeBracket, comma] = [
  '"',
  "\\",
  "{",
  "}",
  "[",
  "]",
  ",",
].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number, number];

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === backslash) i++;
    else if (char === quote) return i;
  }
  return text.length;
}

/** The member's path: each enclosing object's current key or array's index, then `key`. */
function pathOf(stack: readonly Frame[], key: string): string {
  const outer = stack.slice(0, -1).map((frame) => (frame.kind === "object" ? frame.key : String(frame.index)));
  return [...outer, key].join(".");
}
