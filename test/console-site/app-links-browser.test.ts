// The app's links for merchants in the console, in chromium, in en, ar and hi, every control found by its accessible
// name in that language: an app made without them has a Review section that names the three missing links and leads
// to Settings instead of offering a submit the API refuses; Settings refuses an http link and one with a password
// with the error summary focused, each entry naming the link and the rule in words and leading to its field, what was
// typed kept; saved, the links are shown back and Review offers the submit, which puts the app in review. The create
// form offers the three fields. Each page: language, axe (light and dark), screenshots at 375 and 1280 px in
// test-output/screenshots/console/app-links/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient, type Client } from "@connectrpc/connect";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { systemClock } from "../../src/runtime/clock.js";
import { formatNumber, supportedLocales, translator, type Locale } from "../../src/web/i18n.js";
import {
  browserSuite,
  chromiumAvailable,
  launchChromium,
  lookAt,
  newPerson,
  settledFocusId,
} from "../support/browser.js";
import { admittedDeveloper, createSiteBrowser, signedUpDeveloper } from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Links = suite("console-site/app-links-browser", {}, browserSuite);
let test: TestApp;
let chromium: Browser | undefined;
let staff: Client<typeof ConsoleService>;
const opened: BrowserContext[] = [];
let serial = 0;
const folder = "console/app-links";

Links.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/links" });
  if (chromiumAvailable) chromium = await launchChromium();
});
Links.after(async () => {
  for (const context of opened) await context.close();
  await chromium?.close();
  await test?.stop();
});

/** A signed-in, admitted developer's organization, and chromium on the same session in `locale`. */
async function developerPage(locale: Locale): Promise<{ page: Page; organizationId: string }> {
  const developer = createSiteBrowser(test);
  await signedUpDeveloper(test, developer, `links.${locale}.${process.pid}.${++serial}@partner.test`);
  await admittedDeveloper(developer, staff);
  const made = await developer.post("/organizations", { name: `Links org ${serial}` }, await developer.get("/"));
  const organizationId = /^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]!;
  const { context, page } = await newPerson(chromium!, { acceptLanguage: locale === "en" ? "en-GB" : locale });
  opened.push(context);
  await context.addCookies([...developer.cookies].map(([name, value]) => ({ name, value, url: test.console })));
  return { page, organizationId };
}

for (const locale of supportedLocales as readonly Locale[]) {
  Links(
    `links (${locale}): review names the missing ones, Settings refuses bad ones in words, then review is offered`,
    async () => {
      const t = translator(locale);
      const { page, organizationId } = await developerPage(locale);

      // The create form offers the three links, optional; this app is made with none.
      await page.goto(`${test.console}/organizations/${organizationId}`);
      for (const name of [t("console.websiteUrl"), t("console.privacyPolicyUrl"), t("console.termsUrl")])
        assert.is(await page.getByRole("textbox", { name, exact: true }).inputValue(), "", name);
      await page.getByRole("group", { name: t("console.linksHeading") }).waitFor();
      await lookAt(page, { locale, site: "console", folder, name: "create-form" }, { schemes: ["light"] });
      await page.getByLabel(t("console.appName")).fill(`Linked app ${locale}`);
      await page.getByRole("button", { name: t("console.createApp") }).click();
      await page.getByRole("link", { name: t("console.openApp") }).click();
      const appId = /\/apps\/([^/?]+)/.exec(page.url())![1]!;

      // Review: the three named, the way to Settings, no submit.
      await page.goto(`${test.console}/apps/${appId}/review`);
      const missing = page.locator("ul.missing-links li");
      assert.equal(await missing.allInnerTexts(), [
        t("console.websiteUrl"),
        t("console.privacyPolicyUrl"),
        t("console.termsUrl"),
      ]);
      assert.is(await page.getByRole("button", { name: t("console.submitForReview") }).count(), 0);
      await lookAt(page, { locale, site: "console", folder, name: "review-links-missing" });
      await page.getByRole("link", { name: t("console.addLinks") }).click();
      await page.waitForURL(`${test.console}/apps/${appId}/settings`);

      // Settings: an http website and a privacy policy with a password are refused, each said in words.
      const website = page.getByRole("textbox", { name: t("console.websiteUrl"), exact: true });
      const privacy = page.getByRole("textbox", { name: t("console.privacyPolicyUrl"), exact: true });
      const terms = page.getByRole("textbox", { name: t("console.termsUrl"), exact: true });
      await website.fill("http://shop.example.com/");
      await privacy.fill("https://owner:secret@shop.example.com/privacy");
      await terms.fill("https://shop.example.com/terms");
      await page.getByRole("button", { name: t("console.save") }).click();
      const summary = page.locator("#error-summary");
      await summary.waitFor();
      assert.is(await settledFocusId(page, "error-summary"), "error-summary", "the summary has focus on load");
      const limit = formatNumber(locale, 2000);
      const saidWebsite = t("console.linkRule.https_required", { field: t("console.websiteUrl"), limit });
      const saidPrivacy = t("console.linkRule.credentials_not_allowed", {
        field: t("console.privacyPolicyUrl"),
        limit,
      });
      assert.is(await summary.getByRole("link", { name: saidWebsite }).getAttribute("href"), "#field-websiteUrl");
      assert.is(await summary.getByRole("link", { name: saidPrivacy }).getAttribute("href"), "#field-privacyPolicyUrl");
      assert.is(await summary.getByRole("link").count(), 2);
      assert.is(await page.locator("#field-websiteUrl-error").innerText(), saidWebsite);
      assert.is(await website.getAttribute("aria-invalid"), "true");
      assert.is(await terms.getAttribute("aria-invalid"), null);
      assert.is(await website.inputValue(), "http://shop.example.com/");
      assert.is(await terms.inputValue(), "https://shop.example.com/terms");
      assert.not.match(await page.locator("main").innerText(), "website_url");
      await lookAt(page, { locale, site: "console", folder, name: "settings-refused" });
      await summary.getByRole("link", { name: saidPrivacy }).click();
      assert.is(
        await settledFocusId(page, "field-privacyPolicyUrl"),
        "field-privacyPolicyUrl",
        "the link moved focus to the field",
      );

      // Fixed and saved: shown back in Settings; Review now offers the submit, which puts the app in review.
      await website.fill("https://shop.example.com/");
      await privacy.fill("https://shop.example.com/privacy");
      await page.getByRole("button", { name: t("console.save") }).click();
      await page.waitForURL(`${test.console}/apps/${appId}/settings`);
      assert.is(await website.inputValue(), "https://shop.example.com/");
      assert.is(await privacy.inputValue(), "https://shop.example.com/privacy");
      assert.is(await terms.inputValue(), "https://shop.example.com/terms");
      await lookAt(page, { locale, site: "console", folder, name: "settings-saved" });
      await page.goto(`${test.console}/apps/${appId}/review`);
      assert.is(await page.locator("ul.missing-links").count(), 0);
      await page.getByRole("button", { name: t("console.submitForReview") }).click();
      await page.waitForURL(`${test.console}/apps/${appId}/review`);
      await page.getByText(t("console.reviewStateInReview")).waitFor();
      // In review the links are kept: Settings says so.
      await page.goto(`${test.console}/apps/${appId}/settings`);
      await page.getByText(t("console.linksKept")).waitFor();
    },
  );
}

Links.run();
