// The consent site's page frame and error page: the language and direction of the visitor's locale, and a title
// that tells an outage (try again) from a refusal of the app.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { errorPage } from "../../src/consent/pages.js";

const at = (locale: "en" | "ar" | "hi") => ({ locale, here: { path: "/oauth/connections" } });

const Pages = suite("consent/pages");

Pages("an error page names its language; Arabic reads right to left", () => {
  assert.match(errorPage("oauth.invalid_request", at("en"), { fields: "state" }), '<html lang="en" dir="ltr">');
  assert.match(errorPage("oauth.invalid_request", at("hi"), { fields: "state" }), '<html lang="hi" dir="ltr">');
  assert.match(errorPage("oauth.invalid_request", at("ar"), { fields: "state" }), '<html lang="ar" dir="rtl">');
});

Pages("a refusal says the app cannot connect; an outage says to try again", () => {
  assert.match(errorPage("oauth.invalid_request", at("en"), { fields: "state" }), "<h1>Cannot connect this app</h1>");
  assert.match(errorPage("server.database_unavailable", at("en"), { retryAfter: "5" }), "<h1>Temporarily unavailable</h1>");
  assert.match(errorPage("server.unavailable", at("en")), "<h1>Temporarily unavailable</h1>");
  assert.match(errorPage("server.unavailable", at("en")), "Error code: <code>server.unavailable</code>");
});

Pages.run();
