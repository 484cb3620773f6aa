// The organization page's pending invitations and the program's waiting page in chromium, in en, ar and hi: an
// invitation resent by its button (found by its accessible name) leaves one pending row, the revoke button empties
// the list; the waiting page (development mode) shows `npm run staff -- approve <id>`. lang and dir, no English
// left, axe light and dark, screenshots at 375 and 1280 px in test-output/screenshots/console/invitations/.
import type { Browser } from "playwright-core";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson } from "../support/browser.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { createSiteBrowser, signedUpDeveloper } from "../support/console-site.js";

const Pages = suite("console-site/invitations-browser", {}, browserSuite);
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 7_000);
let test: TestApp;
let chromium: Browser;
let session: Map<string, string>;
let organizationId: number;

if (chromiumAvailable) {
  Pages.before(async () => {
    test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `invitations.browser.${process.pid}@partner.test`);
    const made = await browser.post("/organizations", { name: "Corner bakery" }, await browser.get("/"));
    organizationId = Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
    // Waiting for staff: the program page's development-mode command.
    assert.is(
      (
        await browser.post(
          "/program/apply",
          { companyName: "Corner bakery", website: "https://bakery.test", useCase: "stock sync" },
          await browser.get("/program"),
        )
      ).status,
      303,
    );
    session = browser.cookies;
    chromium = await launchChromium();
  });
  Pages.after(async () => {
    await chromium?.close();
    await test?.stop();
  });
}
async function signedIn(locale: Locale) {
  const person = await newPerson(chromium, { acceptLanguage: locale });
  const url = new URL(test.console);
  await person.context.addCookies(
    [...session].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })),
  );
  return person;
}

for (const locale of ["en", "ar", "hi"] as const) {
  Pages(`pending invitations: invite, resend, revoke by their buttons (${locale})`, async () => {
    const t = translator(locale);
    const { context, page } = await signedIn(locale);
    try {
      const email = `guest.${locale}.${process.pid}@invite.test`;
      await page.goto(`${test.console}/organizations/${organizationId}`);
      await page.getByLabel(t("console.email")).fill(email);
      await page.getByLabel(t("console.role")).selectOption("ADMIN");
      await page.getByRole("button", { name: t("console.sendInvitation") }).click();
      await page
        .getByRole("status")
        .filter({ hasText: t("console.invitationSent", { email }) })
        .waitFor();
      const row = page.locator("li[data-invitation]").filter({ hasText: email });
      assert.match(await row.innerText(), t("console.roleAdmin"));
      await lookAt(page, { locale, site: "console", folder: "console/invitations", name: "pending" });

      await page.getByRole("button", { name: `${t("console.resendInvitation")}: ${email}` }).click();
      await page
        .getByRole("status")
        .filter({ hasText: t("console.invitationResent", { email }) })
        .waitFor();
      assert.is(await page.locator("li[data-invitation]").filter({ hasText: email }).count(), 1);

      await page.getByRole("button", { name: `${t("console.revoke")}: ${email}` }).click();
      await page
        .getByRole("status")
        .filter({ hasText: t("console.invitationRevoked", { email }) })
        .waitFor();
      assert.is(await page.locator("li[data-invitation]").filter({ hasText: email }).count(), 0);
    } finally {
      await context.close();
    }
  });

  Pages(`the waiting page names the staff command (${locale})`, async () => {
    const t = translator(locale);
    const { context, page } = await signedIn(locale);
    try {
      await page.goto(`${test.console}/program`);
      await page.getByText(t("console.programStaffHint")).waitFor();
      assert.match(await page.locator("pre code").first().innerText(), /^npm run staff -- approve \d+$/);
      await lookAt(page, { locale, site: "console", folder: "console/invitations", name: "program-waiting" });
    } finally {
      await context.close();
    }
  });
}

Pages.run();
