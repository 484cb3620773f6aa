// The consent site's second pass in chromium (issue 28), in en, ar and hi, each control found by its accessible name
// in that language: who is asking (avatar, developer, review mark, the app's website, privacy policy and terms links,
// company by name, where the merchant goes back);
// the decision within the first screen of a 375×812 phone; a failed sign-in keeps the email and the app's context
// with the error focused; Cancel returns access_denied to the app; a disconnect asks first, then says it happened
// with focus moved to the message; an error page in plain words with the developer's detail below. Every page:
// lang and dir, no English left, axe (no critical, serious or moderate violation) in light and dark, and screenshots at 375
// and 1280 px in test-output/screenshots/consent/second-pass/ (light) and .../second-pass/dark/.
import http from "node:http";
import type { Browser, Page } from "playwright-core";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import {
  browserSuite,
  chromiumAvailable,
  launchChromium,
  lookAt,
  newPerson,
  settledFocusId,
  setViewport,
} from "../support/browser.js";
import { newSandboxWorld } from "../support/consent.js";
import { reviewLinks } from "../support/app-links.js";
import { authorizeUrl, freePort, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Trust = suite("consent/merchant-trust-browser", {}, browserSuite);
const clock = createManualClock(Date.now());
let test: TestApp;
let chromium: Browser;
let callback: http.Server;
let callbackBase: string;

if (chromiumAvailable) {
  Trust.before(async () => {
    test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
    const port = await freePort();
    callbackBase = `http://127.0.0.1:${port}`;
    callback = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<!doctype html><title>callback</title><p>back at the app</p>");
    });
    await new Promise<void>((resolve) => callback.listen(port, "127.0.0.1", resolve));
    chromium = await launchChromium();
  });
  Trust.after(async () => {
    await chromium?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await test?.stop();
  });
}
/** lang, dir, no English left, axe in light and dark, and the four screenshots of the page. */
const look = (page: Page, locale: Locale, name: string) =>
  lookAt(page, { locale, site: "consent", folder: "consent/second-pass", name });

async function walk(locale: Locale, acceptLanguage: string): Promise<void> {
  const t = translator(locale);
  const world: World = await newSandboxWorld(test, clock, `${callbackBase}/callback/${locale}`);
  const authorize = authorizeUrl(test, world, { state: `trust-${locale}` });
  const { context, page } = await newPerson(chromium, { acceptLanguage });
  try {
    // A wrong password: the email typed and the app's context stay, the error has focus.
    await page.goto(authorize);
    await page.getByLabel(t("consent.email")).fill(world.owner.email);
    await page.getByLabel(t("consent.password")).fill("not the password");
    await page.getByRole("button", { name: t("consent.signIn"), exact: true }).click();
    await page.getByText(t("consent.signInFailed")).waitFor();
    assert.is(await page.getByLabel(t("consent.email")).inputValue(), world.owner.email);
    assert.match(await page.locator("main p.lead").innerText(), /App \d+/);
    assert.is(await settledFocusId(page, "sign-in-error"), "sign-in-error");
    await look(page, locale, "sign-in-failed");

    // Cancel: back at the app with access_denied and the state.
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(world.redirectUri)),
      page.getByRole("link", { name: t("consent.cancel"), exact: true }).click(),
    ]);
    const cancelled = new URL(page.url());
    assert.is(cancelled.searchParams.get("error"), "access_denied");
    assert.is(cancelled.searchParams.get("state"), `trust-${locale}`);

    // Sign in for real: the consent screen, on a phone first.
    await page.goto(authorize);
    await page.getByLabel(t("consent.email")).fill(world.owner.email);
    await page.getByLabel(t("consent.password")).fill(world.owner.password);
    await page.getByRole("button", { name: t("consent.signIn"), exact: true }).click();
    await page.getByRole("heading", { name: t("consent.connectTitle") }).waitFor();
    await setViewport(page, { width: 375, height: 812 });
    await page.evaluate("window.scrollTo(0, 0)");
    for (const name of [t("consent.allow"), t("consent.deny")]) {
      const box = await page.getByRole("button", { name, exact: true }).boundingBox();
      assert.ok(
        box && box.y >= 0 && box.y + box.height <= 812,
        `${name} within a 375×812 screen (${locale}): ${JSON.stringify(box)}`,
      );
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    const main = await page.locator("main").innerText();
    assert.match(main, t("consent.notReviewed"));
    assert.match(main, t("consent.untilDisconnect"));
    assert.match(main, new URL(world.redirectUri).host);
    assert.not.match(main, String(world.companyId));
    assert.ok(
      await page.getByRole("heading", { name: /^App \d+$/ }).isVisible(),
      "the app's name as a heading beside its avatar",
    );
    // The app's pages its developer gave in the console, beside who is asking, found by their names in this language.
    const asker = page.locator(".asker");
    for (const [name, href] of [
      [t("consent.website"), reviewLinks.websiteUrl],
      [t("consent.privacyPolicy"), reviewLinks.privacyPolicyUrl],
      [t("consent.terms"), reviewLinks.termsUrl],
    ] as const) {
      const link = asker.getByRole("link", { name, exact: true });
      assert.is(await link.getAttribute("href"), href, name);
      assert.is(await link.getAttribute("rel"), "noopener noreferrer", name);
    }
    await look(page, locale, "consent");

    // Allow, then the connected apps: permissions, since when, never called yet.
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(world.redirectUri)),
      page.getByRole("button", { name: t("consent.allow"), exact: true }).click(),
    ]);
    await page.goto(`${test.auth}/oauth/connections`);
    await page.getByRole("list", { name: t("consent.connectedApps") }).waitFor();
    assert.match(await page.locator("main").innerText(), t("consent.noCallsYet"));
    await look(page, locale, "connections");

    // Disconnect: the consequence first, then the message, focused.
    const appName = (await page.locator(".asker-name").first().innerText()).trim();
    await page.getByRole("button", { name: t("consent.disconnectApp", { app: appName }) }).click();
    await page.getByRole("heading", { name: t("consent.confirmDisconnectTitle", { app: appName }) }).waitFor();
    await look(page, locale, "confirm-disconnect");
    await page.getByRole("button", { name: t("consent.confirmDisconnect", { app: appName }) }).click();
    await page
      .getByRole("status")
      .getByText(t("consent.disconnected", { app: appName }))
      .waitFor();
    assert.is(await settledFocusId(page, "done"), "done");
    await look(page, locale, "disconnected");

    // An error page: what to do, then the developer's detail.
    await page.goto(authorizeUrl(test, world, { redirect_uri: "https://elsewhere.example/callback" }));
    await page.getByRole("heading", { name: t("consent.cannotConnectTitle") }).waitFor();
    assert.match(await page.locator("main").innerText(), t("consent.advice.developer"));
    assert.ok(await page.getByText("oauth.redirect_uri_mismatch").isVisible());
    await look(page, locale, "error-redirect");
  } finally {
    await context.close();
  }
}

Trust(
  "English: who is asking, the phone's first screen, sign-in kept, Cancel, the disconnect confirmed and announced",
  async () => {
    await walk("en", "en-GB");
  },
);

Trust("Arabic (right to left): the same, by Arabic names", async () => {
  await walk("ar", "ar-SA");
});

Trust("Hindi: the same, by Hindi names", async () => {
  await walk("hi", "hi-IN");
});

Trust.run();
