// An app's webhooks in the console, in chromium, in en, ar and hi: a refused URL shown beside its field in words
// (what was typed kept), an endpoint added for a local receiver (sandbox, WEBHOOK_ALLOW_LOOPBACK) with its whsec_
// secret shown once, a test event delivered, verified by the `standardwebhooks` package and shown in the deliveries
// table, resent with the same webhook-id, the secret rotated and the endpoint deleted. Found by accessible names, axe
// on every page (light and dark), screenshots at 375 and 1280 px in test-output/screenshots/console/webhooks/.
// Over the site's HTTP: a developer outside the app's organization is refused, and a production endpoint must be
// https (the WebhookService's own rule, reached through the console).
import type { Browser, Page } from "playwright-core";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { systemClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import {
  browserTestTimeoutMs,
  chromiumAvailable,
  needsChromium,
  launchChromium,
  lookAt,
  newPerson,
  settledFocusId,
} from "../support/browser.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  signedUpDeveloper,
  textOf,
  type SiteBrowser,
} from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const Pages = suite("console-site/webhooks-browser", {}, { timeoutMs: browserTestTimeoutMs });
let test: TestApp;
let chromium: Browser | undefined;
let owner: SiteBrowser;
let receiver: Receiver;
let appId: string;
// Data, not catalogue text: a name no English message piece matches ("Order" is one since the orders page).
const appName = "Hatch relay";

Pages.before(async () => {
  test = await startTestApp({
    clock: systemClock,
    redis: false,
    env: { WEBHOOK_ALLOW_LOOPBACK: "1", WEBHOOK_TIMEOUT_SECONDS: "2", WEBHOOK_RETRY_SCHEDULE_SECONDS: "1" },
  });
  const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  owner = createSiteBrowser(test);
  await signedUpDeveloper(test, owner, `hooks.browser.${process.pid}.${Date.now()}@partner.test`);
  await admittedDeveloper(owner, staff);
  const made = await owner.post("/organizations", { name: "Hooks org" }, await owner.get("/"));
  const organizationId = Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
  const created = await owner.post(
    `/organizations/${organizationId}/apps`,
    { name: appName, product: "FULL" },
    await owner.get(`/organizations/${organizationId}`),
  );
  appId = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
  receiver = await startReceiver("ok");
  if (chromiumAvailable) chromium = await launchChromium();
});
Pages.after(async () => {
  await chromium?.close();
  await receiver?.close();
  await test?.stop();
});

Pages("a developer outside the app's organization neither sees nor adds its endpoints", async () => {
  const outsider = createSiteBrowser(test);
  await signedUpDeveloper(test, outsider, `hooks.outsider.${process.pid}.${Date.now()}@partner.test`);
  const page = await outsider.get(`/apps/${appId}/webhooks`);
  assert.is(page.status, 403);
  assert.match(textOf(page.html), messageFor("developer.not_org_member", {}, "en"));
  const refused = await outsider.post(
    `/apps/${appId}/webhooks`,
    { environment: "sandbox", url: receiver.url },
    await outsider.get("/"),
  );
  assert.is(refused.status, 403);
  assert.match(textOf(refused.html), messageFor("developer.not_org_member", {}, "en"));
  const listed = await owner.get(`/apps/${appId}/webhooks?environment=sandbox`);
  assert.match(textOf(listed.html), translator("en")("console.webhookNoEndpoints"));
});

Pages(
  "a production endpoint must be https: the WebhookService's rule, shown beside the URL with what was typed",
  async () => {
    const form = await owner.get(`/apps/${appId}/webhooks?environment=production`);
    assert.is(form.status, 200);
    const refused = await owner.post(
      `/apps/${appId}/webhooks`,
      { environment: "production", url: receiver.url, description: "local" },
      form,
    );
    assert.is(refused.status, 400);
    assert.match(
      refused.html,
      /<input id="field-url" name="url" type="url" value="http:\/\/127\.0\.0\.1:\d+\/hooks" required aria-invalid="true" aria-describedby="field-url-hint field-url-error"/,
    );
    assert.match(refused.html, /<p class="field-error" id="field-url-error">[^<]+<\/p>/);
    assert.match(refused.html, /name="description" type="text" value="local"/);
  },
);

Pages("deleting asks first and says the consequence; a disabled endpoint is re-enabled by its button", async () => {
  const en = translator("en");
  const form = await owner.get(`/apps/${appId}/webhooks?environment=sandbox`);
  const added = await owner.post(
    `/apps/${appId}/webhooks`,
    { environment: "sandbox", url: `${receiver.url}/confirm`, description: "to delete" },
    form,
  );
  assert.is(added.status, 200, added.html);
  const endpointId = /action="\/apps\/[^/]+\/webhooks\/([^/]+)\/delete"/.exec(added.html)![1]!;
  // Disabled as the delivery workers leave an endpoint that failed for five days.
  await test.app.control.sql`
      update control.webhook_endpoints set disabled_at = now(), failing_since = now() - interval '5 days'
      where id = ${endpointId}`;
  const disabled = await owner.get(`/apps/${appId}/webhooks?environment=sandbox`);
  assert.match(textOf(disabled.html), en("console.webhookDisabledExplain"));
  assert.match(disabled.html, `aria-label="${en("console.webhookEnable")}: ${receiver.url}/confirm"`);
  const enabled = await owner.post(
    `/apps/${appId}/webhooks/${endpointId}/enable`,
    { environment: "sandbox" },
    disabled,
  );
  assert.is(enabled.status, 200, enabled.html);
  assert.match(
    enabled.html,
    `<div class="alert ok" role="status">${en("console.webhookEnabledAgain", { url: `${receiver.url}/confirm` })}</div>`,
  );
  assert.not.match(enabled.html, `aria-label="${en("console.webhookEnable")}: ${receiver.url}/confirm"`);
  const [row] = await test.app.control.sql<{ disabled_at: Date | null }[]>`
      select disabled_at from control.webhook_endpoints where id = ${endpointId}`;
  assert.is(row!.disabled_at, null);

  const asked = await owner.post(`/apps/${appId}/webhooks/${endpointId}/delete`, { environment: "sandbox" }, enabled);
  assert.is(asked.status, 200, asked.html);
  assert.match(asked.html, `<h1>${en("console.webhookDeleteConfirmTitle")}</h1>`);
  // The card does not repeat the title: it says what deleting does.
  assert.match(asked.html, `autofocus>${en("console.webhookDeleteConfirmHeading")}</h2>`);
  assert.is(en("console.webhookDeleteConfirmHeading"), "What deleting it does");
  assert.match(textOf(asked.html), en("console.webhookDeleteConsequence"));
  assert.match(asked.html, '<input type="hidden" name="confirm" value="yes">');
  assert.match(asked.html, `<a class="button secondary" href="/apps/${appId}/webhooks?environment=sandbox">`);
  const [still] = await test.app.control.sql<{ deleted_at: Date | null }[]>`
      select deleted_at from control.webhook_endpoints where id = ${endpointId}`;
  assert.is(still!.deleted_at, null, "asking deletes nothing");
  const deleted = await owner.post(
    `/apps/${appId}/webhooks/${endpointId}/delete`,
    { environment: "sandbox", confirm: "yes" },
    asked,
  );
  assert.is(deleted.status, 200, deleted.html);
  assert.match(deleted.html, `<div class="alert ok" role="status">${en("console.webhookDeleted")}</div>`);
  assert.not.match(deleted.html, `${receiver.url}/confirm`);
  const gone = await owner.post(`/apps/${appId}/webhooks/${endpointId}/delete`, { environment: "sandbox" }, deleted);
  assert.is(gone.status, 404);
  assert.match(textOf(gone.html), messageFor("developer.webhook_endpoint_not_found", {}, "en"));
});

/** Language, axe and screenshots of a page; dark mode too for the busiest one (the file stays within its time limit). */
const look = (page: Page, locale: Locale, name: string, dark = false) =>
  lookAt(
    page,
    { locale, site: "console", folder: "console/webhooks", name },
    { schemes: dark ? ["light", "dark"] : ["light"] },
  );

/** Reloads the page until the deliveries table shows `count` deliveries in `state` (the worker settles them). */
async function deliveredRows(page: Page, state: string, count: number): Promise<string[]> {
  for (let tries = 0; tries < 100; tries++) {
    const rows = page.getByRole("table").getByRole("row").filter({ hasText: state });
    if ((await rows.count()) === count) return rows.allInnerTexts();
    await page.waitForTimeout(200);
    await page.goto(page.url().replace(/\/webhooks\/.*$/, "/webhooks?environment=sandbox"));
  }
  throw new Error(`no ${count} deliveries in state ${state}`);
}

async function walk(locale: Locale): Promise<void> {
  const t = translator(locale);
  const { context, page } = await newPerson(chromium!, { acceptLanguage: locale });
  const before = receiver.received.length;
  try {
    const url = new URL(test.console);
    await context.addCookies(
      [...owner.cookies].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/" })),
    );
    await page.goto(`${test.console}/apps/${appId}`);
    await page.getByRole("link", { name: t("console.webhooksLink", { environment: t("console.sandbox") }) }).click();
    await page.getByRole("heading", { name: t("console.webhooksTitle", { name: appName }) }).waitFor();
    await look(page, locale, "empty");

    // A private address is refused, in words, beside the field.
    const urlField = page.getByRole("textbox", { name: t("console.webhookUrl") });
    await urlField.fill("http://10.1.2.3/hooks");
    await page.getByRole("checkbox", { name: "webhook.test" }).check();
    await page.getByRole("button", { name: t("console.webhookAdd") }).click();
    await page
      .getByRole("textbox", { name: t("console.webhookUrl") })
      .and(page.locator('[aria-invalid="true"]'))
      .waitFor();
    assert.is(await urlField.inputValue(), "http://10.1.2.3/hooks");
    // The service's rule, said in the page's language (its `rule` param is English).
    assert.is(await page.locator("#field-url-error").innerText(), t("console.webhookRulePublic"));
    assert.ok(await page.getByRole("checkbox", { name: "webhook.test" }).isChecked());
    await look(page, locale, "refused-url");

    // Added for the local receiver: the secret shown once.
    await urlField.fill(receiver.url);
    await page.getByRole("textbox", { name: t("console.webhookDescription") }).fill("Local receiver");
    await page.getByRole("button", { name: t("console.webhookAdd") }).click();
    await page.getByRole("heading", { name: t("console.webhookCreatedHeading", { url: receiver.url }) }).waitFor();
    const secret = await page.locator("#webhook-secret").innerText();
    assert.match(secret, /^whsec_/);
    receiver.secrets.push(secret);
    await look(page, locale, "created");

    // A test event: delivered, verified with the secret, and in the table with its webhook-id.
    await page.getByRole("button", { name: `${t("console.webhookSendTest")}: ${receiver.url}` }).click();
    await page
      .getByRole("status")
      .filter({ hasText: t("console.webhookTestSent") })
      .waitFor();
    const [first] = (await receiver.waitFor(before + 1)).slice(before);
    assert.is(first!.verified?.type, "webhook.test");
    const eventId = String(first!.headers["webhook-id"]);
    const delivered = await deliveredRows(page, t("console.webhookStateSucceeded"), 1);
    assert.match(delivered[0]!, eventId);
    assert.match(delivered[0]!, "webhook.test");
    await look(page, locale, "delivered", true);

    // Resent: the same event (same webhook-id) arrives again.
    await page.getByRole("button", { name: `${t("console.webhookResend")}: webhook.test ${eventId}` }).click();
    await page
      .getByRole("status")
      .filter({ hasText: t("console.webhookResent") })
      .waitFor();
    const [again] = (await receiver.waitFor(before + 2)).slice(before + 1);
    assert.is(String(again!.headers["webhook-id"]), eventId);
    assert.is(again!.verified?.type, "webhook.test");
    await deliveredRows(page, t("console.webhookStateSucceeded"), 1);
    await look(page, locale, "resent");

    // A new secret, shown once; then the endpoint goes.
    await page.getByRole("button", { name: `${t("console.webhookRotate")}: ${receiver.url}` }).click();
    await page.getByRole("heading", { name: t("console.webhookRotatedHeading", { url: receiver.url }) }).waitFor();
    const rotated = await page.locator("#webhook-secret").innerText();
    assert.match(rotated, /^whsec_/);
    assert.is.not(rotated, secret);
    await look(page, locale, "rotated");
    await page.getByRole("button", { name: `${t("console.webhookDelete")}: ${receiver.url}` }).click();
    // The consequence first, focused; then the confirmation's own button deletes.
    const confirmHeading = page.getByRole("heading", { name: t("console.webhookDeleteConfirmHeading") });
    await confirmHeading.waitFor();
    assert.is(await settledFocusId(page, "confirm-heading"), "confirm-heading");
    assert.is(await page.getByRole("link", { name: t("console.webhookDeleteKeep") }).count(), 1);
    await look(page, locale, "delete-confirm");
    await page.getByRole("button", { name: `${t("console.webhookDeleteConfirm")}: ${receiver.url}` }).click();
    await page
      .getByRole("status")
      .filter({ hasText: t("console.webhookDeleted") })
      .waitFor();
    assert.is(await page.getByRole("heading", { name: receiver.url }).count(), 0);
    await look(page, locale, "deleted");
  } finally {
    await context.close();
  }
}

/** A test that drives chromium: reported skipped without it, as the others run. */
const it = (name: string, test: () => Promise<void>) => Pages(name, test, needsChromium);

it("English: add (a refused URL first), test, the delivery in the table, resend, rotate, delete", async () => {
  await walk("en");
});

it("Arabic (right to left): the same", async () => {
  await walk("ar");
});

it("Hindi: the same", async () => {
  await walk("hi");
});

Pages.run();
