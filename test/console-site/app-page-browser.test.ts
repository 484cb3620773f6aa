// The app page's sections in chromium, in en, ar and hi: an approved FULL app and an approved ADSR app (a sandbox key,
// an access request to a live merchant), every view reached through the section menu by accessible names, the
// current one marked; lang and dir, no English left, axe (no critical, serious or moderate violation) light and dark,
// screenshots at 375 and 1280 px in test-output/screenshots/console/app-page/ (and .../dark/); at 375 px every view
// is under 2,000 px tall and no wider than the screen. Then the ADSR app's first call, run with the pasted key: 200.
import type { Browser, Page } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale, type MessageKey } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson, setViewport } from "../support/browser.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxWorkspace,
  shownValue,
  signedUpDeveloper,
} from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { newLiveMerchant } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { reviewLinks } from "../support/app-links.js";

const Walk = suite("console-site/app-page-browser", {}, browserSuite);
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let chromium: Browser;
let session: Map<string, string>;
let fullApp: string;
let adsrApp: string;
let apiKey: string;

if (chromiumAvailable) {
  Walk.before(async () => {
    test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
    const transport = grpcTransport(test.app.grpc.port, test.internal.staff);
    const staff = createClient(ConsoleService, transport);
    const reviews = createClient(CredentialService, transport);
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `app.page.${process.pid}.${Date.now()}@partner.test`);
    await admittedDeveloper(browser, staff);
    const workspace = await sandboxWorkspace(browser, {
      organization: "Page org",
      app: "Stock sync",
      product: "FULL",
      merchant: "Corner shop",
    });
    fullApp = workspace.appId;
    const organization = `/organizations/${workspace.organizationId}`;
    const created = await browser.post(
      `${organization}/apps`,
      { name: "Sales reader", product: "ADSR", ...reviewLinks },
      await browser.get(organization),
    );
    adsrApp = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
    // Both approved: every section at its fullest (production credentials, the access-request form).
    for (const appId of [fullApp, adsrApp]) {
      await browser.post(`/apps/${appId}/submit`, {}, await browser.get(`/apps/${appId}/review`));
      await reviews.approveApp({ appId });
    }
    const redirects = await browser.get(`/apps/${fullApp}/redirect-uris`);
    await browser.post(
      `/apps/${fullApp}/redirect-uris`,
      { redirectUris: "https://stock-sync.example/oauth/callback\nhttp://localhost:3000/callback" },
      redirects,
    );
    const keys = await browser.get(`/apps/${adsrApp}/api-keys`);
    const made = await browser.post(`/apps/${adsrApp}/api-keys`, { name: "reporting", environment: "SANDBOX" }, keys);
    apiKey = shownValue(made.html, "api-key");
    const live = await newLiveMerchant(credentialServiceOf(test, clock), "us");
    const storeIds = await seedMerchantData(test.app.regionDatabases.get("us")!.sql, "us", live.companyId, {
      storeCount: 3,
      itemCount: 1,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(clock.now()),
    });
    const asked = await browser.post(
      `/apps/${adsrApp}/access-requests`,
      { companyId: String(live.companyId), storeIds: storeIds.join(", ") },
      await browser.get(`/apps/${adsrApp}/access-requests`),
    );
    assert.is(asked.status, 200, asked.html);
    session = browser.cookies;
    chromium = await launchChromium();
  });
  Walk.after(async () => {
    await chromium?.close();
    await test?.stop();
  });
}
const sections: Record<"full" | "adsr", Array<[string, MessageKey]>> = {
  full: [
    ["credentials", "console.credentialsHeading"],
    ["redirect-uris", "console.redirectsHeading"],
    ["review", "console.reviewHeading"],
    ["settings", "console.sectionSettings"],
    ["overview", "console.sectionOverview"],
  ],
  adsr: [
    ["api-keys", "console.apiKeysHeading"],
    ["access-requests", "console.accessRequestsHeading"],
    ["review", "console.reviewHeading"],
    ["settings", "console.sectionSettings"],
    ["overview", "console.sectionOverview"],
  ],
};

/**
 * At 375 px: under 2,000 px tall, and nothing wider than the screen. An OAuth app's settings may take 2,300 (2,216
 * in English): its name and links, then one Security card whose two settings (pushed requests, DPoP) keep their
 * explanations in view, since an owner should read what a switch does before turning it.
 */
async function phoneFit(page: Page, label: string): Promise<void> {
  const limit = / full settings$/.test(label) ? 2300 : 2000;
  await setViewport(page, { width: 375, height: 812 });
  try {
    const [height, width] = (await page.evaluate(
      "[document.documentElement.scrollHeight, document.documentElement.scrollWidth]",
    )) as [number, number];
    assert.ok(height < limit, `${label}: ${height} px tall at 375 px (limit ${limit})`);
    assert.is(width, 375, `${label}: page width at 375 px`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

/** Every section of one app, through its menu: the link by name, the view marked current, checked and measured. */
async function walkApp(page: Page, locale: Locale, kind: "full" | "adsr", appId: string): Promise<void> {
  const t = translator(locale);
  await page.goto(`${test.console}/apps/${appId}`);
  for (const [section, label] of sections[kind]) {
    const menu = page.getByRole("navigation", { name: t("console.appSectionsNav") });
    await menu.getByRole("link", { name: t(label), exact: true }).click();
    const path = section === "overview" ? `/apps/${appId}` : `/apps/${appId}/${section}`;
    await page.waitForURL((url) => url.pathname === path);
    assert.is(await menu.locator('[aria-current="page"]').innerText(), t(label), `${locale} ${kind} ${section}`);
    await phoneFit(page, `${locale} ${kind} ${section}`);
    await lookAt(page, { locale, site: "console", folder: "console/app-page", name: `${kind}-${section}` });
  }
}

async function walk(locale: Locale): Promise<void> {
  const t = translator(locale);
  const { context, page } = await newPerson(chromium, { acceptLanguage: locale });
  try {
    const url = new URL(test.console);
    await context.addCookies([...session].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })));
    await walkApp(page, locale, "full", fullApp);
    await walkApp(page, locale, "adsr", adsrApp);

    // The ADSR app's first call: its one primary action, run with the pasted key.
    await page.getByRole("link", { name: t("console.firstCallTitle"), exact: true }).click();
    await page.getByRole("heading", { name: t("console.firstCallTitle"), level: 1 }).waitFor();
    await lookAt(
      page,
      { locale, site: "console", folder: "console/app-page", name: "adsr-first-call" },
      { data: "pre" },
    );
    await page.getByLabel(t("console.apiKey"), { exact: true }).fill(apiKey);
    await page.getByRole("button", { name: t("console.firstCallRunButton") }).click();
    await page.getByRole("heading", { name: t("console.firstCallResult") }).waitFor();
    assert.equal(await page.locator('[data-testid="status"]').allTextContents(), ["200"]);
    assert.not.match(await page.content(), apiKey);
    await lookAt(
      page,
      { locale, site: "console", folder: "console/app-page", name: "adsr-first-call-result" },
      { data: "pre" },
    );
  } finally {
    await context.close();
  }
}

Walk("English: every section of a FULL and an ADSR app through the menu, then the ADSR first call", async () => {
  await walk("en");
});

Walk("Arabic (right to left): the same", async () => {
  await walk("ar");
});

Walk("Hindi: the same", async () => {
  await walk("hi");
});

Walk.run();
