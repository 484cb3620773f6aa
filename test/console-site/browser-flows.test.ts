// The console's other journeys in Debian's chromium (playwright-core), every control found by its accessible name
// and every page checked by axe-core (zero critical, serious or moderate violations). Each test is a new person in a fresh
// browser context (no cookies, an address of its own) who signs up through the pages:
//   - a password reset through the mailed link: the new password signs in, the old one is refused;
//   - an invitation accepted by a second, new person (signed up on the way, and led back to it by the sign-in after
//     verifying), who then sees only what a developer may do, and whose forged POST of an owner-only action the
//     server refuses (403, the message on the page);
//   - an ADSR app's API key: created on the app's page (shown once), used from the test against the front's real
//     port (X-API-Key) to a 200, revoked on the page, then refused with the spec's 401 partner.api_key_invalid;
//   - the journey in Arabic from the browser's Accept-Language: sign-up to the app page, right to left, no English;
//   - the main pages in Hindi (axe) and every main page dark (prefers-color-scheme, the context's colorScheme) at
//     375 and 1280 px in en, ar and hi: test-output/screenshots/console/dark/.
// Without chromium the suite says it is skipped.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createClient, type Client } from "@connectrpc/connect";
import { skipTest, suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { supportedLocales, translator, type Locale } from "../../src/web/i18n.js";
import {
  assertAccessible,
  assertInLanguage,
  browserTestTimeoutMs,
  chromiumAvailable,
  launchChromium,
  newPerson,
  screenshots,
  settledFocusId,
  withoutChromium,
} from "../support/browser.js";
import { mailedLink } from "../support/console.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Flows = suite("console-site/browser-flows", {}, { timeoutMs: browserTestTimeoutMs });
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
const password = "correct horse battery staple";
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let browser: Browser;
let serial = 0;
const opened: BrowserContext[] = [];

const emailOf = (who: string) => `${who}.${process.pid}.${++serial}@partner.test`;

/** A new person's fresh context (closed after the suite even when a test fails). */
async function person(options: Parameters<typeof newPerson>[1] = {}): Promise<Page> {
  const { context, page } = await newPerson(browser, options);
  opened.push(context);
  return page;
}

/** Sign up on the pages in `locale` (the page's own language), follow the mailed link, sign in: the dashboard. */
async function signUpAndSignIn(
  page: Page,
  email: string,
  locale: Locale = "en",
  check?: (label: string) => Promise<void>,
): Promise<void> {
  const t = translator(locale);
  const checked = check ?? (async () => {});
  await page.goto(`${test.console}/sign-up`);
  await page.getByRole("heading", { name: t("console.signUpTitle") }).waitFor();
  await checked("sign-up");
  await page.getByLabel(t("console.email")).fill(email);
  await page.getByLabel(t("console.password")).fill(password);
  await page.getByRole("button", { name: t("console.createAccount") }).click();
  await page.getByRole("heading", { name: t("console.checkMailTitle") }).waitFor();
  await checked("check your email");
  await verifyAndSignIn(page, email, locale, checked);
}

async function verifyAndSignIn(
  page: Page,
  email: string,
  locale: Locale,
  check: (label: string) => Promise<void>,
  /** The page the sign-in leads to: the dashboard, or the invitation an invited person signed up from. */
  landing: "console.dashboardTitle" | "console.invitationTitle" = "console.dashboardTitle",
): Promise<void> {
  const t = translator(locale);
  const link = await mailedLink(test, email);
  assert.ok(link.startsWith(`${test.console}/verify-email?token=`), link);
  await page.goto(link);
  await page.getByRole("heading", { name: t("console.verifiedTitle") }).waitFor();
  await check("verified");
  await page.getByRole("link", { name: t("console.signIn") }).click();
  await page.getByRole("heading", { name: t("console.signInTitle") }).waitFor();
  await check("sign-in");
  await page.getByLabel(t("console.email")).fill(email);
  await page.getByLabel(t("console.password")).fill(password);
  await page.getByRole("button", { name: t("console.signIn") }).click();
  await page.getByRole("heading", { name: t(landing) }).waitFor();
  await check(landing === "console.dashboardTitle" ? "dashboard" : "invitation after sign-in");
}

/** The partner program on its page, staff approving through the internal port as staff would, the agreement signed. */
async function joinProgram(
  page: Page,
  locale: Locale = "en",
  check: (label: string) => Promise<void> = async () => {},
): Promise<void> {
  const t = translator(locale);
  await page.getByRole("link", { name: t("console.programCta") }).click();
  await page.getByRole("heading", { name: t("console.programTitle") }).waitFor();
  await check("program");
  await page.getByLabel(t("console.companyName")).fill(locale === "ar" ? "شركة النخيل" : "Acme Ltd");
  await page.getByLabel(t("console.useCase")).fill(locale === "ar" ? "مزامنة المخزون" : "Keeps stock in sync.");
  await page.getByRole("button", { name: t("console.applyButton") }).click();
  await page.getByText(t("console.programPendingExplain")).waitFor();
  const applications = await staff.listProgramApplications({});
  await staff.decideProgramApplication({
    applicationId: applications.applications.filter((application) => application.state === 1).at(-1)!.applicationId,
    approve: true,
  });
  await page.reload();
  await page.getByRole("button", { name: t("console.agreementSign", { version: 1 }) }).click();
  await page.getByText(t("console.agreementSigned", { version: 1 })).waitFor();
  await check("program signed");
  await page.getByRole("link", { name: t("console.navDashboard") }).click();
  await page.getByRole("heading", { name: t("console.dashboardTitle") }).waitFor();
}

/** An organization from the dashboard; its page's path. */
async function createOrganization(page: Page, name: string, locale: Locale = "en"): Promise<string> {
  const t = translator(locale);
  await page.getByLabel(t("console.organizationName")).fill(name);
  await page.getByRole("button", { name: t("console.createOrganization") }).click();
  await page.getByRole("heading", { name: t("console.organizationTitle", { name }) }).waitFor();
  return new URL(page.url()).pathname;
}

/** An app of `product` from the organization page, opened: its page's path. */
async function createApp(
  page: Page,
  name: string,
  product: "console.productFull" | "console.productAdsr",
  locale: Locale = "en",
  check: (label: string) => Promise<void> = async () => {},
): Promise<string> {
  const t = translator(locale);
  await page.getByLabel(t("console.appName")).fill(name);
  await page.getByRole("radio", { name: t(product) }).check();
  await page.getByRole("button", { name: t("console.createApp") }).click();
  await page.getByRole("heading", { name: t("console.appCreatedTitle") }).waitFor();
  await check("app created");
  await page.getByRole("link", { name: t("console.openApp") }).click();
  await page.getByRole("heading", { name }).waitFor();
  return new URL(page.url()).pathname;
}

/** A sandbox merchant from the organization page: its company id, read from the page's confirmation. */
async function provisionMerchant(page: Page): Promise<number> {
  await page.getByLabel("Country code").fill("GB");
  await page.getByRole("button", { name: "Create a sandbox merchant" }).click();
  await page.getByRole("heading", { name: "Owner login" }).waitFor();
  const text = await page.getByRole("status").filter({ hasText: "is ready" }).innerText();
  return Number(/\(company (\d+)\)/.exec(text)![1]);
}

if (!chromiumAvailable) {
  Flows("the browser flows", () => skipTest(withoutChromium));
} else {
  Flows.before(async () => {
    test = await startTestApp({ clock, redis: Boolean(process.env["TEST_REDIS_URL"]) });
    staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
    await staff.publishAgreementVersion({ title: "LP-2026", url: "https://partner.test/agreement/v1" });
    browser = await launchChromium();
  });

  Flows.after.each(async () => {
    for (const context of opened.splice(0)) await context.close().catch(() => {});
  });

  Flows.after(async () => {
    await browser?.close();
    await test?.stop();
  });

  Flows("a password reset through the mailed link: the new password signs in, the old one is refused", async () => {
    const page = await person();
    const email = emailOf("reset");
    await signUpAndSignIn(page, email);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to the developer console" }).waitFor();

    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
    await assertAccessible(page, "forgot password");
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send a reset link" }).click();
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await page.getByText(`If ${email} has an account, a link is on its way to it.`).waitFor();
    await assertAccessible(page, "reset sent");

    const link = await mailedLink(test, email);
    assert.ok(link.startsWith(`${test.console}/reset-password?token=`), link);
    await page.goto(link);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await assertAccessible(page, "choose a new password");
    const newPassword = "a new and longer pass phrase";
    await page.getByLabel("New password").fill(newPassword);
    await page.getByRole("button", { name: "Save the new password" }).click();
    await page.getByRole("heading", { name: "Password changed" }).waitFor();
    await assertAccessible(page, "password changed");

    // The old password: refused on the page (401, the API's message).
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    const [refused] = await Promise.all([
      page.waitForResponse(
        (response) => response.request().method() === "POST" && new URL(response.url()).pathname === "/sign-in",
      ),
      page.getByRole("button", { name: "Sign in" }).click(),
    ]);
    assert.is(refused.status(), 401);
    // Said once: in the error summary (focused, first in <main>), the page's one alert.
    const refusal = messageFor("developer.sign_in_failed", {}, "en");
    const summary = page.getByRole("alert", { name: "There is a problem" });
    assert.is((await summary.getByRole("listitem").innerText()).trim(), refusal);
    assert.is(await settledFocusId(page, "error-summary"), "error-summary");
    assert.is(await page.getByRole("alert").count(), 1);
    await assertAccessible(page, "old password refused");

    // The new one signs in.
    await page.getByLabel("Password").fill(newPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    assert.is(await page.getByText(email).count(), 1);
  });

  Flows(
    "an invitation accepted by a new person who signs up on the way; a developer sees no invite form and a forged owner-only POST is refused",
    async () => {
      const owner = await person();
      const ownerEmail = emailOf("owner");
      await signUpAndSignIn(owner, ownerEmail);
      const organization = await createOrganization(owner, "Invite test org");
      const invitedEmail = emailOf("invited");
      await owner.getByLabel("Email").fill(invitedEmail);
      await owner.getByLabel("Role").selectOption({ label: "Developer" });
      await owner.getByRole("button", { name: "Send the invitation" }).click();
      await owner.getByText(`An invitation is on its way to ${invitedEmail}.`).waitFor();
      await assertAccessible(owner, "invitation sent");

      // The second person follows the mailed link, signed out and new: sign up first, then the link again.
      const invited = await person();
      const link = await mailedLink(test, invitedEmail);
      assert.ok(link.startsWith(`${test.console}/invitations/accept?token=`), link);
      await invited.goto(link);
      await invited.getByRole("heading", { name: "Invitation to an organization" }).waitFor();
      await assertAccessible(invited, "invitation, signed out");
      await invited.getByRole("link", { name: "Sign up" }).click();
      await invited.getByRole("heading", { name: "Create a developer account" }).waitFor();
      await invited.getByLabel("Email").fill(invitedEmail);
      await invited.getByLabel("Password").fill(password);
      await invited.getByRole("button", { name: "Create account" }).click();
      await invited.getByRole("heading", { name: "Check your email" }).waitFor();
      // The sign-up kept the invitation: verifying and signing in leads back to it, not to the dashboard.
      await verifyAndSignIn(
        invited,
        invitedEmail,
        "en",
        (label) => assertAccessible(invited, `invited: ${label}`),
        "console.invitationTitle",
      );
      assert.is(new URL(invited.url()).pathname, "/invitations/accept");
      await assertAccessible(invited, "invitation, signed in");
      await invited.getByRole("button", { name: "Accept the invitation" }).click();
      await invited.getByRole("heading", { name: "Organization Invite test org" }).waitFor();
      assert.is(new URL(invited.url()).pathname, organization);
      await assertAccessible(invited, "organization as a developer");

      // What a developer sees: the members and their role, the sandbox form (a developer may), no invite form, and
      // where the app form would be, the program's state (this new person has not applied) with its next step.
      const members = invited.getByRole("region", { name: "Members" });
      await members.getByText(ownerEmail).waitFor();
      await members.getByText(invitedEmail).waitFor();
      assert.is(await invited.getByRole("button", { name: "Send the invitation" }).count(), 0);
      assert.is(await invited.getByLabel("Role").count(), 0);
      await invited.getByText("Only owners and admins can invite members.").waitFor();
      assert.is(await invited.getByRole("button", { name: "Create app" }).count(), 0);
      await invited.getByRole("link", { name: "Apply to the partner program" }).first().waitFor();
      assert.is(await invited.getByRole("button", { name: "Create a sandbox merchant" }).count(), 1);
      await owner.reload();
      // Among the members (the pending invitations share the section, and the reload re-sent the invitation form).
      await owner.getByRole("region", { name: "Members" }).locator("li[data-member]").getByText(invitedEmail).waitFor();

      // A forged POST of the owner-only invitation, with the developer's own session and CSRF token: refused by the server.
      const csrf = await invited.locator('input[name="csrf"]').first().inputValue();
      const [forged] = await Promise.all([
        invited.waitForResponse(
          (response) =>
            response.request().method() === "POST" &&
            new URL(response.url()).pathname === `${organization}/invitations`,
        ),
        invited.evaluate(
          `(() => { const form = document.createElement("form"); form.method = "post"; form.action = ${JSON.stringify(`${organization}/invitations`)};
          for (const [name, value] of Object.entries(${JSON.stringify({ csrf, email: emailOf("forged"), role: "ADMIN" })})) {
            const input = document.createElement("input"); input.type = "hidden"; input.name = name; input.value = value; form.append(input); }
          document.body.append(form); form.submit(); })()`,
        ),
      ]);
      assert.is(forged.status(), 403);
      await invited
        .getByRole("alert", { name: "There is a problem" })
        .filter({ hasText: messageFor("developer.insufficient_org_role", {}, "en") })
        .waitFor();
      assert.is(await invited.getByRole("button", { name: "Send the invitation" }).count(), 0);
      await assertAccessible(invited, "forged invitation refused");
    },
  );

  Flows(
    "an ADSR app's API key: created on its page and shown once, 200 from the API with X-API-Key, revoked on the page, then 401 partner.api_key_invalid",
    async () => {
      const page = await person();
      await signUpAndSignIn(page, emailOf("adsr"));
      await joinProgram(page);
      await createOrganization(page, "Reports org");
      const companyId = await provisionMerchant(page);
      const appPath = await createApp(page, "Daily sales reader", "console.productAdsr");
      await assertAccessible(page, "ADSR app");
      // The keys are a section of the app's page, reached by its menu.
      await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "API keys" }).click();
      await page.waitForURL(`${test.console}${appPath}/api-keys`);
      await assertAccessible(page, "ADSR app, API keys");
      const keys = page.getByRole("region", { name: "API keys" });
      await keys.getByText("No API keys yet.").waitFor();
      await keys.getByLabel("Key name").fill("reporting server");
      await keys.getByLabel("Environment").selectOption("SANDBOX");
      await keys.getByRole("button", { name: "Create API key" }).click();
      await page.getByRole("heading", { name: "New API key" }).waitFor();
      await assertAccessible(page, "API key created");
      const apiKey = (await page.locator("#api-key").textContent())!;
      assert.match(apiKey, /^lp_ak_sb_/);
      // Shown once: the app's API keys, opened again, list the key by name only.
      await page.goto(`${test.console}${appPath}/api-keys`);
      await page
        .getByRole("region", { name: "API keys" })
        .getByRole("button", { name: "Revoke: reporting server" })
        .waitFor();
      assert.is(await page.locator("#api-key").count(), 0);
      assert.not.match(await page.content(), apiKey);

      const day = (offset: number) => new Date(clock.now() - offset * 86_400_000).toISOString().slice(0, 10);
      const path = "/v1/reports/daily-sales";
      const call = () =>
        fetch(`${test.base}${path}?companyId=${companyId}&from=${day(6)}&to=${day(0)}`, {
          headers: { "x-api-key": apiKey },
        });
      const answered = await call();
      assert.is(answered.status, 200, await answered.clone().text());

      // Asked first, the consequence said, the focus on the question; then revoked and told so.
      await page.getByRole("button", { name: "Revoke: reporting server" }).click();
      await page.getByRole("heading", { name: "What revoking it does" }).waitFor();
      assert.is(await settledFocusId(page, "confirm-heading"), "confirm-heading");
      await assertAccessible(page, "API key revoke question");
      await page.getByRole("button", { name: "Yes, revoke: reporting server" }).click();
      await page
        .getByText("The API key \u2068reporting server\u2069 was revoked: calls with it are refused.")
        .waitFor();
      await page.getByRole("region", { name: "API keys" }).getByText("Revoked").waitFor();
      await assertAccessible(page, "API key revoked");
      // Verification results are cached for a bounded time (docs/decisions.md): past it, the key is refused.
      clock.advance(Math.max(test.config.caches.gatewaySeconds, test.config.caches.credentialSeconds) * 1000);
      const refused = await call();
      assert.is(refused.status, 401);
      assert.equal(await refused.json(), {
        status: "error",
        statusCode: 401,
        timestamp: new Date(clock.now()).toISOString(),
        path,
        message: messageFor("partner.api_key_invalid"),
        code: "partner.api_key_invalid",
        params: {},
        correlationId: refused.headers.get("x-correlation-id"),
      });
    },
  );

  Flows(
    "the journey in Arabic from the browser's Accept-Language: sign-up to the app, every page rtl, no English left, accessible",
    async () => {
      const page = await person({ acceptLanguage: "ar-SA" });
      const t = translator("ar");
      const visited: string[] = [];
      const check = async (label: string) => {
        visited.push(label);
        await assertInLanguage(page, "ar", "console", label);
        await assertAccessible(page, `${label} (ar)`);
      };
      await signUpAndSignIn(page, emailOf("arabic"), "ar", check);
      await joinProgram(page, "ar", check);
      const organization = await createOrganization(page, "مؤسسة النخيل", "ar");
      await check("organization");
      await createApp(page, "مزامنة المخزون", "console.productFull", "ar", check);
      await check("app");
      await page
        .getByRole("link", { name: t("console.firstCallTitle") })
        .first()
        .click();
      await page.getByRole("heading", { name: t("console.firstCallTitle"), level: 1 }).waitFor();
      await check("first call");
      await page.goto(`${test.console}${organization}`);
      await check("organization again");
      assert.equal(visited, [
        "sign-up",
        "check your email",
        "verified",
        "sign-in",
        "dashboard",
        "program",
        "program signed",
        "organization",
        "app created",
        "app",
        "first call",
        "organization again",
      ]);
    },
  );

  Flows(
    "the main pages in Hindi pass axe; dark-mode screenshots of every main page at 375 and 1280 in en, ar and hi",
    async () => {
      const page = await person();
      await signUpAndSignIn(page, emailOf("dark"));
      await joinProgram(page);
      const organization = await createOrganization(page, "Dark org");
      await provisionMerchant(page);
      const app = await createApp(page, "Night sync", "console.productFull");
      const main = [
        ["dashboard", "/"],
        ["program", "/program"],
        ["organization", organization],
        ["app", app],
        ["first-call", `${app}/first-call`],
      ] as const;
      for (const [name, path] of main) {
        await page.goto(`${test.console}${path}?lang=hi`);
        await assertInLanguage(page, "hi", "console", `${name} (hi)`);
        await assertAccessible(page, `${name} (hi)`);
      }

      // The same session in a dark context (prefers-color-scheme: dark), and a signed-out one for the account pages.
      const dark = await person({ colorScheme: "dark" });
      await dark.context().addCookies(await page.context().cookies());
      const signedOut = await person({ colorScheme: "dark" });
      for (const locale of supportedLocales) {
        for (const [name, path] of [
          ["sign-in", "/sign-in"],
          ["sign-up", "/sign-up"],
        ] as const) {
          await signedOut.goto(`${test.console}${path}?lang=${locale}`);
          await assertInLanguage(signedOut, locale, "console", `${name} (${locale}, dark)`);
          await assertAccessible(signedOut, `${name} (${locale}, dark)`);
          await screenshots(signedOut, "console/dark", `${name}-${locale}`);
        }
        for (const [name, path] of main) {
          await dark.goto(`${test.console}${path}?lang=${locale}`);
          assert.is(await dark.evaluate("matchMedia('(prefers-color-scheme: dark)').matches"), true);
          await assertInLanguage(dark, locale, "console", `${name} (${locale}, dark)`);
          await assertAccessible(dark, `${name} (${locale}, dark)`);
          await screenshots(dark, "console/dark", `${name}-${locale}`);
        }
      }
    },
  );
}

Flows.run();
