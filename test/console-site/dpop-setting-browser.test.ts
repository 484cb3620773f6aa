// The Settings section's "require DPoP" card in chromium, in en, ar and hi: the button found by its accessible name
// turns the setting on (the card says so, the API's app says requireDpop), the page passes the language checks and
// axe light and dark (screenshots in test-output/screenshots/console/dpop-setting/), and the other button turns it
// off again. The PAR card beside it is left as it was.
import type { Browser } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson } from "../support/browser.js";
import { admittedDeveloper, createSiteBrowser, sandboxWorkspace, signedUpDeveloper } from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";

const Setting = suite("console-site/dpop-setting-browser", {}, browserSuite);
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let chromium: Browser;
let session: Map<string, string>;
let appId: string;

if (chromiumAvailable) {
  Setting.before(async () => {
    test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
    const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `dpop.setting.${process.pid}.${Date.now()}@partner.test`);
    await admittedDeveloper(browser, staff);
    const workspace = await sandboxWorkspace(browser, {
      organization: "Bound org",
      app: "Till sync",
      product: "FULL",
      merchant: "Corner shop",
    });
    appId = workspace.appId;
    session = browser.cookies;
    chromium = await launchChromium();
  });
  Setting.after(async () => {
    await chromium?.close();
    await test?.stop();
  });
}
const requireDpopOf = async () => (await credentialServiceOf(test, clock).getApp({ appId })).app?.requireDpop;

async function toggle(locale: Locale): Promise<void> {
  const t = translator(locale);
  const { context, page } = await newPerson(chromium, { acceptLanguage: locale });
  try {
    const url = new URL(test.console);
    await context.addCookies([...session].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })));
    await page.goto(`${test.console}/apps/${appId}/settings`);
    const card = page.getByRole("region", { name: t("console.dpopHeading") });
    await card.getByText(t("console.dpopOff"), { exact: true }).waitFor();
    assert.is(await requireDpopOf(), false, `${locale}: off before`);

    await card.getByRole("button", { name: t("console.requireDpop"), exact: true }).click();
    await page.waitForURL((at) => at.pathname === `/apps/${appId}/settings`);
    await card.getByText(t("console.dpopOn"), { exact: true }).waitFor();
    assert.is(await requireDpopOf(), true, `${locale}: on`);
    const par = page.getByRole("region", { name: t("console.pushedRequestsHeading") });
    await par.getByText(t("console.pushedRequestsOff"), { exact: true }).waitFor();
    await lookAt(page, { locale, site: "console", folder: "console/dpop-setting", name: "settings-dpop-on" });

    await card.getByRole("button", { name: t("console.stopRequiringDpop"), exact: true }).click();
    await card.getByText(t("console.dpopOff"), { exact: true }).waitFor();
    assert.is(await requireDpopOf(), false, `${locale}: off again`);
  } finally {
    await context.close();
  }
}

Setting("English: require DPoP, then stop requiring it", async () => {
  await toggle("en");
});

Setting("Arabic (right to left): the same", async () => {
  await toggle("ar");
});

Setting("Hindi: the same", async () => {
  await toggle("hi");
});

Setting.run();
