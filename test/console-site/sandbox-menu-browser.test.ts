// The sandbox menu page in chromium, in en, ar and hi: reached from the merchant page by its link, a store paused
// (a refused length first: the error summary leads to the field) and resumed, a day's hours refused and then saved,
// an item sold out and the events that went out listed, each form behind its row's one action. lang and dir, no
// English left, axe with no critical, serious or moderate violation at 1280 and 375 px (light and dark at 1280),
// screenshots at 375 and 1280 px in test-output/screenshots/console/sandbox-menu/ (and .../dark/).
import type { Browser, Locator, Page } from "playwright-core";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import {
  assertAccessible,
  browserSuite,
  chromiumAvailable,
  launchChromium,
  lookAt,
  newPerson,
  setViewport,
} from "../support/browser.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxOrdersSetup,
  signedUpDeveloper,
  type SandboxOrdersSetup,
} from "../support/console-site.js";

const Pages = suite("console-site/sandbox-menu-browser", {}, browserSuite);
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 7_000);
let test: TestApp;
let chromium: Browser;
let session: Map<string, string>;
let setup: SandboxOrdersSetup;
let receiver: Receiver;
let stores: Array<{ id: number; name: string }>;
let items: Array<{ id: number; name: string }>;

if (chromiumAvailable) {
  Pages.before(async () => {
    test = await startTestApp({
      clock,
      redis: false,
      env: { TRUST_PROXY: "127.0.0.1", SANDBOX_ORDER_AUTOPILOT_SECONDS: "0", WEBHOOK_ALLOW_LOOPBACK: "1" },
    });
    const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `menu.browser.${process.pid}.${Date.now()}@partner.test`);
    await admittedDeveloper(browser, staff);
    setup = await sandboxOrdersSetup(test, browser, "Menu org");
    const read = async (path: string, key: string) =>
      (
        (await (
          await fetch(`${test.base}${path}`, { headers: { authorization: `Bearer ${setup.token}` } })
        ).json()) as Record<string, Array<{ id: number; name: string }>>
      )[key]!;
    stores = await read("/v1/stores?limit=10", "stores");
    items = await read(`/v1/items?limit=3&storeId=${stores[0]!.id}`, "items");
    receiver = await startReceiver("ok");
    const [app] = await test.app.control.sql<{ id: string }[]>`
      select id from control.apps where organization_id = ${setup.organizationId} order by created_at limit 1`;
    const hooks = await browser.get(`/apps/${app!.id}/webhooks?environment=sandbox`);
    await browser.post(`/apps/${app!.id}/webhooks`, { environment: "sandbox", url: receiver.url }, hooks);
    session = browser.cookies;
    chromium = await launchChromium();
  });
  Pages.after(async () => {
    await chromium?.close();
    await receiver?.close();
    await test?.stop();
  });
}
/** Language, axe (light and dark) and screenshots at 1280; axe again at a phone's width. Names and prices are data. */
async function look(page: Page, locale: Locale, name: string): Promise<void> {
  await lookAt(page, { locale, site: "console", folder: "console/sandbox-menu", name }, { data: "bdi" });
  await setViewport(page, { width: 375, height: 800 });
  await assertAccessible(page, `${name} (${locale}, 375 px)`);
  await setViewport(page, { width: 1280, height: 900 });
}

async function signedIn(locale: Locale) {
  const person = await newPerson(chromium, { acceptLanguage: locale });
  const url = new URL(test.console);
  await person.context.addCookies(
    [...session].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })),
  );
  return person;
}

/** Opens a row's one action (its <details>) by its summary's visible words. */
async function open(where: Locator, summary: string): Promise<void> {
  await where.locator("summary").filter({ hasText: summary }).first().click();
}

async function walk(locale: Locale, index: number): Promise<void> {
  const t = translator(locale);
  const store = stores[0]!;
  const item = items[index]!;
  const { context, page } = await signedIn(locale);
  try {
    await page.goto(`${test.console}${setup.merchantPath}`);
    await page.getByRole("link", { name: t("console.merchantMenuLink") }).click();
    await page.getByRole("heading", { level: 1, name: t("console.menuTitle", { name: "Corner cafe" }) }).waitFor();
    const card = () => page.getByRole("region", { name: store.name, exact: true });
    // The forms are behind one action per row: nothing to fill until it is opened.
    assert.is(await card().getByLabel(t("console.pauseReasonLabel")).isVisible(), false);
    await look(page, locale, "menu");

    // A reason too long: the summary names it and leads to the field, the form stays open with what was typed.
    await open(card(), t("console.storePauseSummary"));
    await card().getByLabel(t("console.pauseReasonLabel")).fill("x".repeat(201));
    await card()
      .getByRole("button", { name: `${t("console.storePause")}: ${store.name}` })
      .click();
    const summary = page.locator("#error-summary");
    await summary.waitFor();
    assert.match(await summary.innerText(), t("console.pauseReasonTooLong", { max: 200 }));
    await look(page, locale, "pause-refused");
    await summary.getByRole("link").first().click();
    await card().getByLabel(t("console.pauseReasonLabel")).fill("Kitchen at capacity");
    await card().getByLabel(t("console.pauseMinutesLabel")).fill("30");
    await card()
      .getByRole("button", { name: `${t("console.storePause")}: ${store.name}` })
      .click();
    await card().getByText(t("console.storePaused"), { exact: true }).waitFor();
    await look(page, locale, "store-paused");
    await open(card(), t("console.storePauseSummary"));
    await card()
      .getByRole("button", { name: `${t("console.storeResume")}: ${store.name}` })
      .click();
    await card().getByText(t("console.storeAccepting"), { exact: true }).waitFor();

    // Hours: a day the page cannot read is named at its field; then a week with a range past midnight is saved.
    await open(card(), t("console.hoursEditSummary"));
    await card().getByLabel(t("console.weekdayTuesday"), { exact: true }).fill("9-17");
    await card()
      .getByRole("button", { name: `${t("console.hoursSave")}: ${store.name}` })
      .click();
    await page.locator("#error-summary").waitFor();
    assert.match(
      await page.locator("#error-summary").innerText(),
      t("console.hoursFormat", { day: t("console.weekdayTuesday") }),
    );
    await look(page, locale, "hours-refused");
    await card().getByLabel(t("console.weekdayTuesday"), { exact: true }).fill("08:00-12:00, 13:00-18:00");
    // Friday's range runs past midnight into Saturday, which then opens at 10:00 (the store was open all day).
    await card().getByLabel(t("console.weekdayFriday"), { exact: true }).fill("18:00-02:00");
    await card().getByLabel(t("console.weekdaySaturday"), { exact: true }).fill("10:00-24:00");
    await card()
      .getByRole("button", { name: `${t("console.hoursSave")}: ${store.name}` })
      .click();
    await page
      .getByRole("status")
      .filter({ hasText: t("console.hoursSavedNotice", { store: store.name }) })
      .waitFor();

    // An item sold out in this store, then the events that went out (the relay delivers them: reloaded until listed).
    const row = page.locator(`#item-${item.id}`);
    await open(row, t("console.itemChangeSummary"));
    await row.getByRole("button", { name: `${t("console.itemSellOut")}: ${item.name}` }).click();
    await page.locator(`#item-${item.id}`).getByText(t("console.itemSoldOut"), { exact: true }).waitFor();
    const events = page.getByRole("table", { name: t("console.menuEventsCaption") });
    for (let tries = 0; tries < 100 && (await events.getByText("item.updated").count()) === 0; tries++) {
      await page.waitForTimeout(200);
      // A GET of the page (a reload would send the last form again).
      await page.goto(`${test.console}${setup.merchantPath}/menu`);
    }
    assert.ok((await events.getByText("item.updated").count()) > 0, "item.updated listed");
    assert.ok((await events.getByText("store.updated").count()) > 0, "store.updated listed");
    await look(page, locale, "events");
  } finally {
    await context.close();
  }
}

Pages(
  "en: a store paused and resumed, its hours refused then saved, an item sold out, the events that went out",
  async () => {
    await walk("en", 0);
  },
);

Pages("ar: the same, right to left, in Arabic", async () => {
  await walk("ar", 1);
});

Pages("hi: the same, in Hindi", async () => {
  await walk("hi", 2);
});

Pages.run();
