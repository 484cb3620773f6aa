// "No English string left" on a page in another language, checked against the catalogue rather than a word list:
// every English message that the page's language translates differently is cut at its placeholders (and plural
// forms), and no piece
// of it (three letters or more) may appear in the page's visible text. Data (app, shop and people's names) is
// not in the catalogue, so it never counts; the language switch names each language in its own script on purpose.
import { catalogueOf, type Locale, type MessageKey } from "../../src/web/i18n.js";

/** Keys whose English value legitimately shows on every page: the switch's "English". */
const shownInEveryLanguage = new Set<MessageKey>(["common.languageName"]);

/** The site a page belongs to: its own keys and the common ones are checked (another site's "App" is data here). */
export type Site = "consent" | "console";

/** The English pieces that must not appear on a page of `site` in `locale`. */
export function englishPieces(locale: Locale, site: Site = "consent"): { key: MessageKey; piece: string }[] {
  const english = catalogueOf("en");
  const local = catalogueOf(locale);
  const pieces: { key: MessageKey; piece: string }[] = [];
  for (const key of Object.keys(english) as MessageKey[]) {
    if (!key.startsWith(`${site}.`) && !key.startsWith("common.")) continue;
    if (shownInEveryLanguage.has(key) || english[key] === local[key]) continue;
    // Cut at placeholders, and at a plural's syntax (`{count, plural, one {# call} other {# calls}}`): each form's
    // words are pieces of their own.
    for (const piece of english[key].split(
      /\{[a-zA-Z]+\}|\{[a-zA-Z]+, plural,|(?:zero|one|two|few|many|other|=\d+) \{|[{}#]/,
    )) {
      const trimmed = piece
        .trim()
        .replace(/^[(·:,.;]+|[)·:,.;]+$/g, "")
        .trim();
      if (/[A-Za-z]{3}/.test(trimmed)) pieces.push({ key, piece: trimmed });
    }
  }
  return pieces;
}

/** The English pieces found in `text` (a page's visible text), as "key: piece"; empty when none. */
export function englishLeftIn(text: string, locale: Locale, site: Site = "consent"): string[] {
  if (locale === "en") return [];
  const escaped = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return englishPieces(locale, site)
    .filter(({ piece }) => new RegExp(`(^|[^A-Za-z])${escaped(piece)}([^A-Za-z]|$)`).test(text))
    .map(({ key, piece }) => `${key}: ${piece}`);
}

/** The visible text of a server-rendered page: the body without tags, entities decoded (no script on our pages). */
export function visibleText(html: string): string {
  const body = html.replace(/^[\s\S]*?<body[^>]*>/, "").replace(/<\/body>[\s\S]*$/, "");
  return (
    body
      // <code> holds identifiers (scope names, error codes), never catalogue text: "stores.read" is not English prose.
      .replace(/<code>[^<]*<\/code>/g, " ")
      .replace(/<[^>]+>/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&#96;/g, "`")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
  );
}
