// The console's mail words (src/web/mail-texts.ts) in en, ar and hi: every value inside a sentence (an inviter's
// address, an organization's or app's name, a URL, a moment) is isolated with U+2068…U+2069 as the pages isolate
// theirs in <bdi>, so a Latin value in an Arabic subject keeps its own direction and the sentence's punctuation; the
// notice of a disabled webhook endpoint is in the member's language too (it was English only).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { endpointDisabledMailText, invitationMailText, isolated } from "../../src/web/mail-texts.js";
import { supportedLocales, type Locale } from "../../src/web/i18n.js";

const Mail = suite("web/mail-texts");
const fsi = "\u2068";
const pdi = "\u2069";
const facts = {
  organization: "Acme POS.",
  inviter: "owner@acme.test",
  role: "DEVELOPER" as const,
  expiresAt: new Date("2026-12-01T10:00:00Z"),
};

Mail("an Arabic invitation's subject and text isolate the inviter and the organization", () => {
  const { subject, text } = invitationMailText("ar", facts);
  assert.is(subject, `دعاك ${fsi}owner@acme.test${pdi} إلى ${fsi}Acme POS.${pdi} على \u2066LP Partners\u2069`);
  assert.ok(text.includes(`${fsi}owner@acme.test${pdi}`), text);
  assert.ok(text.includes(`${fsi}Acme POS.${pdi}`), text);
  // The expiry (Intl's Arabic date with its Latin "UTC") too.
  assert.match(text, new RegExp(`${fsi}[^${pdi}]*UTC${pdi}`));
});

for (const locale of supportedLocales as readonly Locale[]) {
  Mail(`${locale}: every value of an invitation is isolated, none left bare`, () => {
    const { subject, text } = invitationMailText(locale, facts);
    for (const value of [facts.organization, facts.inviter]) {
      assert.ok(subject.includes(isolated(value)), `${locale} subject: ${subject}`);
      assert.ok(text.includes(isolated(value)), `${locale} text: ${text}`);
      assert.is(subject.split(value).length - 1, subject.split(isolated(value)).length - 1, subject);
    }
  });

  Mail(`${locale}: the disabled endpoint's notice, its app and URL isolated, its days counted`, () => {
    const { subject, text } = endpointDisabledMailText(locale, {
      app: "Till sync",
      url: "https://hooks.acme.test/pos",
      days: 3,
    });
    assert.ok(subject.includes(isolated("Till sync")), subject);
    assert.ok(text.includes(isolated("Till sync")), text);
    assert.ok(text.includes(isolated("https://hooks.acme.test/pos")), text);
    assert.not.match(text, /\{|\}/, "every placeholder filled");
    if (locale === "ar") assert.ok(text.includes("3 أيام"), text);
    if (locale !== "en") assert.not.match(subject, /disabled/);
  });
}

Mail.run();
