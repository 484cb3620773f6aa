// The first-call page in chromium, in en, ar and hi (issue 42, "Languages"): the sandbox merchant's whole name
// shows on a 375 px phone (a select cut it off), and the API's answer, a left-to-right JSON sample, keeps an Arabic `message` in a
// right-to-left isolate: its full stop at its own end, the closing quote and comma after it where JSON puts them.
// axe (light and dark, no critical, serious or moderate finding) and screenshots at 375 and 1280 px in
// test-output/screenshots/console/first-call-languages/.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient, type Client } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { systemClock } from "../../src/runtime/clock.js";
import { supportedLocales, translator, type Locale } from "../../src/web/i18n.js";
import { browserSuite, chromiumAvailable, launchChromium, lookAt, newPerson, setViewport } from "../support/browser.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxWorkspace,
  signedUpDeveloper,
  type SiteBrowser,
} from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const FirstCall = suite("console-site/first-call-languages-browser", {}, browserSuite);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let chromium: Browser | undefined;
const opened: BrowserContext[] = [];
let serial = 0;
const folder = "console/first-call-languages";

FirstCall.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  if (chromiumAvailable) chromium = await launchChromium();
});
FirstCall.after(async () => {
  for (const context of opened) await context.close();
  await chromium?.close();
  await test?.stop();
});

async function personWith(browser: SiteBrowser, locale: Locale): Promise<Page> {
  const { context, page } = await newPerson(chromium!, { acceptLanguage: locale === "en" ? "en-GB" : locale });
  opened.push(context);
  await context.addCookies([...browser.cookies].map(([name, value]) => ({ name, value, url: test.console })));
  return page;
}

/** A long merchant name in each language: the select's widest option. */
const merchantNames: Record<Locale, string> = {
  en: "Demo Diner New York Downtown Flagship Restaurant",
  ar: "مطعم العرض التجريبي في وسط مدينة نيويورك الرئيسي",
  hi: "डेमो डाइनर न्यूयॉर्क डाउनटाउन फ़्लैगशिप रेस्टोरेंट",
};

for (const locale of supportedLocales as readonly Locale[]) {
  FirstCall(
    `${locale}: the merchant's whole name at 375 px; an Arabic message in the JSON answer keeps its own direction`,
    async () => {
      const t = translator(locale);
      // Set up over HTTP in English (the helpers read its pages); the chromium page speaks `locale`.
      const developer = createSiteBrowser(test);
      await signedUpDeveloper(test, developer, `first.${locale}.${process.pid}.${++serial}@first-call.test`);
      await admittedDeveloper(developer, staff);
      const workspace = await sandboxWorkspace(developer, {
        organization: `First call ${locale} ${serial}`,
        app: "Stock sync",
        product: "FULL",
        merchant: merchantNames[locale],
      });
      const page = await personWith(developer, locale);
      await page.goto(`${test.console}/apps/${workspace.appId}/first-call`);
      await page.getByRole("heading", { name: t("console.firstCallTitle"), level: 1 }).waitFor();

      // The merchant's whole name at 375 (a select cut it off): a radio named by it, its label inside the card, no
      // line of it cut, nothing scrolling sideways.
      await setViewport(page, { width: 375, height: 812 });
      const choice = page
        .getByRole("group", { name: t("console.sandboxMerchant") })
        .getByRole("radio", { name: new RegExp(`^${merchantNames[locale]} \\(${workspace.companyId}\\)$`) });
      assert.ok(await choice.isChecked(), "the organization's one merchant, chosen");
      const fit = (await page.evaluate(`(() => {
      const label = document.querySelector('label[for="merchant-${workspace.companyId}"]');
      const box = label.getBoundingClientRect();
      const card = label.closest(".card").getBoundingClientRect();
      return {
        left: box.left,
        right: box.right,
        cardLeft: card.left,
        cardRight: card.right,
        cut: label.scrollWidth > label.clientWidth,
        pageWidth: document.documentElement.scrollWidth,
      };
    })()`)) as { left: number; right: number; cardLeft: number; cardRight: number; cut: boolean; pageWidth: number };
      assert.ok(fit.left >= fit.cardLeft && fit.right <= fit.cardRight, `name inside its card: ${JSON.stringify(fit)}`);
      assert.not.ok(fit.cut, `the name is not cut: ${JSON.stringify(fit)}`);
      assert.ok(fit.pageWidth <= 375, `nothing wider than the phone: ${JSON.stringify(fit)}`);
      await page.setViewportSize({ width: 1280, height: 900 });

      // A wrong secret: the API answers 401 in the page's language, shown as the JSON it came as.
      await page.getByLabel(t("console.clientSecret")).fill("not-the-secret");
      await page.getByRole("button", { name: t("console.firstCallRunButton") }).click();
      await page.getByRole("heading", { name: t("console.firstCallResult") }).waitFor();
      const answer = page.locator("#run-result pre").first();
      const isolates = answer.locator("bdi");
      if (locale !== "ar") {
        assert.is(await isolates.count(), 0, "no isolate where no string is right to left");
      } else {
        assert.is(await isolates.count(), 1, "the Arabic message, isolated");
        assert.is(await isolates.first().getAttribute("dir"), "rtl");
        const layout = (await page.evaluate(`(() => {
        const bdi = document.querySelector("#run-result pre bdi");
        const text = bdi.firstChild;
        const stop = document.createRange();
        stop.setStart(text, text.length - 1);
        stop.setEnd(text, text.length);
        const quote = document.createRange();
        const after = bdi.nextSibling;
        quote.setStart(after, 0);
        quote.setEnd(after, 1);
        const rects = bdi.getClientRects();
        return {
          last: text.data.at(-1),
          after: after.data.slice(0, 2),
          stopLeft: stop.getBoundingClientRect().left,
          lineLeft: rects[rects.length - 1].left,
          quoteLeft: quote.getBoundingClientRect().left,
          lineRight: rects[rects.length - 1].right,
        };
      })()`)) as Record<string, number | string>;
        assert.is(layout["last"], ".", "the message ends on its full stop");
        assert.is(String(layout["after"]).slice(0, 1), '"', "then the JSON's closing quote");
        // Right to left: the last character (the full stop) is drawn at the left end of the message's last line,
        // and the closing quote after the isolate, to its right.
        assert.ok(Math.abs(Number(layout["stopLeft"]) - Number(layout["lineLeft"])) < 2, JSON.stringify(layout));
        assert.ok(Number(layout["quoteLeft"]) >= Number(layout["lineRight"]) - 1, JSON.stringify(layout));
      }
      await lookAt(page, { locale, site: "console", folder, name: "first-call-answer" }, { data: "pre" });
    },
  );
}

FirstCall.run();
