// The consent flow in chromium in each language (en, ar, hi), every control found by its accessible name in that
// language: English from an English browser, Arabic negotiated from the browser's Accept-Language, Hindi chosen
// with the language switch on the sign-in page (which must keep the OAuth request and the CSRF state). On every
// page: lang and dir, no English string left (against the catalogue), axe-core with zero critical, serious or
// moderate violations, and screenshots at 375 and 1280 px in test-output/screenshots/consent/ (gitignored); then the same
// page in dark mode (prefers-color-scheme: dark emulated on the page): axe again (the dark palette's contrast) and
// its screenshots in test-output/screenshots/consent/dark/.
import http from "node:http";
import { chromium, type Browser as Chromium, type Page } from "playwright-core";
import { assertAccessible, browserSuite, chromiumAvailable, chromiumPath, screenshots } from "../support/browser.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, directionOf, type Locale } from "../../src/web/i18n.js";
import { englishLeftIn } from "../support/catalogue-leaks.js";
import { authorizeUrl, freePort, newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Languages = suite("consent/languages-browser", {}, browserSuite);
const clock = createManualClock(Date.now());
const timeout = 90_000;

let test: TestApp;
let callback: http.Server;
let callbackBase: string;
let chromiumBrowser: Chromium;

if (chromiumAvailable) {
  Languages.before(async () => {
    test = await startTestApp({ clock, redis: true });
    const port = await freePort();
    callbackBase = `http://127.0.0.1:${port}`;
    callback = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<!doctype html><title>callback</title><p>back at the app</p>");
    });
    await new Promise<void>((resolve) => callback.listen(port, "127.0.0.1", resolve));
    chromiumBrowser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      timeout,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  Languages.after(async () => {
    await chromiumBrowser?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await test?.stop();
  });
}

/**
 * A fresh browser profile speaking `acceptLanguage`. bypassCSP only so the test can inject axe-core (an inline
 * script our CSP rightly refuses); the CSP itself is pinned by the server-level tests.
 */
async function newBrowserPage(acceptLanguage: string): Promise<Page> {
  const context = await chromiumBrowser.newContext({
    locale: acceptLanguage,
    bypassCSP: true,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  return page;
}

/** The checks every consent page passes in `locale`: lang, dir, no English left, axe, and its two screenshots. */
async function checkPage(page: Page, locale: Locale, name: string): Promise<void> {
  assert.is(await page.locator("html").getAttribute("lang"), locale, `${name}: lang`);
  assert.is(await page.locator("html").getAttribute("dir"), directionOf(locale), `${name}: dir`);
  // The stylesheet is loaded (a page that lost it would be the browser-default page the issue describes).
  assert.is(
    String(await page.evaluate("getComputedStyle(document.body).fontFamily")).includes("system-ui"),
    true,
    `${name}: site.css applied`,
  );
  const text = String(await page.evaluate("document.body.innerText"));
  assert.equal(englishLeftIn(text, locale), [], `${name}: English left on the ${locale} page`);
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await assertAccessible(page, `${name} (${locale}, ${scheme})`, { coloursOnly: scheme === "dark" });
    await screenshots(page, scheme === "dark" ? "consent/dark" : "consent", `${name}-${locale}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

async function signIn(page: Page, locale: Locale, user: { email: string; password: string }): Promise<void> {
  const t = translator(locale);
  await page.getByLabel(t("consent.email")).fill(user.email);
  await page.getByLabel(t("consent.password")).fill(user.password);
  await page.getByRole("button", { name: t("consent.signIn"), exact: true }).click();
}

/** The whole flow in one language: sign-in, consent, connections, access requests, Allow, errors, sign-out. */
async function flow(locale: Locale, acceptLanguage: string, switchTo: boolean): Promise<void> {
  const t = translator(locale);
  const world: World = await newWorld(test, clock, `${callbackBase}/callback/${locale}`);
  const authorize = authorizeUrl(test, world, { state: `state-${locale}` });
  const page = await newBrowserPage(acceptLanguage);
  try {
    await page.goto(authorize);
    if (switchTo) {
      // The switch names the language in its own script; following it keeps every OAuth parameter.
      await page
        .getByRole("navigation", { name: translator("en")("common.language") })
        .getByRole("link", { name: t("common.languageName") })
        .click();
      await page.getByRole("heading", { name: t("consent.signInTitle") }).waitFor();
      const switched = new URL(page.url());
      for (const [name, value] of new URL(authorize).searchParams)
        assert.is(switched.searchParams.get(name), value, `switch keeps ${name}`);
      assert.is(switched.searchParams.get("lang"), locale);
    }
    await page.getByRole("heading", { name: t("consent.signInTitle") }).waitFor();
    await checkPage(page, locale, "sign-in");

    await signIn(page, locale, world.owner);
    await page.getByRole("heading", { name: t("consent.connectTitle") }).waitFor();
    const main = await page.locator("main").innerText();
    assert.match(main, t("consent.scope.stores.read"));
    assert.match(main, t("consent.scope.items.write"));
    assert.match(main, t("consent.product.FULL"));
    await checkPage(page, locale, "consent");

    await page.getByRole("link", { name: t("consent.connectionsLink") }).click();
    await page.waitForURL((target) => target.pathname === "/oauth/connections");
    await page.getByRole("list", { name: t("consent.connectedApps") }).waitFor();
    await checkPage(page, locale, "connections");
    await page.getByRole("link", { name: t("consent.navAccessRequests") }).click();
    await page.getByRole("heading", { name: t("consent.pending"), exact: true }).waitFor();
    await checkPage(page, locale, "access-requests");

    await page.goto(authorize);
    await Promise.all([
      page.waitForURL((target) => target.href.startsWith(world.redirectUri)),
      page.getByRole("button", { name: t("consent.allow"), exact: true }).click(),
    ]);
    const back = new URL(page.url());
    assert.is(back.searchParams.get("state"), `state-${locale}`);
    assert.match(back.searchParams.get("code") ?? "", /^[A-Za-z0-9_-]{43}$/);

    await page.goto(authorizeUrl(test, world, { response_type: "token" }));
    await page.getByRole("heading", { name: t("consent.cannotConnectTitle") }).waitFor();
    await checkPage(page, locale, "error");

    await page.goto(`${test.auth}/no-such-page`);
    await page.getByRole("heading", { name: t("common.notFoundTitle") }).waitFor();
    await checkPage(page, locale, "not-found");

    await page.goto(`${test.auth}/oauth/connections`);
    await page.getByRole("button", { name: t("common.signOut") }).click();
    await page.getByRole("heading", { name: t("consent.signedOutTitle") }).waitFor();
    await checkPage(page, locale, "signed-out");
  } finally {
    await page.context().close();
  }

  // The employee's card: no Allow, the owner is asked instead.
  const employee = await newBrowserPage(acceptLanguage);
  try {
    await employee.goto(switchTo ? `${authorize}&lang=${locale}` : authorize);
    await signIn(employee, locale, world.employee);
    await employee.getByRole("heading", { name: t("consent.askOwnerTitle") }).waitFor();
    assert.is(await employee.getByRole("button", { name: t("consent.allow"), exact: true }).count(), 0);
    await checkPage(employee, locale, "employee-card");
  } finally {
    await employee.context().close();
  }
}

Languages("English: the consent flow by English names, every page accessible and screenshotted", async () => {
  await flow("en", "en-GB", false);
});

Languages("Arabic from Accept-Language: right to left, Arabic names, no English left", async () => {
  await flow("ar", "ar-SA", false);
});

Languages(
  "Hindi from the language switch on the sign-in page: the OAuth request and the CSRF state survive the switch",
  async () => {
    await flow("hi", "en-US", true);
  },
);

Languages(
  "OIDC ui_locales from the app beats the browser's English; the switch then beats ui_locales, through sign-in",
  async () => {
    const world: World = await newWorld(test, clock, `${callbackBase}/callback/ui-locales`);
    const authorize = authorizeUrl(test, world, { ui_locales: "fr-CA hi-IN ar" });
    const page = await newBrowserPage("en-US");
    try {
      const hindi = translator("hi");
      await page.goto(authorize);
      await page.getByRole("heading", { name: hindi("consent.signInTitle") }).waitFor();
      assert.is(await page.locator("html").getAttribute("lang"), "hi");
      await page
        .getByRole("navigation", { name: hindi("common.language") })
        .getByRole("link", { name: "English" })
        .click();
      const english = translator("en");
      await page.getByRole("heading", { name: english("consent.signInTitle") }).waitFor();
      assert.is(new URL(page.url()).searchParams.get("ui_locales"), "fr-CA hi-IN ar", "the switch keeps ui_locales");
      await signIn(page, "en", world.owner);
      await page.getByRole("heading", { name: english("consent.connectTitle") }).waitFor();
      assert.is(await page.locator("html").getAttribute("lang"), "en");
    } finally {
      await page.context().close();
    }
  },
);

Languages.run();
