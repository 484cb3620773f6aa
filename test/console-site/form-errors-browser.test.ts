// A refused console form in chromium, in en, ar and hi: the error summary is what has focus when the page loads
// (autofocus, no script), its link moves focus to the field it names, the error is still beside the field, and what
// was typed is kept (never the password). Then an allowlist refused on an app's page: the summary names the list by
// its label and the line, and its link focuses the textarea holding what was typed. Found by accessible names; axe
// (light and dark) and screenshots at 375 and 1280 px in test-output/screenshots/console/errors/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { systemClock } from "../../src/runtime/clock.js";
import { supportedLocales, translator, type Locale } from "../../src/web/i18n.js";
import {
  browserSuite,
  chromiumAvailable,
  launchChromium,
  lookAt,
  newPerson,
  settledFocusId,
} from "../support/browser.js";
import { admittedDeveloper, createSiteBrowser, shownValue, signedUpDeveloper } from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Errors = suite("console-site/form-errors-browser", {}, browserSuite);
let test: TestApp;
let chromium: Browser | undefined;
const opened: BrowserContext[] = [];
let serial = 0;
const folder = "console/errors";

Errors.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
  if (chromiumAvailable) chromium = await launchChromium();
});
Errors.after(async () => {
  for (const context of opened) await context.close();
  await chromium?.close();
  await test?.stop();
});

async function person(acceptLanguage: string): Promise<Page> {
  const { context, page } = await newPerson(chromium!, { acceptLanguage });
  opened.push(context);
  return page;
}

for (const locale of supportedLocales) {
  Errors(
    `a refused sign-up (${locale}): the summary has focus, its link focuses the field, the email is kept`,
    async () => {
      const t = translator(locale as Locale);
      const page = await person(locale === "en" ? "en-GB" : locale);
      const email = `refused.${locale}.${process.pid}.${++serial}@partner.test`;
      await page.goto(`${test.console}/sign-up`);
      await page.getByLabel(t("console.email")).fill(email);
      await page.getByLabel(t("console.password")).fill("short");
      await page.getByRole("button", { name: t("console.createAccount") }).click();
      const summary = page
        .getByRole("alert")
        .filter({ has: page.getByRole("heading", { name: t("console.errorSummaryTitle") }) });
      await summary.waitFor();
      assert.is(await settledFocusId(page, "error-summary"), "error-summary", "the summary has focus on load");
      assert.is(
        await page.title(),
        `${t("common.errorTitle", { title: t("console.signUpTitle") })} · ${t("common.brand")}`,
      );
      // Above the heading: the first thing in <main>.
      assert.is(await page.evaluate("document.querySelector('main').firstElementChild.id"), "error-summary");
      const said = t("console.problemAt", { field: t("console.password"), message: t("console.passwordTooWeak") });
      const link = summary.getByRole("link", { name: said });
      assert.is(await link.getAttribute("href"), "#field-password");
      assert.is(await page.locator("#field-password-error").innerText(), t("console.passwordTooWeak"));
      assert.is(await page.getByLabel(t("console.email")).inputValue(), email);
      assert.is(await page.getByLabel(t("console.password")).inputValue(), "");
      await lookAt(page, { locale: locale as Locale, site: "console", folder, name: "sign-up-refused" });
      await link.click();
      assert.is(await settledFocusId(page, "field-password"), "field-password", "the link moved focus to the field");
    },
  );
}

Errors(
  "a refused allowlist: the summary names the list and its line, its link focuses the textarea with what was typed",
  async () => {
    const t = translator("en");
    const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
    const developer = createSiteBrowser(test);
    await signedUpDeveloper(test, developer, `allowlist.${process.pid}.${++serial}@partner.test`);
    await admittedDeveloper(developer, staff);
    const made = await developer.post("/organizations", { name: "Errors org" }, await developer.get("/"));
    const organizationId = /^\/organizations\/(\d+)$/.exec(made.location ?? "")![1];
    const created = await developer.post(
      `/organizations/${organizationId}/apps`,
      { name: "Stock sync", product: "FULL" },
      await developer.get(`/organizations/${organizationId}`),
    );
    const appId = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
    const clientId = shownValue(created.html, "client-id");
    // The same session in the browser.
    const page = await person("en-GB");
    await page
      .context()
      .addCookies([...developer.cookies].map(([name, value]) => ({ name, value, url: test.console })));
    await page.goto(`${test.console}/apps/${appId}/credentials`);
    const label = t("console.allowlistOf", { name: `${t("console.sandbox")} ${clientId}` });
    const typed = "203.0.113.7\n10.0.0.1/8";
    await page.getByRole("textbox", { name: label, exact: true }).fill(typed);
    await page.getByRole("button", { name: `${t("console.saveAllowlist")}: ${label}` }).click();
    const summary = page.locator("#error-summary");
    await summary.waitFor();
    assert.is(await settledFocusId(page, "error-summary"), "error-summary");
    const said = messageFor(
      "developer.ip_allowlist_invalid",
      { field: t("console.fieldLine", { label, line: 2 }), value: "10.0.0.1/8" },
      "en",
    );
    const link = summary.getByRole("link", { name: said });
    assert.is(await link.getAttribute("href"), `#allowlist-${clientId}`);
    assert.not.match(await page.locator("main").innerText(), "allowed_ips");
    await lookAt(page, { locale: "en", site: "console", folder, name: "allowlist-refused" }, { schemes: ["light"] });
    await link.click();
    assert.is(await settledFocusId(page, `allowlist-${clientId}`), `allowlist-${clientId}`);
    assert.is(await page.getByRole("textbox", { name: label, exact: true }).inputValue(), typed);
  },
);

Errors.run();
