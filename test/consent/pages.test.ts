// The consent site's page frame and error page: the language and direction of the visitor's locale, and a title
// that tells an outage (try again) from a refusal of the app.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
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

Pages.run();
