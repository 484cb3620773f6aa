// The consent site's page frame and error page: the language and direction of the visitor's locale, and a title
// that tells an outage (try again) from a refusal of the app.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { consentPage, type ConsentView } from "../../src/consent/consent-page.js";
import { errorPage } from "../../src/consent/pages.js";
import { entryOf } from "../../src/errors/index.js";

const at = (locale: "en" | "ar" | "hi") => ({ locale, here: { path: "/oauth/connections" } });

const Pages = suite("consent/pages");

Pages("an error page names its language; Arabic reads right to left", () => {
  assert.match(errorPage("oauth.invalid_request", at("en"), { fields: "state" }), '<html lang="en" dir="ltr">');
  assert.match(errorPage("oauth.invalid_request", at("hi"), { fields: "state" }), '<html lang="hi" dir="ltr">');
  assert.match(errorPage("oauth.invalid_request", at("ar"), { fields: "state" }), '<html lang="ar" dir="rtl">');
});

Pages("a refusal says the app cannot connect; an outage says to try again", () => {
  assert.match(errorPage("oauth.invalid_request", at("en"), { fields: "state" }), "<h1>Cannot connect this app</h1>");
  assert.match(
    errorPage("server.database_unavailable", at("en"), { retryAfter: "5" }),
    "<h1>Temporarily unavailable</h1>",
  );
  assert.match(errorPage("server.unavailable", at("en")), "<h1>Temporarily unavailable</h1>");
  assert.match(errorPage("server.unavailable", at("en")), "Error code: <code>server.unavailable</code>");
});

Pages(
  "parameter names in an error message are <code> in every language, each name of a list on its own; the words stay escaped",
  () => {
    for (const locale of ["en", "ar", "hi"] as const) {
      const page = errorPage("oauth.invalid_request", at(locale), { fields: "response_type" });
      const [before, after] = entryOf("oauth.invalid_request").messages[locale].split("{fields}");
      assert.match(page, `<p>${before}<code>response_type</code>${after}</p>`, locale);
      assert.match(
        errorPage("oauth.invalid_request", at(locale), { fields: "scope, state" }),
        `${before}<code>scope</code>, <code>state</code>${after}`,
        locale,
      );
    }
    assert.match(errorPage("oauth.invalid_request", at("en"), { fields: "<b>" }), "<code>&lt;b&gt;</code>");
    // A param that is not a name (a number of seconds) is plain text.
    assert.match(errorPage("server.database_unavailable", at("en"), { retryAfter: "5" }), "5");
    assert.not.match(errorPage("server.database_unavailable", at("en"), { retryAfter: "5" }), "<code>5</code>");
  },
);

const view = (links: ConsentView["links"]): ConsentView => ({
  appId: "app_links",
  appName: "Stock Sync",
  organizationName: "Acme Partners",
  reviewed: true,
  product: "FULL",
  scopes: ["stores.read"],
  companyName: "Corner Shop",
  email: "owner@shop.test",
  owner: true,
  csrf: "csrf-token",
  redirectHost: "app.example.com",
  links,
  params: {},
});

Pages("the app's links beside who is asking: only those given, noopener noreferrer, in the page's language", () => {
  const all = consentPage(at("en"), {
    ...view({
      website: "https://acme.example.com/",
      privacyUrl: "https://acme.example.com/privacy?a=1&b=2",
      termsUrl: "https://acme.example.com/terms",
    }),
  });
  const asker = all.slice(all.indexOf('<div class="asker">'), all.indexOf('<p class="lead">'));
  assert.match(
    asker,
    '<ul class="app-links asker-links"><li><a href="https://acme.example.com/" rel="noopener noreferrer">Website</a></li><li><a href="https://acme.example.com/privacy?a=1&amp;b=2" rel="noopener noreferrer">Privacy policy</a></li><li><a href="https://acme.example.com/terms" rel="noopener noreferrer">Terms of service</a></li></ul>',
  );
  assert.not.match(all, "target=");
  assert.not.match(all, "The developer has not given");
  // One given: only that one.
  const one = consentPage(at("hi"), view({ termsUrl: "https://acme.example.com/terms" }));
  assert.match(
    one,
    '<ul class="app-links asker-links"><li><a href="https://acme.example.com/terms" rel="noopener noreferrer">सेवा की शर्तें</a></li></ul>',
  );
  // None (a sandbox app's developer may not have given them yet): no list, and the page says so further down.
  const none = consentPage(at("ar"), view({}));
  assert.not.match(none, "asker-links");
  assert.match(none, '<p class="muted">لم يقدّم المطوّر');
});

Pages.run();
