// The pages' language: one message catalogue per language (src/web/messages/), the choice of language for a
// request (a `lang` query switch, then the `lang` cookie it set, then an OIDC `ui_locales` hint, then
// Accept-Language), and the text direction.
import { isLocale, negotiateLocale, supportedLocales, type Locale } from "../errors/locale.js";
import { cookie, cookieName } from "./cookies.js";
import { ar } from "./messages/ar.js";
import type { Catalogue, MessageKey } from "./messages/catalogue.js";
import { en } from "./messages/en.js";
import { hi } from "./messages/hi.js";

export { supportedLocales, type Locale, type MessageKey };

const catalogues: Record<Locale, Catalogue> = { en, ar, hi };

/** The catalogue of a language (for tests that check a page holds no string of another language). */
export function catalogueOf(locale: Locale): Catalogue {
  return catalogues[locale];
}

/** The plural category of `count` in `locale` (CLDR rules through Intl: Arabic has six, Hindi and English two). */
export function pluralCategory(locale: Locale, count: number): Intl.LDMLPluralRule {
  return new Intl.PluralRules(locale).select(count);
}

/** A number in the reader's language (digits and grouping by Intl). */
export function formatNumber(locale: Locale, value: number): string {
  return new Intl.NumberFormat(locale).format(value);
}

/**
 * A moment in the reader's language (Intl.DateTimeFormat), in UTC and said so: the sites show the server's times,
 * never a hand-built "2026-01-02 10:00 UTC". `seconds` adds them (the request log); `year: false` leaves the year
 * out (the last day's calls and usage).
 */
export function momentText(
  locale: Locale,
  at: number | Date,
  options: { seconds?: boolean; year?: boolean } = {},
): string {
  return new Intl.DateTimeFormat(locale, {
    ...(options.year === false ? {} : { year: "numeric" }),
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(options.seconds ? { second: "2-digit" } : {}),
    timeZone: "UTC",
    timeZoneName: "short",
  }).format(at);
}

/** A day in the reader's language (Intl, `dateStyle: medium`, UTC). */
export function dayText(locale: Locale, at: number | Date): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(at);
}

/** A duration in milliseconds in the reader's language ("12.5 ms"; Intl's unit style, its plural rules included). */
export function millisecondsText(locale: Locale, value: number): string {
  return new Intl.NumberFormat(locale, { style: "unit", unit: "millisecond", unitDisplay: "short" }).format(value);
}

/**
 * The forms of a plural placeholder, `{count, plural, one {# call} other {# calls}}` (the ICU MessageFormat
 * shape, its plural part only): selectors are CLDR categories (zero, one, two, few, many, other) or an exact
 * `=N`; `#` in a form is the number in the page's language. Forms may hold `{name}` placeholders.
 */
const pluralStart = /\{([a-zA-Z]+), plural,/g;

/** The end of the `{…}` group opening at `open` (balanced braces), or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === "{") depth++;
    else if (text[index] === "}" && --depth === 0) return index;
  }
  return -1;
}

/** The selectors and forms of a plural's body (`one {…} other {…}`); undefined when malformed. */
export function pluralForms(body: string): Map<string, string> | undefined {
  const forms = new Map<string, string>();
  let rest = body.trim();
  while (rest !== "") {
    const head = /^(zero|one|two|few|many|other|=\d+)\s*\{/.exec(rest);
    if (!head) return undefined;
    const open = head[0].length - 1;
    const end = closing(rest, open);
    if (end < 0) return undefined;
    forms.set(head[1]!, rest.slice(open + 1, end));
    rest = rest.slice(end + 1).trim();
  }
  return forms.has("other") ? forms : undefined;
}

function choosePlurals(message: string, params: Record<string, string | number>, locale: Locale): string {
  let out = "";
  let from = 0;
  pluralStart.lastIndex = 0;
  for (let match = pluralStart.exec(message); match; match = pluralStart.exec(message)) {
    const end = closing(message, match.index);
    const forms = end < 0 ? undefined : pluralForms(message.slice(match.index + match[0].length, end));
    const value = params[match[1]!];
    if (!forms || end < 0 || typeof value !== "number") continue; // Left as written: visible in tests.
    const form = forms.get(`=${value}`) ?? forms.get(pluralCategory(locale, value)) ?? forms.get("other")!;
    out += message.slice(from, match.index) + form.replaceAll("#", formatNumber(locale, value));
    from = end + 1;
    pluralStart.lastIndex = end + 1;
  }
  return out + message.slice(from);
}

/**
 * Fills a message: its plural placeholders first (the form of the count's plural category in `locale`, see
 * `pluralForms`), then its `{name}` placeholders. A placeholder without a value stays as written (visible in tests).
 */
export function format(message: string, params: Record<string, string | number> = {}, locale: Locale = "en"): string {
  return choosePlurals(message, params, locale).replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

/** A translator: the message of `key` in one language, placeholders filled. Text, escaped where a page inserts it. */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const catalogue = catalogues[locale];
  return (key, params) => format(catalogue[key], params, locale);
}

/** Arabic is written right to left; English and Hindi left to right. */
export function directionOf(locale: Locale): "rtl" | "ltr" {
  return locale === "ar" ? "rtl" : "ltr";
}

/** The language switch's cookie: a preference, not a secret, but HttpOnly anyway (no script needs it). */
export const languageCookieSeconds = 365 * 24 * 3600;

export interface LocaleChoice {
  locale: Locale;
  /** A Set-Cookie remembering an explicit `?lang=` choice; absent when nothing changed. */
  setCookie?: string;
}

/**
 * The first supported language of an OIDC `ui_locales` value (OpenID Connect Core 1.0 §3.1.2.1: space-separated
 * BCP 47 tags, most preferred first). A tag counts by its language subtag (`ar-EG` is `ar`, as Accept-Language's
 * `ar-EG` is); a tag we do not have, or a malformed one, is skipped, never an error ("SHOULD NOT result in errors").
 */
export function localeOfUiLocales(value: string | null | undefined): Locale | undefined {
  if (!value) return undefined;
  for (const tag of value.split(" ")) {
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) continue;
    const language = tag.split("-")[0]!.toLowerCase();
    if (isLocale(language)) return language;
  }
  return undefined;
}

/**
 * The language of a page: `?lang=xx` (the switch on every page; remembered in a cookie), else the cookie, else the
 * app's `uiLocales` hint (OIDC `ui_locales` on /oauth/authorize: the app knows its user's language, the browser's
 * settings may not), else Accept-Language (RFC 9110 §12.5.4, negotiated as the error messages are), else English.
 */
export function chooseLocale(request: {
  query: URLSearchParams;
  cookies: Map<string, string>;
  acceptLanguage: string | undefined;
  secure: boolean;
  uiLocales?: string | null;
}): LocaleChoice {
  const name = cookieName("lp_lang", request.secure);
  const asked = request.query.get("lang");
  if (asked !== null && isLocale(asked)) {
    return asked === request.cookies.get(name)
      ? { locale: asked }
      : { locale: asked, setCookie: cookie(name, asked, { secure: request.secure, maxAge: languageCookieSeconds }) };
  }
  const remembered = request.cookies.get(name);
  if (remembered !== undefined && isLocale(remembered)) return { locale: remembered };
  return { locale: localeOfUiLocales(request.uiLocales) ?? negotiateLocale(request.acceptLanguage) };
}

/** The same page in another language: the current path and query with `lang` replaced (for the switch links). */
export function withLanguage(path: string, query: URLSearchParams, locale: Locale): string {
  const next = new URLSearchParams(query);
  next.set("lang", locale);
  return `${path}?${next.toString()}`;
}
