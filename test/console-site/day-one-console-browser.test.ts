// Day one in the console (issue 42, "The console"), in chromium, in en, ar and hi: the demo organization's owner is
// in the partner program from the start (no "apply" beside its approved apps; it creates an app without staff); the
// first call in an organization without a sandbox merchant offers to create one first, never a curl without it.
// Found by accessible names; axe (light and dark) and screenshots at 375 and 1280 px in
// test-output/screenshots/console/day-one/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient, type Client } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { provisionDemo, type DemoWorld } from "../../src/demo/provision-demo.js";
import { createLogger } from "../../src/runtime/logger.js";
import { systemClock } from "../../src/runtime/clock.js";
import { supportedLocales, translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson, setViewport } from "../support/browser.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  shownValue,
  signedUpDeveloper,
  type SiteBrowser,
} from "../support/console-site.js";
import { reviewLinks } from "../support/app-links.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const DayOne = suite("console-site/day-one-console-browser", {}, browserSuite);
let test: TestApp;
let world: DemoWorld;
let staff: Client<typeof ConsoleService>;
let chromium: Browser | undefined;
let serial = 0;
const opened: BrowserContext[] = [];
const folder = "console/day-one";

DayOne.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
  world = await provisionDemo({
    config: test.config,
    logger: createLogger({ level: "warn", write: () => undefined }),
    control: test.app.control.sql,
    regionDatabases: test.app.regionDatabases,
  });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  // The developers other than the demo's are admitted by staff, against the agreement the demo published (or one).
  const [agreements] = await test.app.control.sql`select count(*)::int as count from control.agreement_versions`;
  if (agreements!["count"] === 0)
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  if (chromiumAvailable) chromium = await launchChromium();
});
DayOne.after(async () => {
  for (const context of opened) await context.close();
  await chromium?.close();
  await test?.stop();
});

/** A chromium page in `locale` holding the session of `browser` (signed in through the site over HTTP). */
async function personWith(browser: SiteBrowser, locale: Locale): Promise<Page> {
  const { context, page } = await newPerson(chromium!, { acceptLanguage: locale === "en" ? "en-GB" : locale });
  opened.push(context);
  await context.addCookies([...browser.cookies].map(([name, value]) => ({ name, value, url: test.console })));
  return page;
}

/** The demo owner signed in over HTTP, speaking `locale`. */
async function demoOwner(locale: Locale): Promise<SiteBrowser> {
  const owner = createSiteBrowser(test, locale);
  const { email, password } = world.console;
  const signedIn = await owner.post("/sign-in", { email, password }, await owner.get("/sign-in"));
  assert.is(signedIn.status, 303, signedIn.html);
  return owner;
}

/** A developer admitted to the program, with an organization and a FULL app (its sandbox secret) and no merchant. */
async function developerWithApp(locale: Locale) {
  const browser = createSiteBrowser(test, locale);
  await signedUpDeveloper(test, browser, `dev.${locale}.${process.pid}.${++serial}@day-one.test`);
  await admittedDeveloper(browser, staff);
  const made = await browser.post("/organizations", { name: `Day one ${locale}` }, await browser.get("/"));
  const organizationId = Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
  const created = await browser.post(
    `/organizations/${organizationId}/apps`,
    { name: "Till sync", product: "FULL", ...reviewLinks },
    await browser.get(`/organizations/${organizationId}`),
  );
  assert.is(created.status, 200, created.html);
  return {
    browser,
    organizationId,
    appId: /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!,
    secret: shownValue(created.html, "client-secret"),
  };
}

for (const locale of supportedLocales as readonly Locale[]) {
  DayOne(
    `${locale}: the demo organization's owner is approved with the agreement signed, and creates an app`,
    async () => {
      const t = translator(locale);
      const page = await personWith(await demoOwner(locale), locale);
      await page.goto(`${test.console}/`);
      assert.is(await page.getByRole("link", { name: t("console.programCta") }).count(), 0, "no call to apply");
      assert.ok((await page.locator("#account-heading + dl").innerText()).includes(t("console.agreementSignedShort")));
      await page.goto(`${test.console}/organizations/${world.organizationId}`);
      assert.is(await page.locator("#program-state").count(), 0, "no program gate beside the approved apps");
      await page.getByRole("textbox", { name: t("console.appName") }).fill(`Kiosk ${locale}`);
      await page.getByRole("radio", { name: t("console.productAdsr") }).check();
      await page.getByRole("button", { name: t("console.createApp") }).click();
      await page.getByRole("heading", { level: 1, name: t("console.appCreatedTitle") }).waitFor();
      await lookAt(page, { locale, site: "console", folder, name: "demo-owner-app-created" });
      // Its production secrets are in demo.json: no reveal is offered, and the card says when and to whom they were shown.
      await page.goto(`${test.console}/apps/${world.apps.full.appId}/credentials`);
      const production = page.getByRole("region", { name: t("console.productionHeading") });
      assert.is(await production.getByRole("button", { name: t("console.revealProduction") }).count(), 0);
      const [shownBefore] = t("console.productionShown", { when: "\u0000", to: "" }).split("\u0000");
      const card = await production.innerText();
      assert.ok(card.includes(shownBefore!) && card.includes(t("console.shownToDemoFile")), card);
      // The demo's ADSR app calls with API keys: no Redirect URIs section (not in the menu, its path 404).
      await page.goto(`${test.console}/apps/${world.apps.adsr.appId}`);
      const menu = page.getByRole("navigation", { name: t("console.appSectionsNav") });
      assert.is(await menu.getByRole("link", { name: t("console.apiKeysHeading") }).count(), 1);
      assert.is(await menu.getByRole("link", { name: t("console.redirectsHeading") }).count(), 0);
      const redirects = await page.goto(`${test.console}/apps/${world.apps.adsr.appId}/redirect-uris`);
      assert.is(redirects?.status(), 404);
    },
  );
}

for (const locale of supportedLocales as readonly Locale[]) {
  DayOne(`${locale}: the first call without a sandbox merchant offers to create it first, then names it`, async () => {
    const t = translator(locale);
    const { browser, appId, secret } = await developerWithApp(locale);
    const page = await personWith(browser, locale);
    await page.goto(`${test.console}/apps/${appId}/first-call`);
    const step = page.getByRole("region", { name: t("console.firstCallMerchantHeading") });
    await step.waitFor();
    assert.is(await page.locator("#curl-token, #curl-items").count(), 0, "no curl that cannot work");
    assert.is(await page.getByRole("button", { name: t("console.firstCallRunButton") }).count(), 0);
    await lookAt(page, { locale, site: "console", folder, name: "first-call-merchant-first" });
    await step.getByRole("textbox", { name: t("console.merchantName") }).fill("Corner cafe");
    await step.getByRole("button", { name: t("console.provisionMerchant") }).click();
    await page.locator("#owner-password").waitFor();
    // The merchant choice is a radio per merchant (a select cut long names off at 375 px): the new one is checked.
    const companyId = await page.locator('input[name="merchant_id"]:checked').getAttribute("value");
    assert.ok(companyId, "the new merchant is chosen");
    const token = await page.locator("#curl-token").innerText();
    assert.ok(token.includes(`"merchant_id":${companyId}`), token);
    await lookAt(page, { locale, site: "console", folder, name: "first-call-merchant-made" }, { schemes: ["light"] });
    // On a phone: the answer comes right after the run's button, in view, with the focus on it.
    await setViewport(page, { width: 375, height: 800 });
    await page.getByRole("textbox", { name: t("console.clientSecret") }).fill(secret);
    await page.getByRole("button", { name: t("console.firstCallRunButton") }).click();
    const result = page.getByRole("region", { name: t("console.firstCallResult") });
    await result.waitFor();
    assert.equal(await result.locator('[data-testid="status"]').allInnerTexts(), ["200", "200"]);
    await page.waitForFunction('document.activeElement && document.activeElement.id === "run-result"');
    const [button, answer] = [
      await page.getByRole("button", { name: t("console.firstCallRunButton") }).boundingBox(),
      await result.boundingBox(),
    ];
    assert.ok(answer!.y - (button!.y + button!.height) < 48, `the answer is next to the button (${answer!.y})`);
    // Scrolled to: its heading and the start of its first answer are inside the phone's 800 px, not below them.
    const seen = (await page.evaluate(`(() => {
      const box = document.getElementById("run-result").getBoundingClientRect();
      const status = document.querySelector('#run-result [data-testid="status"]').getBoundingClientRect();
      return { top: box.top, status: status.bottom, viewport: window.innerHeight };
    })()`)) as { top: number; status: number; viewport: number };
    // (Less than a pixel above the top is the fragment's scroll rounding a fractional position.)
    assert.ok(seen.top > -1 && seen.status <= seen.viewport, `the answer is in view at 375: ${JSON.stringify(seen)}`);
    await lookAt(page, { locale, site: "console", folder, name: "first-call-answer" }, { schemes: ["light"] });
  });
}

DayOne.run();
