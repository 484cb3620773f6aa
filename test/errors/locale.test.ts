// Accept-Language negotiation, as a table of headers and the locale each selects.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { negotiateLocale, supportedLocales, type Locale } from "../../src/errors/locale.js";

const Negotiation = suite("errors/locale");

const table: Array<[string | undefined, Locale, string]> = [
  [undefined, "en", "no header"],
  ["", "en", "empty header"],
  ["ar", "ar", "plain language"],
  ["hi", "hi", "plain language"],
  ["en", "en", "plain language"],
  ["ar-AE", "ar", "region subtag falls back to the language"],
  ["en-GB", "en", "region subtag"],
  ["hi-IN", "hi", "region subtag"],
  ["AR-ae", "ar", "case-insensitive"],
  ["fr-FR, ar;q=0.5", "ar", "unsupported first choice skipped"],
  ["fr, de", "en", "nothing supported: English"],
  ["en;q=0.4, hi;q=0.9, ar;q=0.7", "hi", "highest weight wins"],
  ["ar;q=0.8, hi;q=0.8", "ar", "equal weights: header order"],
  ["hi;q=1.0, ar", "hi", "q=1.0 equals the default weight; order decides"],
  ["*", "en", "any: English first"],
  ["fr, *;q=0.5", "en", "wildcard after an unsupported language"],
  ["*, en;q=0", "ar", "wildcard with English excluded"],
  ["en;q=0, hi", "hi", "q=0 excludes"],
  ["ar;q=0, ar-AE", "en", "excluded language not reached through a region subtag"],
  ["ar-AE;q=0, ar;q=0.3", "ar", "excluding a regional variant keeps the language"],
  ["hi;q=0", "en", "only an exclusion: English as the last resort"],
  ["ar;q=2, hi", "hi", "weight above 1 is malformed and ignored"],
  ["ar;q=0.1234, hi;q=0.1", "hi", "four decimals is malformed"],
  ["ar;q=abc, hi;q=0.1", "hi", "non-numeric weight is malformed"],
  ["ar;q=, hi;q=0.1", "hi", "empty weight is malformed"],
  ["12ab, hi", "hi", "range starting with a digit is malformed"],
  ["en_US, ar", "ar", "underscore is malformed"],
  ["toolonglanguage, hi", "hi", "subtag longer than 8 is malformed"],
  [" , ;q=0.5, ar ;  q=0.9 ", "ar", "empty elements and whitespace around parameters"],
  [",,,", "en", "only separators"],
  ["zh-Hant-TW, hi-Deva-IN;q=0.2", "hi", "script and region subtags"],
];

for (const [header, expected, why] of table) {
  Negotiation(`${JSON.stringify(header)} → ${expected} (${why})`, () => {
    assert.is(negotiateLocale(header), expected);
  });
}

Negotiation("the supported locales are English, Arabic and Hindi", () => {
  assert.equal([...supportedLocales], ["en", "ar", "hi"]);
});

Negotiation.run();
