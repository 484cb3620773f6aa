// The consent site in the merchant's language, over plain HTTP: every page in en, ar and hi with its lang and dir,
// no English string left on an Arabic or Hindi page (checked against the catalogue), the language chosen by the
// switch (?lang=, remembered in a cookie), else the cookie, else Accept-Language; a switch that keeps the OAuth
// request; and the kit's CSP (no inline script or style, frame-ancestors 'none') with the stylesheet it allows.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { accessRequestsPage } from "../../src/consent/access-requests-page.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { directionOf, translator, type Locale } from "../../src/web/i18n.js";
import { englishLeftIn, visibleText } from "../support/catalogue-leaks.js";
import { assertNotFramable, createBrowser, type Browser, type Page } from "../support/consent.js";
import { authorizeUrl, hiddenValue, newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Languages = suite("consent/languages");
const clock = createManualClock(Date.now());
let test: TestApp;
let serial = 0;

Languages.before(async () => {
  test = await startTestApp({ clock, redis: true });
});
Languages.after(async () => {
  await test.stop();
});

const locales: Locale[] = ["en", "ar", "hi"];

async function world(): Promise<World> {
  return newWorld(test, clock, `http://127.0.0.1:9/languages/${++serial}`);
}

/** A page in `locale`: lang and dir on <html>, Content-Language, no framing, no inline script or style, no English left. */
function assertInLanguage(page: Page, locale: Locale, name: string): void {
  assert.match(page.html, `<html lang="${locale}" dir="${directionOf(locale)}">`, `${name}: lang and dir`);
  assert.is(page.headers.get("content-language"), locale, `${name}: Content-Language`);
  assertNotFramable(page);
  assert.not.match(page.html, /<script|\sstyle=|<style/, `${name}: no inline script or style`);
  assert.equal(englishLeftIn(visibleText(page.html), locale), [], `${name}: English left on the ${locale} page`);
}

for (const locale of locales) {
  Languages(
    `${locale}: sign-in, consent screen, connections, access requests, errors and sign-out all in ${locale}`,
    async () => {
      const t = translator(locale);
      const w = await world();
      const owner: Browser = createBrowser(test);
      const authorize = authorizeUrl(test, w, { lang: locale });

      const signInPage = await owner.get(authorize);
      assert.is(signInPage.status, 200);
      assertInLanguage(signInPage, locale, "sign-in");
      assert.match(signInPage.html, `<label for="email">${t("consent.email")}</label>`);
      assert.match(signInPage.html, `<button type="submit">${t("consent.signIn")}</button>`);
      assert.ok(
        signInPage.setCookie.some((line) =>
          line.startsWith(`lp_lang=${locale}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000`),
        ),
        "the choice is remembered",
      );

      const signedIn = await owner.signIn(signInPage, w.owner);
      assert.is(signedIn.status, 303);
      const consent = await owner.get(signedIn.headers.get("location")!);
      assert.is(consent.status, 200);
      assertInLanguage(consent, locale, "consent");
      for (const key of [
        "consent.scope.stores.read",
        "consent.scope.items.write",
        "consent.scope.categories.write",
        "consent.scope.orders.read",
        "consent.scope.reports.read",
        "consent.product.FULL",
      ] as const) {
        assert.match(consent.html, t(key), key);
      }
      // A .write phrase already says "see and change": the .read beside it is not repeated.
      assert.not.match(consent.html, `<li>${t("consent.scope.items.read")}</li>`);
      assert.match(consent.html, `<li>${t("consent.scope.stores.read")}</li>`);
      assert.match(
        consent.html,
        `value="allow">${t("consent.allow")}</button> <button type="submit" name="decision" value="deny" class="secondary">${t("consent.deny")}</button>`,
      );
      assert.match(consent.html, `<a href="/oauth/connections">${t("consent.connectionsLink")}</a>`);

      const connections = await owner.get("/oauth/connections");
      assert.is(connections.status, 200);
      assertInLanguage(connections, locale, "connections");
      const requests = await owner.get("/oauth/access-requests");
      assert.is(requests.status, 200);
      assertInLanguage(requests, locale, "access requests");
      assert.match(requests.html, t("consent.noPending"));

      const refused = await owner.get(authorizeUrl(test, w, { response_type: "token" }));
      assert.is(refused.status, 400);
      assertInLanguage(refused, locale, "error");
      assert.match(refused.html, `<h1>${t("consent.cannotConnectTitle")}</h1>`);
      const missing = await owner.get("/oauth/nothing-here");
      assert.is(missing.status, 404);
      assertInLanguage(missing, locale, "not found");
      const wrongMethod = await owner.post("/oauth/connections", {});
      assert.is(wrongMethod.status, 405);
      assertInLanguage(wrongMethod, locale, "method not allowed");
      const otherSite = await owner.post(
        "/oauth/sign-out",
        { csrf: hiddenValue(connections.html, "csrf") },
        { origin: "https://evil.example" },
      );
      assert.is(otherSite.status, 403);
      assertInLanguage(otherSite, locale, "refused");

      const employee = createBrowser(test);
      const employeeSignIn = await employee.get(authorize);
      const employeeConsent = await employee.get(
        (await employee.signIn(employeeSignIn, w.employee)).headers.get("location")!,
      );
      assertInLanguage(employeeConsent, locale, "employee card");
      assert.match(employeeConsent.html, `<h2>${t("consent.askOwnerTitle")}</h2>`);
      assert.not.match(employeeConsent.html, 'value="allow"');

      const signedOut = await owner.post("/oauth/sign-out", { csrf: hiddenValue(connections.html, "csrf") });
      assert.is(signedOut.status, 200);
      assertInLanguage(signedOut, locale, "signed out");
      const ended = await owner.post("/oauth/sign-out", { csrf: hiddenValue(connections.html, "csrf") });
      assert.is(ended.status, 401);
      assertInLanguage(ended, locale, "session ended");
    },
  );
}

Languages("the access requests of an owner, with rows, hold no English in ar and hi", () => {
  const row = {
    id: "7",
    appId: "app_reports",
    appName: "Reports App",
    organizationName: "Acme Ltd",
    reviewed: true,
    state: "PENDING",
    storeIds: [11, 12],
    approvedStoreIds: [11],
    created: new Date("2026-11-01T00:00:00Z"),
    expires: new Date("2026-12-01T00:00:00Z"),
  };
  for (const locale of locales) {
    for (const owner of [true, false]) {
      const text = visibleText(
        accessRequestsPage(
          { locale, here: { path: "/oauth/access-requests" } },
          { companyName: "Shop", owner, csrf: "x".repeat(43), pending: [row], approved: [row] },
        ),
      );
      assert.equal(englishLeftIn(text, locale), [], `${locale}, owner ${owner}`);
      assert.match(text, translator(locale)("consent.store", { store: 12 }));
    }
  }
});

Languages("Accept-Language chooses when nothing else does; the lang cookie beats it; ?lang= beats both", async () => {
  const w = await world();
  const get = (url: string, headers: Record<string, string>) => fetch(url, { redirect: "manual", headers });
  const langOf = async (response: Response) => /<html lang="([a-z]+)"/.exec(await response.text())?.[1];
  assert.is(await langOf(await get(authorizeUrl(test, w), { "accept-language": "hi-IN,hi;q=0.9,en;q=0.5" })), "hi");
  assert.is(await langOf(await get(authorizeUrl(test, w), { "accept-language": "fr-FR, ar;q=0.5" })), "ar");
  assert.is(await langOf(await get(authorizeUrl(test, w), { "accept-language": "fr-FR" })), "en");
  assert.is(await langOf(await get(authorizeUrl(test, w), { "accept-language": "hi", cookie: "lp_lang=ar" })), "ar");
  assert.is(
    await langOf(await get(authorizeUrl(test, w, { lang: "en" }), { "accept-language": "hi", cookie: "lp_lang=ar" })),
    "en",
  );
  // An unknown ?lang= or cookie value is ignored, not an error.
  assert.is(
    await langOf(await get(authorizeUrl(test, w, { lang: "xx" }), { "accept-language": "hi", cookie: "lp_lang=zz" })),
    "hi",
  );
});

Languages(
  "OIDC ui_locales (space-separated BCP 47, first supported wins) beats Accept-Language; the switch and its cookie beat ui_locales",
  async () => {
    const w = await world();
    const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { redirect: "manual", headers });
    const langOf = async (response: Response) => /<html lang="([a-z]+)"/.exec(await response.text())?.[1];
    const english = { "accept-language": "en-GB,en;q=0.9" };
    assert.is(await langOf(await get(authorizeUrl(test, w, { ui_locales: "ar" }), english)), "ar");
    // Unsupported and malformed tags are skipped, never an error; a region subtag counts by its language.
    assert.is(await langOf(await get(authorizeUrl(test, w, { ui_locales: "fr-CA de_DE hi-IN ar" }), english)), "hi");
    assert.is(
      await langOf(await get(authorizeUrl(test, w, { ui_locales: "fr-CA" }), { "accept-language": "ar" })),
      "ar",
    );
    assert.is(await langOf(await get(authorizeUrl(test, w, { ui_locales: "" }), { "accept-language": "hi" })), "hi");
    // An explicit choice wins: ?lang= and the cookie it set.
    assert.is(await langOf(await get(authorizeUrl(test, w, { ui_locales: "ar", lang: "hi" }), english)), "hi");
    assert.is(
      await langOf(await get(authorizeUrl(test, w, { ui_locales: "ar" }), { ...english, cookie: "lp_lang=en" })),
      "en",
    );
    // An error page of the request speaks it too (the hint is read before the request is checked).
    const refused = await get(authorizeUrl(test, w, { ui_locales: "ar", response_type: "token" }), english);
    assert.is(refused.status, 400);
    assert.is(await langOf(refused), "ar");
    // Only the authorize request carries the hint: another page of the site does not read it.
    assert.is(await langOf(await get(`${test.auth}/oauth/connections?ui_locales=ar`, english)), "en");

    // Through sign-in (the hint rides in return_to) to the consent screen, and on the decision form.
    const browser = createBrowser(test);
    const signInPage = await browser.get(authorizeUrl(test, w, { ui_locales: "hi" }));
    assertInLanguage(signInPage, "hi", "sign-in from ui_locales");
    const failed = await browser.signIn(signInPage, { email: w.owner.email, password: "not the password" });
    assert.is(failed.status, 401);
    assertInLanguage(failed, "hi", "failed sign-in keeps ui_locales");
    const signedIn = await browser.signIn(signInPage, w.owner);
    assert.is(signedIn.status, 303);
    const consent = await browser.get(signedIn.headers.get("location")!);
    assertInLanguage(consent, "hi", "consent from ui_locales");
    assert.is(hiddenValue(consent.html, "ui_locales"), "hi");
    const neither = await browser.post("/oauth/authorize/decision", {
      csrf: hiddenValue(consent.html, "csrf"),
      ...Object.fromEntries(new URL(authorizeUrl(test, w, { ui_locales: "hi" })).searchParams),
      decision: "maybe",
    });
    assert.is(neither.status, 400);
    assertInLanguage(neither, "hi", "the decision's page keeps ui_locales");
  },
);

Languages(
  "the language switch keeps the OAuth request; switching and signing in still lands on the same consent request",
  async () => {
    const w = await world();
    const browser = createBrowser(test);
    const authorize = authorizeUrl(test, w, {
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const english = await browser.get(authorize);
    const csrf = hiddenValue(english.html, "csrf");
    const link = /<a href="([^"]+)" lang="ar" hreflang="ar">العربية<\/a>/
      .exec(english.html)?.[1]
      ?.replace(/&amp;/g, "&");
    assert.ok(link, "a switch to Arabic");
    const target = new URL(link!, test.auth);
    assert.is(target.pathname, "/oauth/authorize");
    for (const [name, value] of new URL(authorize).searchParams) assert.is(target.searchParams.get(name), value, name);
    assert.is(target.searchParams.get("lang"), "ar");

    const arabic = await browser.get(target.href);
    assert.is(arabic.status, 200);
    assertInLanguage(arabic, "ar", "switched sign-in");
    assert.is(hiddenValue(arabic.html, "csrf"), csrf, "the pre-sign-in CSRF token survives the switch");
    const signedIn = await browser.signIn(arabic, w.owner);
    assert.is(signedIn.status, 303);
    const consent = await browser.get(signedIn.headers.get("location")!);
    assertInLanguage(consent, "ar", "consent after the switch");
    assert.is(hiddenValue(consent.html, "code_challenge"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    assert.is(hiddenValue(consent.html, "state"), "st-1");
  },
);

Languages(
  "the CSP allows our stylesheet and nothing inline; the stylesheet is served, cacheable, under the linked URL",
  async () => {
    const w = await world();
    const browser = createBrowser(test);
    const page = await browser.get(authorizeUrl(test, w));
    const csp = page.headers.get("content-security-policy")!;
    assert.is(
      csp,
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const href = /<link rel="stylesheet" href="(\/assets\/site\.[0-9a-f]{16}\.css)">/.exec(page.html)?.[1];
    assert.ok(href, "the page links the hashed stylesheet");
    const css = await fetch(test.auth + href);
    assert.is(css.status, 200);
    assert.is(css.headers.get("content-type"), "text/css; charset=utf-8");
    assert.is(css.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.match(await css.text(), "prefers-color-scheme: dark");
    const again = await fetch(test.auth + href, { headers: { "if-none-match": css.headers.get("etag")! } });
    assert.is(again.status, 304);

    const signedIn = await browser.signIn(page, w.owner);
    const consent = await browser.get(signedIn.headers.get("location")!);
    // The consent form also leads to the app's redirect URI (form-action), and still nothing inline.
    assert.is(
      consent.headers.get("content-security-policy"),
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; form-action 'self' http://127.0.0.1:9; frame-ancestors 'none'; base-uri 'none'",
    );
  },
);

Languages.run();
