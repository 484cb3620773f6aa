// The request log, one call's detail and the usage chart in chromium, in en, ar and hi, after real traffic through
// the front (successes, a validation refusal, a 429): found by accessible names, lang and dir, no English left, axe
// (no critical, serious or moderate violation) light and dark, and screenshots at 375 and 1280 px in
// test-output/screenshots/console/request-log/ (and .../dark/).
import type { Browser, Page } from "playwright-core";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson, setViewport } from "../support/browser.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxToken,
  sandboxWorkspace,
  signedUpDeveloper,
} from "../support/console-site.js";

const Pages = suite("console-site/request-log-browser", {}, browserSuite);
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 5_000);
let test: TestApp;
let chromium: Browser;
let session: Map<string, string>;
let appId: string;

if (chromiumAvailable) {
  Pages.before(async () => {
    test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1", PARTNER_RATE_LIMIT: "3" } });
    const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `log.browser.${process.pid}.${Date.now()}@partner.test`);
    await admittedDeveloper(browser, staff);
    const workspace = await sandboxWorkspace(browser, {
      organization: "Log org",
      app: "Stock sync",
      product: "FULL",
      merchant: "Corner shop",
    });
    appId = workspace.appId;
    const accessToken = await sandboxToken(test, workspace);
    for (const query of ["?limit=1", "?limit=abc", "?limit=2", "?limit=1"])
      await fetch(`${test.base}/v1/items${query}`, { headers: { authorization: `Bearer ${accessToken}` } });
    session = browser.cookies;
    chromium = await launchChromium();
  });
  Pages.after(async () => {
    await chromium?.close();
    await test?.stop();
  });
}
// The error body is data: the envelope as the app received it, in the language the app asked for (here English).
const look = (page: Page, locale: Locale, name: string) =>
  lookAt(page, { locale, site: "console", folder: "console/request-log", name }, { data: "pre" });

/**
 * At 375 px the log's table sits in its own box (a region named by the caption, focusable, that scrolls when the
 * table is wider), the page itself does not scroll sideways, and an error code stays on one line (it once stood one letter a line in Arabic).
 */
async function phoneFit(page: Page, locale: Locale, caption: string): Promise<void> {
  await setViewport(page, { width: 375, height: 812 });
  try {
    const region = page.getByRole("region", { name: caption });
    assert.is(await region.getAttribute("tabindex"), "0", `${locale}: the table's box is focusable`);
    assert.is(Number(await page.evaluate("document.documentElement.scrollWidth")), 375, `${locale}: page width`);
    // Against the status beside it (one line, same cell): a wrapped code would be at least twice its height.
    const lines = Number(
      await page.evaluate(`(() => {
        const cell = [...document.querySelectorAll("td")].find((td) => td.textContent.includes("request.invalid_fields"));
        return cell.querySelector("code").getBoundingClientRect().height / cell.querySelector(".status").getBoundingClientRect().height;
      })()`),
    );
    assert.ok(lines < 1.5, `${locale}: the error code on one line (${lines} lines)`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

/**
 * At 375 px the usage chart's labels are read at the page's size (with a viewBox they were scaled to about 4 px),
 * the limit's label among them, and the chart fits the phone.
 */
async function chartFit(page: Page, locale: Locale): Promise<void> {
  await setViewport(page, { width: 375, height: 812 });
  try {
    const fit = (await page.evaluate(`(() => {
      const chart = document.querySelector("svg.usage-chart");
      const labels = [...chart.querySelectorAll("text")].map((text) => ({
        text: text.textContent,
        height: text.getBoundingClientRect().height,
      }));
      return { labels, right: chart.getBoundingClientRect().right, pageWidth: document.documentElement.scrollWidth };
    })()`)) as { labels: Array<{ text: string; height: number }>; right: number; pageWidth: number };
    assert.ok(fit.labels.length >= 7, `${locale}: the axis, hour and limit labels (${fit.labels.length})`);
    for (const label of fit.labels)
      assert.ok(label.height >= 11, `${locale}: "${label.text}" is ${label.height.toFixed(1)} px high at 375`);
    assert.ok(fit.right <= 375 && fit.pageWidth <= 375, `${locale}: the chart fits (${JSON.stringify(fit)})`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

async function walk(locale: Locale): Promise<void> {
  {
    const t = translator(locale);
    const { context, page } = await newPerson(chromium, { acceptLanguage: locale });
    try {
      const url = new URL(test.console);
      await context.addCookies([...session].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })));
      await page.goto(`${test.console}/apps/${appId}`);
      await page.getByRole("link", { name: t("console.requestLogLink"), exact: true }).click();
      await page.getByRole("heading", { name: t("console.requestLogTitle", { name: "Stock sync" }) }).waitFor();
      // The four calls to /v1/items and the token call that made their token (POST /v1/token).
      assert.is(await page.getByRole("table").getByRole("row").count(), 6);
      await phoneFit(page, locale, t("console.requestLogCaption", { count: 5 }));
      await look(page, locale, "request-log");
      // The token endpoint's calls by route and method; a time typed wrong is refused beside its field.
      await page.getByLabel(t("console.filterRoute")).fill("/v1/token");
      await page.getByLabel(t("console.filterMethod")).selectOption("POST");
      await page.getByRole("button", { name: t("console.applyFilters") }).click();
      await page.waitForURL((target) => target.searchParams.get("route") === "/v1/token");
      assert.is(await page.getByRole("table").getByRole("row").count(), 2);
      assert.match(await page.getByRole("table").innerText(), "/v1/token");
      await page.getByLabel(t("console.filterFrom")).fill("2026-11-29T10:00");
      await page.getByLabel(t("console.filterTo")).fill("2026-11-29T09:00");
      await page.getByRole("button", { name: t("console.applyFilters") }).click();
      await page.locator("#filter-to-error").waitFor();
      assert.is(await page.locator("#filter-to-error").innerText(), t("console.timeRangeBackwards"));
      assert.is(await page.getByLabel(t("console.filterTo")).getAttribute("aria-invalid"), "true");
      await look(page, locale, "request-log-filtered");
      await page.getByRole("link", { name: t("console.clearFilters") }).click();
      await page.waitForURL((target) => !target.searchParams.has("route"));
      await page.getByLabel(t("console.filterStatus")).selectOption("429");
      await page.getByRole("button", { name: t("console.applyFilters") }).click();
      await page.waitForURL((target) => target.searchParams.get("status") === "429");
      assert.is(await page.getByRole("table").getByRole("row").count(), 2);
      await page
        .getByRole("link", { name: new RegExp(t("console.detailsOf", { id: "\\d+" })) })
        .first()
        .click();
      await page.getByRole("heading", { name: t("console.errorBody") }).waitFor();
      assert.match(await page.locator("pre").innerText(), "partner.rate_limited");
      await look(page, locale, "request-detail");
      await page.goto(`${test.console}/apps/${appId}/usage`);
      await page
        .getByRole("img", { name: t("console.usageChartTitle", { limit: new Intl.NumberFormat(locale).format(3) }) })
        .waitFor();
      await look(page, locale, "usage");
      await chartFit(page, locale);
    } finally {
      await context.close();
    }
  }
}

Pages("English: the log, a 429's detail and the usage chart, accessible and screenshotted", async () => {
  await walk("en");
});

Pages("Arabic (right to left): the same", async () => {
  await walk("ar");
});

Pages("Hindi: the same", async () => {
  await walk("hi");
});

Pages.run();
