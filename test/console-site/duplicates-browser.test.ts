// Duplicates in the console (issue 42), in chromium, in en, ar and hi: a second pending invitation to one email, an
// API key named like a live one of the app, and a webhook endpoint at a URL the app already has in that environment
// are each refused beside the field it concerns (the catalogue's documented code, in the page's language; the summary
// links there; what was typed kept). A page holding two endpoints of one URL (made before the rule, written here
// straight to the database) names each card apart: axe finds no `landmark-unique`. Axe (light and dark) and
// screenshots at 375 and 1280 px in test-output/screenshots/console/duplicates/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
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
import { admittedDeveloper, createSiteBrowser, signedUpDeveloper, type SiteBrowser } from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const Duplicates = suite("console-site/duplicates-browser", {}, browserSuite);
let test: TestApp;
let chromium: Browser | undefined;
let receiver: Receiver;
let owner: SiteBrowser;
let organizationId: number;
let appId: string;
const opened: BrowserContext[] = [];
const folder = "console/duplicates";

Duplicates.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false, env: { WEBHOOK_ALLOW_LOOPBACK: "1" } });
  const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  owner = createSiteBrowser(test);
  await signedUpDeveloper(test, owner, `duplicates.${process.pid}.${Date.now()}@partner.test`);
  await admittedDeveloper(owner, staff);
  const made = await owner.post("/organizations", { name: "Twice org" }, await owner.get("/"));
  organizationId = Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
  const created = await owner.post(
    `/organizations/${organizationId}/apps`,
    { name: "Ledger feed", product: "ADSR" },
    await owner.get(`/organizations/${organizationId}`),
  );
  appId = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
  receiver = await startReceiver("ok");
  if (chromiumAvailable) chromium = await launchChromium();
});
Duplicates.after(async () => {
  for (const context of opened) await context.close();
  await chromium?.close();
  await receiver?.close();
  await test?.stop();
});

async function ownerPage(locale: Locale): Promise<Page> {
  const { context, page } = await newPerson(chromium!, { acceptLanguage: locale === "en" ? "en-GB" : locale });
  opened.push(context);
  await context.addCookies([...owner.cookies].map(([name, value]) => ({ name, value, url: test.console })));
  return page;
}

/**
 * The page refused `code` about the field `fieldId` labelled `label`: the summary (focused) links to the field, the
 * same words are beside it, and the field kept `typed`.
 */
async function refusedAt(page: Page, locale: Locale, code: ErrorCode, field: { id: string; label: string }) {
  const t = translator(locale);
  const message = messageFor(code, {}, locale);
  const summary = page.locator("#error-summary");
  await summary.waitFor();
  assert.is(await settledFocusId(page, "error-summary"), "error-summary");
  const link = summary.getByRole("link", { name: t("console.problemAt", { field: field.label, message }) });
  assert.is(await link.getAttribute("href"), `#${field.id}`);
  assert.is(await page.locator(`#${field.id}-error`).innerText(), message);
  assert.is(await page.locator(`#${field.id}`).getAttribute("aria-invalid"), "true");
}

for (const locale of supportedLocales as readonly Locale[]) {
  Duplicates(`${locale}: a second pending invitation to one email is refused beside the email`, async () => {
    const t = translator(locale);
    const page = await ownerPage(locale);
    const email = `twice.${locale}.${process.pid}@partner.test`;
    for (const attempt of [1, 2]) {
      await page.goto(`${test.console}/organizations/${organizationId}`);
      await page.getByRole("textbox", { name: t("console.email") }).fill(email);
      await page.getByRole("button", { name: t("console.sendInvitation") }).click();
      if (attempt === 1) await page.getByText(t("console.invitationSent", { email })).waitFor();
    }
    await refusedAt(page, locale, "developer.invitation_pending", { id: "field-email", label: t("console.email") });
    assert.is(await page.getByRole("textbox", { name: t("console.email") }).inputValue(), email);
    await lookAt(page, { locale, site: "console", folder, name: "invitation-twice" });
  });

  Duplicates(`${locale}: an API key named like a live key of the app is refused beside the name`, async () => {
    const t = translator(locale);
    const page = await ownerPage(locale);
    const name = `Till ${locale}`;
    for (const attempt of [1, 2]) {
      await page.goto(`${test.console}/apps/${appId}/api-keys`);
      const keys = page.getByRole("region", { name: t("console.apiKeysHeading") });
      // Letter case aside: "till" is "Till".
      await keys.getByLabel(t("console.apiKeyName")).fill(attempt === 1 ? name : name.toLowerCase());
      await keys.getByRole("button", { name: t("console.createApiKey") }).click();
      if (attempt === 1) await page.getByRole("heading", { name: t("console.newApiKeyHeading") }).waitFor();
    }
    await refusedAt(page, locale, "developer.api_key_name_taken", {
      id: "api-key-name",
      label: t("console.apiKeyName"),
    });
    assert.is(await page.getByLabel(t("console.apiKeyName")).inputValue(), name.toLowerCase());
    await lookAt(page, { locale, site: "console", folder, name: "api-key-twice" });
  });

  Duplicates(
    `${locale}: a second endpoint at one URL is refused beside the URL; two made before are named apart`,
    async () => {
      const t = translator(locale);
      const page = await ownerPage(locale);
      const url = `${receiver.url}/${locale}`;
      for (const attempt of [1, 2]) {
        await page.goto(`${test.console}/apps/${appId}/webhooks?environment=sandbox`);
        await page.getByRole("textbox", { name: t("console.webhookUrl") }).fill(url);
        await page.getByRole("button", { name: t("console.webhookAdd") }).click();
        if (attempt === 1) await page.locator("#webhook-secret-heading").waitFor();
      }
      await refusedAt(page, locale, "developer.webhook_url_taken", { id: "field-url", label: t("console.webhookUrl") });
      assert.is(await page.getByRole("textbox", { name: t("console.webhookUrl") }).inputValue(), url);
      await lookAt(page, { locale, site: "console", folder, name: "endpoint-twice" });
      // Two endpoints of one URL, as a database from before the rule may hold: each card is its own landmark.
      await page.goto(`${test.console}/apps/${appId}/webhooks?environment=sandbox`);
      await page.getByRole("textbox", { name: t("console.webhookUrl") }).fill(`${url}/other`);
      await page.getByRole("button", { name: t("console.webhookAdd") }).click();
      await page.locator("#webhook-secret-heading").waitFor();
      await test.app.control.sql`update control.webhook_endpoints set url = ${url} where url = ${`${url}/other`}`;
      await page.goto(`${test.console}/apps/${appId}/webhooks?environment=sandbox`);
      assert.is(await page.getByRole("heading", { level: 3, name: url, exact: true }).count(), 2);
      await lookAt(page, { locale, site: "console", folder, name: "endpoints-same-url" });
    },
  );
}

Duplicates.run();
