// Escaping by construction: `html` is a tagged template whose every interpolation is escaped for HTML text and
// quoted attribute values, unless the value is itself an `html` result (already safe) or was wrapped in `raw()`
// on purpose (trusted constants only). Pages are built from these; nobody has to remember to call an escaper.

/** A fragment of HTML that is safe to insert as is: made by `html`, `raw` or `join`. */
export class SafeHtml {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

const replacements: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/**
 * Escapes text for an HTML text node or a quoted attribute value (double or single quotes): `&<>"'` and the
 * backtick (old IE treated it as an attribute quote). An unquoted attribute is never written by the pages.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (char) => replacements[char]!);
}

/** A value a template may interpolate: text and numbers are escaped, arrays are joined, nothing else is written. */
export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join("");
  // false, null and undefined write nothing, so `${cond && html`...`}` reads naturally.
  if (value === null || value === undefined || value === false) return "";
  if (typeof value === "number" || typeof value === "bigint" || value === true) return escapeHtml(String(value));
  if (typeof value === "string") return escapeHtml(value);
  // An object would print as [object Object] or run a toString we do not control: refuse it loudly.
  throw new TypeError(`html: cannot interpolate a value of type ${typeof value}`);
}

/** The auto-escaping template tag. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHtml(out);
}

/** Marks trusted markup (a constant of ours, never user input) as safe. Every call is a place to review. */
export function raw(trusted: string): SafeHtml {
  return new SafeHtml(trusted);
}

/** Joins fragments (each escaped unless already safe) with an optional safe separator. */
export function join(values: readonly HtmlValue[], separator: SafeHtml | string = ""): SafeHtml {
  return new SafeHtml(values.map(render).join(render(separator)));
}

/** A letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const rightToLeft = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/**
 * JSON (an API's answer, a stored error body) for a left-to-right `<pre>`: escaped as text, and the content of each
 * string that holds right-to-left letters (an Arabic `message`) isolated in a `<bdi>`. Inside it the message reads
 * right to left with its own full stop at its end; outside it the quotes, the comma and the next key stay where
 * JSON puts them. The text a reader selects or copies is the JSON as it came.
 */
export function jsonSample(text: string): SafeHtml {
  let out = "";
  let last = 0;
  for (const found of text.matchAll(/"(?:[^"\\\n]|\\.)*"/g)) {
    const literal = found[0];
    out += escapeHtml(text.slice(last, found.index));
    out += rightToLeft.test(literal)
      ? `"<bdi dir="rtl">${escapeHtml(literal.slice(1, -1))}</bdi>"`
      : escapeHtml(literal);
    last = found.index + literal.length;
  }
  return new SafeHtml(out + escapeHtml(text.slice(last)));
}
