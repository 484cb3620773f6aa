// Which language an error message is written in: the supported locales and Accept-Language negotiation.

/** Locales every catalogue message is written in. English is the default and the last resort. */
export const supportedLocales = ["en", "ar", "hi"] as const;

/** A locale the catalogue has messages for. */
export type Locale = (typeof supportedLocales)[number];

/** The locale used when the client states no acceptable preference. */
export const defaultLocale: Locale = "en";

/** True when `tag` (exactly, lower case) is one of the supported locales. */
export function isLocale(tag: string): tag is Locale {
  return (supportedLocales as readonly string[]).includes(tag);
}

/** A language range per RFC 9110 §12.5.4: `*` or alphanumeric subtags of 1 to 8 characters, the first alphabetic. */
const languageRange = /^(?:\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/;
/** A weight per RFC 9110 §12.4.2: 0 to 1 with at most three decimals. */
const qvalue = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

interface WeightedRange {
  range: string;
  q: number;
  order: number;
}

/** Parses one comma-separated element; undefined when it is malformed (such an element is ignored). */
function parseElement(element: string, order: number): WeightedRange | undefined {
  const [rawRange = "", ...parameters] = element.split(";");
  const range = rawRange.trim().toLowerCase();
  if (!languageRange.test(range)) return undefined;
  let q = 1;
  for (const parameter of parameters) {
    const [name = "", value = "", ...rest] = parameter.split("=");
    if (name.trim().toLowerCase() !== "q") continue; // Accept-Language defines no other parameter; tolerate one.
    const weight = value.trim();
    if (rest.length > 0 || !qvalue.test(weight)) return undefined;
    q = Number(weight);
  }
  return { range, q, order };
}

/**
 * Picks the message locale from an Accept-Language header (RFC 9110 §12.5.4).
 *
 * Ranges are tried by descending weight (ties in header order). A range with a region or script subtag
 * falls back to its language (`ar-AE` → `ar`, `en-GB` → `en`, `hi-IN` → `hi`, RFC 4647 lookup). `*` stands for
 * any supported locale not excluded, English first. `q=0` excludes the locale named exactly by that range
 * (`ar;q=0`, not `ar-AE;q=0`). Malformed elements are ignored. When nothing acceptable is supported, the answer
 * is English: an error must still be told in some language.
 */
export function negotiateLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return defaultLocale;
  const ranges = acceptLanguage
    .split(",")
    .map((element, order) => parseElement(element, order))
    .filter((parsed): parsed is WeightedRange => parsed !== undefined);
  const excluded = new Set(ranges.filter((r) => r.q === 0).map((r) => r.range));
  const acceptable = (locale: Locale): boolean => !excluded.has(locale);
  const preferred = ranges.filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { range } of preferred) {
    if (range === "*") {
      const any = supportedLocales.find(acceptable);
      if (any) return any;
      continue;
    }
    const language = range.split("-")[0] ?? "";
    if (isLocale(language) && acceptable(language)) return language;
  }
  return defaultLocale;
}
