// The console's main journey in Debian's chromium, driven by playwright-core and found by accessible names: a new
// person signs up, follows the mailed link (read from the mail transport), signs in, applies to the program (staff
// approve through the internal port, as staff would) and signs the agreement, creates an organization and a FULL
// app, copies the secret with the copy button, provisions a sandbox merchant and runs the first call to a 200.
// Every visited page is checked by axe-core (zero critical, serious or moderate violations), and the main pages are then
// shown in en, ar and hi: axe again, no English string left on the Arabic pages, and screenshots at 375 and 1280
// pixels written to test-output/screenshots/console/. Without chromium the suite says it is skipped.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Client } from "@connectrpc/connect";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { skipTest, suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { catalogueOf, supportedLocales, type Locale } from "../../src/web/i18n.js";
import { mailedLink } from "../support/console.js";
import { grpcTransport } from "../support/internal.js";
import {
  assertAccessible,
  browserTestTimeoutMs,
  chromiumAvailable,
  chromiumPath,
  screenshots,
  withoutChromium,
} from "../support/browser.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Journey = suite("console-site/browser-journey", {}, { timeoutMs: browserTestTimeoutMs });
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
const timeout = 90_000;
const password = "correct horse battery staple";

let test: TestApp;
let staff: Client<typeof ConsoleService>;
let context: BrowserContext;
let userDataDir: string;

async function launch(): Promise<BrowserContext> {
  userDataDir = await mkdtemp(join(tmpdir(), "pa-chromium-"));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    timeout,
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** English strings of the catalogue (those another language writes differently) found on a page's visible text. */
async function englishLeft(page: Page, locale: Locale): Promise<string[]> {
  const text = (await page.evaluate("document.body.innerText")) as string;
  const english = catalogueOf("en");
  const other = catalogueOf(locale);
  return (
    Object.entries(english)
      // Each language's own name stays in its own language on the switch.
      .filter(
        ([key, value]) =>
          key !== "common.languageName" &&
          other[key as keyof typeof other] !== value &&
          !value.includes("{") &&
          value.length > 3,
      )
      .filter(([, value]) => text.includes(value))
      .map(([key]) => key)
  );
}

/** Each page in en, ar and hi: axe, no English left in Arabic, screenshots at 1280 and 375 pixels. */
async function showInEachLanguage(page: Page, pages: ReadonlyArray<readonly [string, string]>): Promise<void> {
  for (const locale of supportedLocales) {
    for (const [name, path] of pages) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${test.console}${path}?lang=${locale}`);
      await page.locator(`html[lang="${locale}"]`).waitFor({ state: "attached" });
      if (locale === "ar") {
        assert.is(await page.getAttribute("html", "dir"), "rtl");
        assert.equal(await englishLeft(page, "ar"), [], `${name} in Arabic`);
      }
      await assertAccessible(page, `${name} (${locale})`);
      await screenshots(page, "console", `${name}-${locale}`);
    }
  }
}

if (!chromiumAvailable) {
  Journey("the browser journey", () => skipTest(withoutChromium));
} else {
  Journey.before(async () => {
    test = await startTestApp({ clock, redis: Boolean(process.env["TEST_REDIS_URL"]) });
    staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "LP-2026", url: "https://partner.test/agreement/v1" });
    context = await launch();
    context.setDefaultTimeout(timeout);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: test.console });
  });

  Journey.after(async () => {
    await context?.close();
    await test?.stop();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });

  Journey(
    "sign up, mailed link, sign in, program, organization, FULL app, copied secret, sandbox merchant, first call 200; accessible in en, ar, hi",
    async () => {
      const page = await context.newPage();
      const email = `journey.${process.pid}.${Date.now()}@partner.test`;
      const visited: string[] = [];
      const check = async (label: string) => {
        visited.push(new URL(page.url()).pathname);
        await assertAccessible(page, label);
      };

      // Signed out first: the sign-in and sign-up pages in each language.
      await showInEachLanguage(page, [
        ["sign-in", "/sign-in"],
        ["sign-up", "/sign-up"],
      ]);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${test.console}/sign-up?lang=en`);
      await check("sign-up");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { name: "Check your email" }).waitFor();
      await check("check your email");

      await page.goto(await mailedLink(test, email));
      await page.getByRole("heading", { name: "Email address verified" }).waitFor();
      await check("verified");
      await page.getByRole("link", { name: "Sign in" }).click();
      await check("sign-in");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Dashboard" }).waitFor();
      await check("dashboard");

      await page.getByRole("link", { name: "Apply to the partner program and sign the agreement" }).click();
      await check("program");
      await page.getByLabel("Company name").fill("Acme Ltd");
      await page.getByLabel("What will your app do?").fill("Keeps stock in sync.");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.getByText("Your application is waiting for a decision.").waitFor();
      const applications = await staff.listProgramApplications({});
      await staff.decideProgramApplication({
        applicationId: applications.applications.at(-1)!.applicationId,
        approve: true,
      });
      await page.reload();
      await page.getByRole("button", { name: "Sign version 1" }).click();
      await page.getByText("You signed version 1.").waitFor();
      await check("program signed");

      await page.getByRole("link", { name: "Dashboard" }).click();
      await page.getByLabel("Organization name").fill("Acme apps");
      await page.getByRole("button", { name: "Create organization" }).click();
      await page.getByRole("heading", { name: "Organization Acme apps" }).waitFor();
      await check("organization");
      const organizationUrl = page.url();

      await page.getByLabel("App name").fill("Stock sync");
      await page.getByRole("radio", { name: "Full access" }).check();
      await page.getByRole("button", { name: "Create app" }).click();
      await page.getByRole("heading", { name: "App created" }).waitFor();
      await check("app created");
      const secret = (await page.locator("#client-secret").textContent())!;
      assert.match(secret, /^lp_sk_sb_/);
      // The copy button is shown by its script (served as a file under the CSP) and puts the secret on the clipboard.
      await page.getByRole("button", { name: "Copy: Client secret" }).click();
      await page.getByRole("button", { name: "Copy: Client secret" }).getByText("Copied").waitFor();
      assert.is(await page.evaluate("navigator.clipboard.readText()"), secret);
      await page.getByRole("link", { name: "Open the app" }).click();
      await page.getByRole("heading", { name: "Stock sync" }).waitFor();
      await check("app");
      const appUrl = page.url();

      await page.goto(organizationUrl);
      await page.getByLabel("Country code").fill("GB");
      await page.getByRole("button", { name: "Create a sandbox merchant" }).click();
      await page.getByRole("heading", { name: "Owner login" }).waitFor();
      await check("sandbox merchant");

      await page.goto(appUrl);
      await page.getByRole("link", { name: "First call" }).click();
      await page.getByRole("heading", { name: "First call" }).waitFor();
      await check("first call");
      // Each command has a copy button: what lands on the clipboard is the command as shown (wrapped only on screen).
      const tokenCommand = (await page.locator("#curl-token").textContent())!;
      assert.match(tokenCommand, "<CLIENT_SECRET>");
      await page.getByRole("button", { name: "Copy: POST /v1/token" }).click();
      await page.getByRole("button", { name: "Copy: POST /v1/token" }).getByText("Copied").waitFor();
      assert.is(await page.evaluate("navigator.clipboard.readText()"), tokenCommand);
      await page.getByLabel("Client secret").fill(secret);
      await page.getByRole("button", { name: "Run the first call" }).click();
      await page.getByRole("heading", { name: "The API's answers" }).waitFor();
      assert.equal(await page.locator('[data-testid="status"]').allTextContents(), ["200", "200"]);
      await check("first call result");

      // The main pages in each language: axe, no English left in Arabic, and screenshots at a phone's and a desktop's width.
      const main = [
        ["dashboard", "/"],
        ["program", "/program"],
        ["organization", new URL(organizationUrl).pathname],
        ["app", new URL(appUrl).pathname],
        ["first-call", `${new URL(appUrl).pathname}/first-call`],
        ["archive", `${new URL(appUrl).pathname}/archive`],
      ] as const;
      await showInEachLanguage(page, main);
      await page.goto(`${test.console}/?lang=en`);
      assert.ok(visited.length >= 10, visited.join(", "));
    },
  );
}

Journey.run();
