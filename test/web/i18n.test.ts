// Message catalogues and the choice of a page's language: ?lang= switch (remembered in a cookie), the cookie,
// then Accept-Language; Arabic right to left; every language has every key with the same placeholders.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  catalogueOf,
  chooseLocale,
  directionOf,
  format,
  localeOfUiLocales,
  supportedLocales,
  translator,
  withLanguage,
} from "../../src/web/i18n.js";

const I18n = suite("web/i18n");

const choose = (query: string, cookie: string | undefined, acceptLanguage: string | undefined, secure = false) =>
  chooseLocale({
    query: new URLSearchParams(query),
    cookies: new Map(cookie ? [[secure ? "__Host-lp_lang" : "lp_lang", cookie]] : []),
    acceptLanguage,
    secure,
  });

I18n("Accept-Language decides when nothing was chosen", () => {
  assert.equal(choose("", undefined, "ar-AE,ar;q=0.9,en;q=0.5"), { locale: "ar" });
  assert.equal(choose("", undefined, "hi-IN"), { locale: "hi" });
  assert.equal(choose("", undefined, "fr-FR"), { locale: "en" });
  assert.equal(choose("", undefined, undefined), { locale: "en" });
});

I18n("?lang= wins and is remembered in an HttpOnly cookie; the cookie then wins over Accept-Language", () => {
  assert.equal(choose("lang=hi", undefined, "ar"), {
    locale: "hi",
    setCookie: "lp_lang=hi; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000",
  });
  assert.equal(choose("lang=hi", undefined, "ar", true), {
    locale: "hi",
    setCookie: "__Host-lp_lang=hi; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000; Secure",
  });
  assert.equal(choose("lang=hi", "hi", "ar"), { locale: "hi" });
  assert.equal(choose("", "ar", "en"), { locale: "ar" });
});

I18n(
  "ui_locales (OIDC Core 1.0 §3.1.2.1): the first supported tag by its language; above Accept-Language, below ?lang= and the cookie",
  () => {
    assert.is(localeOfUiLocales("fr-CA ar-EG hi"), "ar");
    assert.is(localeOfUiLocales("HI-in"), "hi");
    assert.is(localeOfUiLocales("fr de_DE  en-GB"), "en");
    assert.is(localeOfUiLocales("fr-CA x"), undefined);
    assert.is(localeOfUiLocales(""), undefined);
    assert.is(localeOfUiLocales(null), undefined);
    const withHint = (
      query: string,
      cookie: string | undefined,
      acceptLanguage: string | undefined,
      uiLocales: string,
    ) =>
      chooseLocale({
        query: new URLSearchParams(query),
        cookies: new Map(cookie ? [["lp_lang", cookie]] : []),
        acceptLanguage,
        secure: false,
        uiLocales,
      });
    assert.equal(withHint("", undefined, "en-GB", "ar"), { locale: "ar" });
    assert.equal(withHint("", undefined, "hi", "fr"), { locale: "hi" });
    assert.equal(withHint("", "en", "hi", "ar"), { locale: "en" });
    assert.equal(withHint("lang=hi", undefined, "en", "ar"), {
      locale: "hi",
      setCookie: "lp_lang=hi; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000",
    });
  },
);

I18n("an unknown ?lang= or cookie value is ignored", () => {
  assert.equal(choose("lang=fr", undefined, "hi"), { locale: "hi" });
  assert.equal(choose("lang=<x>", "zz", "ar"), { locale: "ar" });
});

I18n("Arabic is right to left, English and Hindi left to right", () => {
  assert.is(directionOf("ar"), "rtl");
  assert.is(directionOf("en"), "ltr");
  assert.is(directionOf("hi"), "ltr");
});

I18n("placeholders are filled; a missing value stays visible", () => {
  assert.is(format("{a} and {b}", { a: 1 }), "1 and {b}");
  assert.is(translator("en")("common.errorCode", { code: "x.y" }), "Error code: x.y");
  assert.is(translator("ar")("common.errorCode", { code: "x.y" }), "رمز الخطأ: x.y");
});

I18n("every language has every key, non-empty, with the same placeholders as English", () => {
  const english = catalogueOf("en");
  const placeholders = (text: string) => [...text.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]).sort();
  for (const locale of supportedLocales) {
    const catalogue = catalogueOf(locale);
    assert.equal(Object.keys(catalogue).sort(), Object.keys(english).sort(), locale);
    for (const [key, text] of Object.entries(catalogue)) {
      assert.ok(text.trim().length > 0, `${locale} ${key} is empty`);
      assert.equal(placeholders(text), placeholders(english[key as keyof typeof english]), `${locale} ${key}`);
    }
  }
});

I18n("the switch link keeps the path and query, replacing lang", () => {
  assert.is(withLanguage("/apps", new URLSearchParams("org=3&lang=en"), "ar"), "/apps?org=3&lang=ar");
  assert.is(withLanguage("/", new URLSearchParams(), "hi"), "/?lang=hi");
});

I18n.run();
