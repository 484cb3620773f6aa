// The consent site's names and marks in chromium, in en, ar and hi (issue 42, "Languages"): the app's and the
// merchant's names in a sentence are each bold and isolated, with a word of the language between them (Hindi ran
// "App 5 Shop 5 से जुड़ना चाहता है" together); the disconnect confirmation lists the access being removed with a
// removal mark, not the green tick of access granted; an Arabic error message keeps its Latin term isolated (the
// ADSR access request's card: ./access-request-identity-browser.test.ts). Every page:
// lang and dir, no English left, axe (light and dark, no critical, serious or moderate finding), screenshots at 375
// and 1280 px in test-output/screenshots/consent/identity/.
import http from "node:http";
import type { Browser, Page } from "playwright-core";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson } from "../support/browser.js";
import { newSandboxWorld } from "../support/consent.js";
import { suite } from "../support/suite.js";
import { authorizeUrl, freePort, startTestApp, type TestApp } from "../support/test-app.js";

const Identity = suite("consent/identity-languages-browser", {}, browserSuite);
const clock = createManualClock(Date.now());
let test: TestApp;
let chromium: Browser;
let callback: http.Server;
let callbackBase: string;

if (chromiumAvailable) {
  Identity.before(async () => {
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
  Identity.after(async () => {
    await chromium?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await test?.stop();
  });
}
/** `data`: elements whose text is data (the seeded stores' English names), left out of the language check. */
const look = (page: Page, locale: Locale, name: string, data?: string) =>
  lookAt(page, { locale, site: "consent", folder: "consent/identity", name }, data ? { data } : {});

/** The names marked in `selector` (each a bold <bdi>), and the text between the first two. */
async function namesIn(page: Page, selector: string): Promise<{ names: string[]; isolated: boolean; between: string }> {
  return (await page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    const marks = [...element.querySelectorAll("strong.name")];
    const between = document.createRange();
    if (marks.length >= 2) {
      between.setStartAfter(marks[0]);
      between.setEndBefore(marks[1]);
    }
    return {
      names: marks.map((mark) => mark.innerText),
      isolated: marks.every((mark) => mark.children.length === 1 && mark.firstElementChild.tagName === "BDI"),
      between: marks.length >= 2 ? between.toString() : "",
    };
  })()`)) as { names: string[]; isolated: boolean; between: string };
}

async function signIn(page: Page, locale: Locale, login: { email: string; password: string }): Promise<void> {
  const t = translator(locale);
  await page.getByLabel(t("consent.email")).fill(login.email);
  await page.getByLabel(t("consent.password")).fill(login.password);
  await page.getByRole("button", { name: t("consent.signIn"), exact: true }).click();
}

async function consentAndDisconnect(locale: Locale, acceptLanguage: string): Promise<void> {
  const t = translator(locale);
  const world = await newSandboxWorld(test, clock, `${callbackBase}/callback/identity-${locale}`);
  const { context, page } = await newPerson(chromium, { acceptLanguage });
  try {
    await page.goto(authorizeUrl(test, world, { state: `identity-${locale}` }));
    await signIn(page, locale, world.owner);
    await page.getByRole("heading", { name: t("consent.connectTitle") }).waitFor();
    const lead = await namesIn(page, "main .consent-summary p.lead");
    assert.is(lead.names.length, 2, `two names in the sentence (${locale})`);
    assert.match(lead.names[0]!, /^App \d+$/);
    assert.match(lead.names[1]!, /^Shop \d+$/);
    assert.ok(lead.isolated, `each name a bold <bdi> (${locale})`);
    assert.ok(/\p{L}/u.test(lead.between), `a word between the two names (${locale}): "${lead.between}"`);
    await look(page, locale, "consent");

    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(world.redirectUri)),
      page.getByRole("button", { name: t("consent.allow"), exact: true }).click(),
    ]);
    await page.goto(`${test.auth}/oauth/connections`);
    const appName = lead.names[0]!;
    await page.getByRole("button", { name: t("consent.disconnectApp", { app: appName }) }).click();
    await page.getByRole("heading", { name: t("consent.confirmDisconnectTitle", { app: appName }) }).waitFor();
    const removed = page.getByRole("list", { name: t("consent.accessRemoved", { app: appName }) });
    assert.ok((await removed.getByRole("listitem").count()) > 0, "the access being removed, listed");
    const mark = (await page.evaluate(`(() => {
      const before = getComputedStyle(document.querySelector("ul[aria-labelledby=removed-heading] li"), "::before");
      return { content: before.content, color: before.color };
    })()`)) as { content: string; color: string };
    assert.not.match(mark.content, "✓", `no tick on access being removed: ${JSON.stringify(mark)}`);
    assert.match(mark.content, "−");
    await look(page, locale, "confirm-disconnect");

    // An error page in this language: in Arabic, the Latin parameter name is isolated inside the sentence.
    await page.goto(authorizeUrl(test, world, { redirect_uri: "https://elsewhere.example/callback" }));
    await page.getByRole("heading", { name: t("consent.cannotConnectTitle") }).waitFor();
    const main = await page.locator("main").innerText();
    if (locale === "ar") assert.match(main, "\u2066redirect_uri\u2069");
    await look(page, locale, "error-redirect");
  } finally {
    await context.close();
  }
}

for (const [locale, acceptLanguage] of [
  ["en", "en-GB"],
  ["ar", "ar-SA"],
  ["hi", "hi-IN"],
] as const) {
  Identity(
    `${locale}: names apart on the consent screen, a removal mark on disconnect, an isolated Latin term`,
    async () => {
      await consentAndDisconnect(locale, acceptLanguage);
    },
  );
}

Identity.run();
