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

/** Fills a message's `{name}` placeholders; a placeholder without a value stays as written (visible in tests). */
export function format(message: string, params: Record<string, string | number> = {}): string {
  return message.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A translator: the message of `key` in one language, placeholders filled. Text, escaped where a page inserts it. */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const catalogue = catalogues[locale];
  return (key, params) => format(catalogue[key], params);
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
