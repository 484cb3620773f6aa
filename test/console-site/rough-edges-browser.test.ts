// The console's rough edges, in chromium, in en, ar and hi: creating an ADSR app shows no client credentials but
// the way to its API keys; an empty rename is refused with the summary and the field's message, what was typed kept;
// the invitation page says who invites to which organization with which role before its button; a form-wide refusal
// (accepting a withdrawn invitation) is one alert, the summary. Found by accessible names; axe (light and dark) and
// screenshots at 375 and 1280 px in test-output/screenshots/console/rough-edges/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient, type Client } from "@connectrpc/connect";
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
import { mailedLink } from "../support/console.js";
import { admittedDeveloper, createSiteBrowser, signedUpDeveloper, type SiteBrowser } from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Edges = suite("console-site/rough-edges-browser", {}, browserSuite);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let chromium: Browser | undefined;
const opened: BrowserContext[] = [];
let serial = 0;
const folder = "console/rough-edges";

Edges.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  if (chromiumAvailable) chromium = await launchChromium();
});
Edges.after(async () => {
  for (const context of opened) await context.close();
  await chromium?.close();
  await test?.stop();
});

const newEmail = (who: string, locale: string) => `${who}.${locale}.${process.pid}.${++serial}@edges.test`;

/** A chromium page in `locale` holding the session of `browser` (signed in through the site over HTTP). */
async function personWith(browser: SiteBrowser, locale: Locale): Promise<Page> {
  const { context, page } = await newPerson(chromium!, { acceptLanguage: locale === "en" ? "en-GB" : locale });
  opened.push(context);
  await context.addCookies([...browser.cookies].map(([name, value]) => ({ name, value, url: test.console })));
  return page;
}

/** A value typed by someone else inside a sentence: a bidi isolate, as the pages write it. */
const isolated = (value: string) => `\u2068${value}\u2069`;

for (const locale of supportedLocales as readonly Locale[]) {
  Edges(
    `${locale}: an ADSR app's creation, an empty rename, an invitation before and after it is withdrawn`,
    async () => {
      const t = translator(locale);
      const owner = createSiteBrowser(test, locale);
      const ownerEmail = newEmail("owner", locale);
      await signedUpDeveloper(test, owner, ownerEmail);
      await admittedDeveloper(owner, staff);
      const organization = { en: "Corner Shop Labs", ar: "مختبرات متجر الزاوية", hi: "कोने की दुकान लैब्स" }[locale];
      const made = await owner.post("/organizations", { name: organization }, await owner.get("/"));
      const organizationId = /^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]!;
      const page = await personWith(owner, locale);

      // 1. An ADSR app: no client id or secret, its one primary action the way to its API keys.
      await page.goto(`${test.console}/organizations/${organizationId}`);
      await page.getByRole("textbox", { name: t("console.appName") }).fill("Sales reader");
      await page.getByRole("radio", { name: t("console.productAdsr") }).check();
      await page.getByRole("button", { name: t("console.createApp") }).click();
      await page.getByRole("heading", { level: 1, name: t("console.appCreatedTitle") }).waitFor();
      const created = page.getByRole("status");
      assert.is((await created.innerText()).trim(), t("console.appCreatedAdsr", { name: "Sales reader" }));
      const keysLink = page.getByRole("link", { name: t("console.createApiKey") });
      const appId = /^\/apps\/([^/]+)\/api-keys$/.exec((await keysLink.getAttribute("href")) ?? "")![1]!;
      assert.is(await page.getByText(t("console.clientSecret"), { exact: true }).count(), 0);
      assert.is(await page.locator("#client-id, #client-secret").count(), 0);
      assert.is(await page.getByText(t("console.sandboxCredentials")).count(), 0);
      assert.is(await page.locator("main a.button:not(.secondary)").count(), 1, "one primary action");
      await lookAt(page, { locale, site: "console", folder, name: "adsr-created" });

      // 2. An empty rename (blank: the browser's `required` lets spaces through): refused with the summary, which
      // has focus and links to the field; the field says it; the spaces stay; one alert.
      await page.goto(`${test.console}/apps/${appId}/settings`);
      const nameBox = page.getByRole("textbox", { name: t("console.appName") });
      await nameBox.fill("   ");
      await page.getByRole("button", { name: t("console.save") }).click();
      const summary = page.getByRole("alert", { name: t("console.errorSummaryTitle") });
      await summary.waitFor();
      assert.is(await settledFocusId(page, "error-summary"), "error-summary");
      const said = t("console.fieldInvalid", { field: t("console.appName") });
      const link = summary.getByRole("link", { name: said });
      assert.is(await link.getAttribute("href"), "#field-name");
      assert.is(await page.locator("#field-name-error").innerText(), said);
      assert.is(await nameBox.inputValue(), "   ");
      assert.is(await nameBox.getAttribute("aria-invalid"), "true");
      assert.is(await page.getByRole("alert").count(), 1);
      await lookAt(page, { locale, site: "console", folder, name: "rename-empty" });
      await link.click();
      assert.is(await settledFocusId(page, "field-name"), "field-name");

      // 3. The invitation page names the inviter, the organization and the role before its button.
      const inviteeEmail = newEmail("invitee", locale);
      const invited = await owner.post(
        `/organizations/${organizationId}/invitations`,
        { email: inviteeEmail, role: "DEVELOPER" },
        await owner.get(`/organizations/${organizationId}`),
      );
      assert.is(invited.status, 200, invited.html);
      const invitationLink = await mailedLink(test, inviteeEmail);
      const invitee = createSiteBrowser(test, locale);
      await signedUpDeveloper(test, invitee, inviteeEmail);
      const guest = await personWith(invitee, locale);
      await guest.goto(invitationLink.replace(test.config.urls.console, test.console));
      await guest.getByRole("heading", { level: 1, name: t("console.invitationTitle") }).waitFor();
      const from = t("console.invitationFrom", {
        inviter: isolated(ownerEmail),
        organization: isolated(organization),
        role: t("console.roleDeveloper"),
      });
      const sentence = guest.locator("main p.lead");
      assert.is(await sentence.innerText(), from);
      const accept = guest.getByRole("button", { name: t("console.invitationAccept") });
      assert.is(await accept.count(), 1);
      assert.ok(
        await sentence.evaluate(
          (element, button) => Boolean(element.compareDocumentPosition(button!) & 4 /* DOCUMENT_POSITION_FOLLOWING */),
          await accept.elementHandle(),
        ),
        "the sentence comes before the button",
      );
      await lookAt(guest, { locale, site: "console", folder, name: "invitation" });

      // 4. Withdrawn meanwhile: accepting is refused, said once (the summary, focused), with the way on.
      const row = /<li data-invitation="(\d+)">/.exec(invited.html)![1]!;
      const revoked = await owner.post(`/organizations/${organizationId}/invitations/${row}/revoke`, {}, invited);
      assert.is(revoked.status, 200, revoked.html);
      await accept.click();
      const refusal = guest.getByRole("alert", { name: t("console.errorSummaryTitle") });
      await refusal.waitFor();
      assert.is(
        (await refusal.getByRole("listitem").innerText()).trim(),
        messageFor("developer.invite_revoked", {}, locale),
      );
      assert.is(await guest.getByRole("alert").count(), 1);
      assert.is(await settledFocusId(guest, "error-summary"), "error-summary");
      assert.is(
        await guest
          .locator("main")
          .getByRole("link", { name: t("console.dashboardTitle") })
          .count(),
        1,
      );
      await lookAt(guest, { locale, site: "console", folder, name: "invitation-refused" });
    },
  );
}

Edges.run();
