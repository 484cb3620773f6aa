// The sandbox merchant page in chromium, in en, ar and hi: from the organization page by the merchant's "Online
// orders" link, an order placed by the app is accepted with a promised time and marked ready by its buttons (found by
// accessible names), and a move the order no longer allows (a second tab shown before) is refused in words in that
// order's card. lang and dir, no English left, axe (no serious or critical violation) light and dark, screenshots at
// 375 and 1280 px in test-output/screenshots/console/sandbox-orders/ (and .../dark/).
import type { Browser, Page } from "playwright-core";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson } from "../support/browser.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxOrdersSetup,
  signedUpDeveloper,
  type SandboxOrdersSetup,
} from "../support/console-site.js";

const Pages = suite("console-site/sandbox-orders-browser", {}, browserSuite);
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 7_000);
let test: TestApp;
let chromium: Browser;
let session: Map<string, string>;
let setup: SandboxOrdersSetup;

if (chromiumAvailable) {
  Pages.before(async () => {
    test = await startTestApp({
      clock,
      redis: false,
      env: { TRUST_PROXY: "127.0.0.1", SANDBOX_ORDER_AUTOPILOT_SECONDS: "0" },
    });
    const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `orders.browser.${process.pid}.${Date.now()}@partner.test`);
    await admittedDeveloper(browser, staff);
    setup = await sandboxOrdersSetup(test, browser, "Orders org");
    session = browser.cookies;
    chromium = await launchChromium();
  });
  Pages.after(async () => {
    await chromium?.close();
    await test?.stop();
  });
}
const look = (page: Page, locale: Locale, name: string) =>
  lookAt(page, { locale, site: "console", folder: "console/sandbox-orders", name });

async function signedIn(locale: Locale) {
  const person = await newPerson(chromium, { acceptLanguage: locale });
  const url = new URL(test.console);
  await person.context.addCookies(
    [...session].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })),
  );
  return person;
}

async function walk(locale: Locale, customer: string): Promise<void> {
  const t = translator(locale);
  // A move's button: its visible words, then the order.
  const named = (
    key: "console.orderAccept" | "console.orderReject" | "console.orderMarkReady" | "console.orderComplete",
    id: string,
  ) => `${t(key)}: ${t("console.orderHeading", { id })}`;
  const id = String(await setup.place(customer, `web-${locale}`));
  const { context, page } = await signedIn(locale);
  try {
    await page.goto(`${test.console}/organizations/${setup.organizationId}`);
    await page.getByRole("link", { name: t("console.merchantOrdersNamed", { name: "Corner cafe" }) }).click();
    await page.getByRole("heading", { name: t("console.sandboxMerchantTitle", { name: "Corner cafe" }) }).waitFor();
    const card = page.getByRole("article", { name: t("console.orderHeading", { id }), exact: true });
    assert.match(await card.innerText(), customer);
    assert.match(await card.innerText(), t("console.orderStatusPending"));
    await look(page, locale, "merchant-orders");

    // The moves are behind one action per order: no form control shows until it is opened.
    const movesOf = (where: Page) => where.getByText(t("console.orderMovesSummary", { id }), { exact: true });
    assert.is(
      await card.getByRole("button", { name: named("console.orderAccept", id), exact: true }).isVisible(),
      false,
    );
    await movesOf(page).click();

    // A second tab, shown now: its Reject button is stale once the first tab accepts.
    const stale = await context.newPage();
    await stale.goto(page.url());
    // A time the lifecycle cannot take (0 minutes): the same page, the refusal in the order's card, the moves open.
    await card.getByLabel(t("console.orderPromiseMinutes")).fill("0");
    await card.getByRole("button", { name: named("console.orderAccept", id), exact: true }).click();
    const unread = page
      .getByRole("article", { name: t("console.orderHeading", { id }), exact: true })
      .getByRole("alert");
    await unread.waitFor();
    assert.match(await unread.innerText(), t("console.orderMoveInvalid"));
    assert.is(await page.getByRole("link", { name: t("console.backToOrganization") }).count(), 1);
    await look(page, locale, "move-unreadable");
    const again = page.getByRole("article", { name: t("console.orderHeading", { id }), exact: true });
    await again.getByLabel(t("console.orderPromiseMinutes")).fill("30");
    await again.getByRole("button", { name: named("console.orderAccept", id), exact: true }).click();
    await page.waitForURL((target) => target.hash === `#order-${id}`);
    // The page says what happened.
    const said = page.getByRole("status").filter({ hasText: t("console.orderStatusAccepted") });
    // Its words with the promised time as the server wrote it (the minute is the server's): the rest exactly.
    const [before, after] = t("console.orderMovedPromised", {
      id,
      status: t("console.orderStatusAccepted"),
      time: "\u0000",
    }).split("\u0000");
    const text = await said.innerText();
    assert.ok(text.startsWith(before!) && text.endsWith(after!), text);
    const accepted = page.getByRole("article", { name: t("console.orderHeading", { id }), exact: true });
    await movesOf(page).click();
    await accepted.getByRole("button", { name: named("console.orderMarkReady", id), exact: true }).waitFor();
    assert.match(await accepted.innerText(), t("console.orderStatusAccepted"));

    const staleCard = stale.getByRole("article", { name: t("console.orderHeading", { id }), exact: true });
    await movesOf(stale).click();
    await staleCard.getByLabel(t("console.orderReasonLabel")).selectOption("TOO_BUSY");
    await staleCard.getByRole("button", { name: named("console.orderReject", id), exact: true }).click();
    const refusal = stale
      .getByRole("article", { name: t("console.orderHeading", { id }), exact: true })
      .getByRole("alert");
    await refusal.waitFor();
    const words = t("console.orderMoveRefused", {
      status: t("console.orderStatusAccepted"),
      target: t("console.orderStatusRejected"),
    });
    assert.match(await refusal.innerText(), words);
    await look(stale, locale, "move-refused");
    await stale.close();

    await accepted.getByRole("button", { name: named("console.orderMarkReady", id), exact: true }).click();
    const ready = page.getByRole("article", { name: t("console.orderHeading", { id }), exact: true });
    await movesOf(page).click();
    await ready.getByRole("button", { name: named("console.orderComplete", id), exact: true }).waitFor();
    assert.match(await ready.innerText(), t("console.orderStatusReady"));
    await look(page, locale, "order-ready");
  } finally {
    await context.close();
  }
}

Pages("en: a placed order accepted and made ready on the merchant page; a stale reject refused in words", async () => {
  await walk("en", "Ada Lovelace");
});

Pages("ar: the same, right to left, in Arabic", async () => {
  await walk("ar", "ليلى حسن");
});

Pages("hi: the same, in Hindi", async () => {
  await walk("hi", "अनन्या शर्मा");
});

Pages.run();
