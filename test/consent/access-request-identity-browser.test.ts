import type { Browser, Page } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson } from "../support/browser.js";
import { connectTransport } from "../support/internal.js";
import { newApp, newLiveMerchant, newOrganization } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";

const Identity = suite("consent/access-request-identity-browser", {}, browserSuite);
const clock = createManualClock(Date.now());
let test: TestApp;
let chromium: Browser;

if (chromiumAvailable) {
  Identity.before(async () => {
    test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
    chromium = await launchChromium();
  });
  Identity.after(async () => {
    await chromium?.close();
    await test?.stop();
  });
}
/** `data`: elements whose text is data (the seeded stores' English names), left out of the language check. */
const look = (page: Page, locale: Locale, name: string, data?: string) =>
  lookAt(page, { locale, site: "consent", folder: "consent/identity", name }, data ? { data } : {});

/** The names marked in `selector` (each a bold <bdi>), and the text between the first two. */
async function namesIn(page: Page, selector: string): Promise<{ names: string[]; isolated: boolean; between: string }> {
  return (await page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    const marks = [...element.querySelectorAll("strong.name")];
    const between = document.createRange();
    if (marks.length >= 2) {
      between.setStartAfter(marks[0]);
      between.setEndBefore(marks[1]);
    }
    return {
      names: marks.map((mark) => mark.innerText),
      isolated: marks.every((mark) => mark.children.length === 1 && mark.firstElementChild.tagName === "BDI"),
      between: marks.length >= 2 ? between.toString() : "",
    };
  })()`)) as { names: string[]; isolated: boolean; between: string };
}

async function signIn(page: Page, locale: Locale, login: { email: string; password: string }): Promise<void> {
  const t = translator(locale);
  await page.getByLabel(t("consent.email")).fill(login.email);
  await page.getByLabel(t("consent.password")).fill(login.password);
  await page.getByRole("button", { name: t("consent.signIn"), exact: true }).click();
}

async function accessRequestCard(locale: Locale, acceptLanguage: string): Promise<void> {
  const t = translator(locale);
  const credentials = credentialServiceOf(test, clock);
  const grants = createClient(GrantService, connectTransport(test.app.grpc.port, test.internal.operator));
  const app = await newApp(credentials, await newOrganization(credentials), Product.ADSR, true);
  const merchant = await newLiveMerchant(credentials, "us");
  const storeIds = await seedMerchantData(test.app.regionDatabases.get("us")!.sql, "us", merchant.companyId, {
    storeCount: 2,
    itemCount: 1,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(clock.now()),
  });
  await grants.createAccessRequest({
    appId: app.appId,
    companyId: BigInt(merchant.companyId),
    storeIds: storeIds.map(BigInt),
  });
  const { context, page } = await newPerson(chromium, { acceptLanguage });
  try {
    await page.goto(`${test.auth}/oauth/access-requests`);
    await signIn(page, locale, merchant.owner);
    const pending = page
      .getByRole("list", { name: t("consent.pendingRequests") })
      .getByRole("listitem")
      .first();
    await pending.waitFor();
    // Who asks, as on the consent screen: the avatar, the name as a heading, the developer and the review mark.
    const card = pending.locator(".asker");
    assert.ok(await card.locator(".avatar").isVisible(), "the app's avatar");
    const heading = card.getByRole("heading");
    assert.match(await heading.innerText(), /^app \d/);
    const badge = card.locator(".badge.reviewed");
    assert.is((await badge.innerText()).replace(/^✓\s*/, ""), t("consent.reviewed"));
    const sentence = await namesIn(page, "main .list li p:has(strong.name)");
    assert.ok(sentence.isolated, `the app's name in the sentence, a bold <bdi> (${locale})`);
    await look(page, locale, "access-requests", ".choice label");
  } finally {
    await context.close();
  }
}

for (const [locale, acceptLanguage] of [
  ["en", "en-GB"],
  ["ar", "ar-SA"],
  ["hi", "hi-IN"],
] as const) {
  Identity(`${locale}: an ADSR access request shows who asks as the consent screen does`, async () => {
    await accessRequestCard(locale, acceptLanguage);
  });
}

Identity.run();
