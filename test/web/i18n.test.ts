// Message catalogues and the choice of a page's language: ?lang= switch (remembered in a cookie), the cookie,
// then Accept-Language; Arabic right to left; every language has every key with the same placeholders.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  catalogueOf,
  chooseLocale,
  directionOf,
  format,
  formatNumber,
  localeOfUiLocales,
  momentText,
  pluralCategory,
  pluralForms,
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
  const placeholders = (text: string) =>
    [...new Set([...text.matchAll(/\{([a-zA-Z]+)(?:\}|, plural,)/g)].map((m) => m[1]))].sort();
  for (const locale of supportedLocales) {
    const catalogue = catalogueOf(locale);
    assert.equal(Object.keys(catalogue).sort(), Object.keys(english).sort(), locale);
    for (const [key, text] of Object.entries(catalogue)) {
      assert.ok(text.trim().length > 0, `${locale} ${key} is empty`);
      assert.equal(placeholders(text), placeholders(english[key as keyof typeof english]), `${locale} ${key}`);
    }
  }
});

I18n("plural forms follow the language's rules: Arabic's six, Hindi's and English's two", () => {
  const message =
    "{count, plural, zero {zero} one {one} two {two} few {few #} many {many #} other {other #}} of {name}";
  const forms = (locale: "en" | "ar" | "hi") =>
    [0, 1, 2, 3, 11, 100].map((count) => format(message, { count, name: "N" }, locale));
  assert.equal(forms("ar"), ["zero of N", "one of N", "two of N", "few 3 of N", "many 11 of N", "other 100 of N"]);
  assert.equal(forms("hi"), [
    "one of N",
    "one of N",
    "other 2 of N",
    "other 3 of N",
    "other 11 of N",
    "other 100 of N",
  ]);
  assert.equal(forms("en"), [
    "other 0 of N",
    "one of N",
    "other 2 of N",
    "other 3 of N",
    "other 11 of N",
    "other 100 of N",
  ]);
  assert.is(pluralCategory("ar", 103), "few");
  // An exact =N form wins over the category; a missing category falls back to other.
  assert.is(format("{n, plural, =0 {none} one {# one} other {# more}}", { n: 0 }, "en"), "none");
  assert.is(format("{n, plural, one {# one} other {# more}}", { n: 2 }, "ar"), "2 more");
  // Without a number the placeholder stays as written (visible in tests), as a missing {name} does.
  assert.is(format("{n, plural, other {#}}", {}, "en"), "{n, plural, other {#}}");
  assert.is(format("{n, plural, other {#}}", { n: "3" }, "en"), "{n, plural, other {#}}");
  // `#` is the number in the page's language: grouped as Intl groups it.
  assert.is(format("{n, plural, other {# calls}}", { n: 1000 }, "en"), "1,000 calls");
  assert.is(format("{n, plural, other {# calls}}", { n: 1000 }, "hi"), `${formatNumber("hi", 1000)} calls`);
});

I18n("the catalogues' counted messages in each language", () => {
  const caption = (locale: "en" | "ar" | "hi", count: number) =>
    translator(locale)("console.requestLogCaption", { count });
  assert.is(caption("en", 1), "Partner calls, newest first: 1 call shown");
  assert.is(caption("en", 3), "Partner calls, newest first: 3 calls shown");
  assert.equal(
    [0, 1, 2, 3, 11, 100].map((count) => caption("ar", count).split(": ")[1]),
    [
      "لا استدعاءات معروضة",
      "استدعاء واحد معروض",
      "استدعاءان معروضان",
      "3 استدعاءات معروضة",
      "11 استدعاءً معروضًا",
      "100 استدعاء معروض",
    ],
  );
  assert.is(caption("hi", 1), "पार्टनर कॉल, नई पहले: 1 दिखाई गई");
  assert.is(caption("hi", 5), "पार्टनर कॉल, नई पहले: 5 दिखाई गईं");
  assert.is(
    translator("ar")("console.rotationOverlap", { until: "X", hours: 2 }),
    "يبقى السر السابق صالحًا حتى X (نحو ساعتين)، ثم يتوقف.",
  );
  assert.is(
    translator("en")("console.lockoutRule", { attempts: 1, minutes: 15 }),
    "After 1 wrong password, signing in with this email from the same network is paused for 15 minutes; from elsewhere it only waits a few seconds.",
  );
});

I18n("every plural message has an other form and only the forms its language has", () => {
  for (const locale of supportedLocales) {
    const categories = new Set<string>(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
    for (const [key, text] of Object.entries(catalogueOf(locale))) {
      for (const match of text.matchAll(/\{[a-zA-Z]+, plural,/g)) {
        let depth = 0;
        let end = match.index;
        for (; end < text.length; end++) {
          if (text[end] === "{") depth++;
          else if (text[end] === "}" && --depth === 0) break;
        }
        const forms = pluralForms(text.slice(match.index + match[0].length, end));
        assert.ok(forms, `${locale} ${key}: a well-formed plural`);
        for (const selector of forms!.keys())
          assert.ok(selector.startsWith("=") || categories.has(selector), `${locale} ${key}: ${selector}`);
      }
    }
  }
});

I18n("dates and times are the reader's, by Intl, in UTC", () => {
  const at = Date.UTC(2026, 10, 23, 16, 5);
  assert.is(
    momentText("en", at),
    new Intl.DateTimeFormat("en", {
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: "UTC",
      timeZoneName: "short",
    }).format(at),
  );
  assert.match(momentText("en", at), "Nov 23, 2026");
  assert.match(momentText("ar", at), "نوفمبر");
  assert.match(momentText("hi", at), "नव");
  assert.not.match(momentText("en", at, { year: false }), "2026");
});

I18n("the switch link keeps the path and query, replacing lang", () => {
  assert.is(withLanguage("/apps", new URLSearchParams("org=3&lang=en"), "ar"), "/apps?org=3&lang=ar");
  assert.is(withLanguage("/", new URLSearchParams(), "hi"), "/?lang=hi");
});

I18n.run();
