// The console's refused forms over plain HTTP: the error summary first in <main> (role=alert, focused on load by
// autofocus, one link per field to its control, the field named by its label in the page's language, an index said
// as a line), the error still beside the field, and what was typed given back (never a password); the program's
// state instead of the app form before approval (each state with its next step, the agreement's document linked),
// and a forced POST answered with that state and the typed name kept; the "we sent you a link" pages saying where a
// local run's mail is (the log), and saying nothing of it with a real mail transport.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { Mail } from "../../src/console/mail.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator } from "../../src/web/i18n.js";
import { apiFieldPath } from "../../src/console-site/error-summary.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  shownValue,
  signedUpDeveloper,
  strongPassword,
  textOf,
  type SiteBrowser,
} from "../support/console-site.js";

const Forms = suite("console-site/form-errors");
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let serial = 0;
const en = translator("en");
const ar = translator("ar");
const newEmail = (who: string) => `${who}.${process.pid}.${Date.now()}.${++serial}@partner.test`;
const agreementUrl = "https://partner.test/agreement/v3";

Forms.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1" } });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Partner terms", url: agreementUrl });
});
Forms.after(async () => {
  await test.stop();
});

/** The summary's opening, first in <main> (before the heading). */
const summaryOpening = (locale: "en" | "ar", narrow = false) =>
  `<main id="main" class="site-main${narrow ? " narrow" : ""}" tabindex="-1">\n<div class="error-summary" id="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" autofocus>\n<h2 id="error-summary-title">${translator(locale)("console.errorSummaryTitle")}</h2>`;

/** The summary's links, as [href, text]. */
function summaryLinks(html: string): string[][] {
  const summary = /<div class="error-summary"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
  return [...summary.matchAll(/<a href="([^"]+)">([^<]*)<\/a>/g)].map((match) => [match[1]!, match[2]!]);
}

async function organizationOf(browser: SiteBrowser): Promise<number> {
  const made = await browser.post("/organizations", { name: `Forms org ${serial}` }, await browser.get("/"));
  assert.is(made.status, 303, made.html);
  return Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
}

Forms("API field paths read as their JSON names and indexes, from either spelling", () => {
  assert.equal(apiFieldPath("storeIds.0"), { name: "storeIds", index: 0 });
  assert.equal(apiFieldPath("allowed_ips[1]"), { name: "allowedIps", index: 1 });
  assert.equal(apiFieldPath("redirect_uris[12]"), { name: "redirectUris", index: 12 });
  assert.equal(apiFieldPath("email"), { name: "email" });
});

Forms(
  "a refused sign-up: the summary first in <main>, focused, a link to each field by its label; the email kept, never the password",
  async () => {
    const browser = createSiteBrowser(test, "ar");
    const form = await browser.get("/sign-up");
    assert.not.match(form.html, "error-summary", "no summary before a refusal");
    const badEmail = await browser.post("/sign-up", { email: "not-an-email", password: strongPassword }, form);
    assert.is(badEmail.status, 400);
    assert.match(badEmail.html, summaryOpening("ar", true));
    assert.match(
      badEmail.html,
      `<title>${ar("common.errorTitle", { title: ar("console.signUpTitle") })} · ${ar("common.brand")}</title>`,
    );
    const said = ar("console.fieldInvalid", { field: ar("console.email") });
    assert.equal(summaryLinks(badEmail.html), [["#field-email", said]]);
    assert.match(badEmail.html, `<p class="field-error" id="field-email-error">${said}</p>`);
    assert.match(badEmail.html, '<input id="field-email" name="email" type="email" value="not-an-email"');
    assert.match(
      badEmail.html,
      '<input id="field-password" name="password" type="password" autocomplete="new-password"',
    );
    assert.not.match(badEmail.html, strongPassword);

    const weak = await browser.post("/sign-up", { email: newEmail("weak"), password: "short" }, form);
    assert.is(weak.status, 400);
    assert.equal(summaryLinks(weak.html), [
      [
        "#field-password",
        ar("console.problemAt", { field: ar("console.password"), message: ar("console.passwordTooWeak") }),
      ],
    ]);
    assert.match(weak.html, `<p class="field-error" id="field-password-error">${ar("console.passwordTooWeak")}</p>`);
    assert.not.match(weak.html, 'value="short"');

    // A refusal of the form as a whole (a wrong password) is said in the summary as text, without a link.
    const signIn = await browser.get("/sign-in");
    const email = newEmail("nobody");
    const wrong = await browser.post("/sign-in", { email, password: strongPassword }, signIn);
    assert.is(wrong.status, 401);
    assert.match(
      wrong.html,
      `${summaryOpening("ar", true)}\n<ul><li>${messageFor("developer.sign_in_failed", {}, "ar")}</li></ul></div>`,
    );
    assert.match(wrong.html, `value="${email}"`);
  },
);

Forms(
  "an index into a list is said in words: the allowlist's and the redirect URIs' line, never allowed_ips[1] or redirect_uris[1]",
  async () => {
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, newEmail("lists"));
    await admittedDeveloper(browser, staff);
    const organizationId = await organizationOf(browser);
    const created = await browser.post(
      `/organizations/${organizationId}/apps`,
      { name: "Stock sync", product: "FULL" },
      await browser.get(`/organizations/${organizationId}`),
    );
    assert.is(created.status, 200, created.html);
    const appId = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
    const clientId = shownValue(created.html, "client-id");
    // The credentials view holds the client id's allowlist; the settings view the rename.
    const appPage = await browser.get(`/apps/${appId}/credentials`);

    const typedList = "203.0.113.7\n10.0.0.1/8";
    const list = await browser.post(
      `/apps/${appId}/allowed-ips`,
      { client_id: clientId, allowedIps: typedList },
      appPage,
    );
    assert.is(list.status, 400);
    const listLabel = en("console.allowlistOf", { name: `${en("console.sandbox")} ${clientId}` });
    const listSaid = messageFor(
      "developer.ip_allowlist_invalid",
      { field: en("console.fieldLine", { label: listLabel, line: 2 }), value: "10.0.0.1/8" },
      "en",
    );
    assert.equal(textOf(summaryLinks(list.html)[0]![1]!), listSaid);
    assert.is(summaryLinks(list.html)[0]![0], `#allowlist-${clientId}`);
    assert.match(textOf(list.html), `${en("console.errorSummaryTitle")} ${listSaid}`);
    assert.match(list.html, `id="allowlist-${clientId}-error">`);
    assert.match(list.html, `>${typedList}</textarea>`);
    assert.not.match(list.html, "allowed_ips[");
    // The <title> says "Error:" and still names the section it is on.
    assert.match(
      list.html,
      `<title>${en("common.errorTitle", { title: `${en("console.credentialsHeading")} · Stock sync` })} · ${en("common.brand")}</title>`,
    );

    // A name the API refuses: the settings view's summary links to its field, which keeps what was typed.
    const longName = "n".repeat(300);
    const renamed = await browser.post(`/apps/${appId}/rename`, { name: longName }, appPage);
    assert.is(renamed.status, 400, renamed.html);
    const nameSaid = en("console.fieldInvalid", { field: en("console.appName") });
    assert.equal(summaryLinks(renamed.html), [["#field-name", nameSaid]]);
    assert.match(renamed.html, `<p class="field-error" id="field-name-error">${nameSaid}</p>`);
    assert.match(renamed.html, `name="name" type="text" value="${longName}"`);
    assert.match(renamed.html, `<a href="/apps/${appId}/settings" aria-current="page">`);

    const typedUris = "https://app.example/cb\nhttp://app.example/cb";
    const uris = await browser.post(`/apps/${appId}/redirect-uris`, { redirectUris: typedUris }, appPage);
    assert.is(uris.status, 400);
    const [[href, text]] = summaryLinks(uris.html) as [[string, string]];
    assert.is(href, "#field-redirectUris");
    assert.match(
      textOf(text),
      `The redirect URI in ${en("console.fieldLine", { label: en("console.redirectUris"), line: 2 })} is not allowed`,
    );
    assert.match(uris.html, 'id="field-redirectUris-error"');
    assert.match(uris.html, `>${typedUris}</textarea>`);
    assert.not.match(uris.html, "redirect_uris[");

    // The first call without its secret: said beside the secret field and linked; a secret is never given back.
    // The organization has no sandbox merchant yet: the page's first step makes one (issue 42), then the run.
    const merchantFirst = await browser.get(`/apps/${appId}/first-call`);
    const made = await browser.post(
      `/apps/${appId}/first-call/sandbox-merchant`,
      { name: "Form cafe", country: "GB" },
      merchantFirst,
    );
    assert.is(made.status, 200);
    const firstCall = await browser.get(`/apps/${appId}/first-call`);
    const noSecret = await browser.post(`/apps/${appId}/first-call`, { client_secret: "" }, firstCall);
    const missing = en("console.firstCallSecretMissing");
    assert.equal(summaryLinks(noSecret.html), [
      ["#field-client_secret", en("console.problemAt", { field: en("console.clientSecret"), message: missing })],
    ]);
    assert.match(noSecret.html, `<p class="field-error" id="field-client_secret-error">${missing}</p>`);
    const wrongSecret = await browser.post(`/apps/${appId}/first-call`, { client_secret: "lp_sk_sb_wrong" }, firstCall);
    assert.is(wrongSecret.status, 200);
    assert.not.match(wrongSecret.html, "lp_sk_sb_wrong");
  },
);

Forms("the program form keeps what was typed; the NDA note links the agreement's document", async () => {
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, newEmail("apply"));
  const program = await browser.get("/program");
  assert.match(
    program.html,
    `${en("console.ndaNote")} <a href="${agreementUrl}">${en("console.agreementReadNamed", { title: "Partner terms", version: 1 })}</a>`,
  );
  const refused = await browser.post(
    "/program/apply",
    { companyName: "", website: "https://acme.test", useCase: "stock sync" },
    program,
  );
  assert.is(refused.status, 400);
  assert.equal(summaryLinks(refused.html), [
    ["#field-companyName", en("console.fieldInvalid", { field: en("console.companyName") })],
  ]);
  assert.match(refused.html, 'name="website" type="url" value="https://acme.test"');
  assert.match(refused.html, ">stock sync</textarea>");
});

Forms(
  "before approval the organization page says the program's state and the next step instead of the app form; a forced POST keeps the name",
  async () => {
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, newEmail("gate"));
    const organizationId = await organizationOf(browser);
    const appForm = `action="/organizations/${organizationId}/apps"`;
    const gate = '<div class="alert info" id="program-state" role="status">';

    const none = await browser.get(`/organizations/${organizationId}`);
    assert.match(
      none.html,
      `${gate}<p>${en("console.gateNone")}</p><p class="actions"><a class="button" href="/program">${en("console.gateNoneNext")}</a></p></div>`,
    );
    assert.not.match(none.html, appForm);

    // A POST from an older page: the state, the API's refusal in the summary, the typed name and product kept.
    const forced = await browser.post(
      `/organizations/${organizationId}/apps`,
      { name: "Too early", product: "ONLINE_ORDER" },
      none,
    );
    assert.is(forced.status, 403);
    assert.match(forced.html, `<ul><li>${messageFor("developer.nda_required", {}, "en")}</li></ul></div>`);
    assert.match(forced.html, `${gate}<p>${en("console.gateNone")}</p>`);
    assert.match(forced.html, '<input id="field-name" name="name" type="text" value="Too early" required>');
    assert.match(forced.html, 'id="product-2" name="product" value="ONLINE_ORDER" required checked');
    assert.not.match(forced.html, 'value="FULL" required checked');

    const program = await browser.get("/program");
    await browser.post("/program/apply", { companyName: "Gate Ltd", website: "", useCase: "" }, program);
    const pending = await browser.get(`/organizations/${organizationId}`);
    assert.match(
      pending.html,
      `${gate}<p>${en("console.gatePending")}</p><p class="actions"><a href="/program">${en("console.gatePendingNext")}</a></p></div>`,
    );

    const mine = (await staff.listProgramApplications({})).applications
      .filter((application) => application.companyName === "Gate Ltd" && application.state === 1)
      .at(-1)!;
    await staff.decideProgramApplication({ applicationId: mine.applicationId, approve: false });
    const declined = await browser.get(`/organizations/${organizationId}`);
    assert.match(
      declined.html,
      `${gate}<p>${en("console.gateDeclined")}</p><p class="actions"><a class="button" href="/program">${en("console.gateDeclinedNext")}</a></p></div>`,
    );

    await browser.post(
      "/program/apply",
      { companyName: "Gate Ltd", website: "", useCase: "" },
      await browser.get("/program"),
    );
    const again = (await staff.listProgramApplications({})).applications
      .filter((application) => application.companyName === "Gate Ltd" && application.state === 1)
      .at(-1)!;
    await staff.decideProgramApplication({ applicationId: again.applicationId, approve: true });
    const unsigned = await browser.get(`/organizations/${organizationId}`);
    assert.match(
      unsigned.html,
      `${gate}<p>${en("console.gateSign", { version: 1 })}</p><p class="actions"><a href="${agreementUrl}">${en("console.agreementReadNamed", { title: "Partner terms", version: 1 })}</a> <a class="button" href="/program#agreement-heading">${en("console.gateSignNext")}</a></p></div>`,
    );
    assert.not.match(unsigned.html, appForm);

    const signPage = await browser.get("/program");
    assert.is((await browser.post("/program/sign", { version: "1" }, signPage)).status, 303);
    const ready = await browser.get(`/organizations/${organizationId}`);
    assert.not.match(ready.html, 'id="program-state"');
    assert.match(ready.html, appForm);
  },
);

Forms(
  "the pages that say a link was mailed say where a local run's mail is: the log's `console mail` line",
  async () => {
    const browser = createSiteBrowser(test);
    const email = newEmail("mailed");
    const signedUp = await browser.post("/sign-up", { email, password: strongPassword }, await browser.get("/sign-up"));
    assert.is(signedUp.status, 200);
    const hint = `${en("console.mailInLogText")} ${en("console.mailInLogWhere")}`;
    assert.match(textOf(signedUp.html), hint);
    const reset = await browser.post("/forgot-password", { email }, await browser.get("/forgot-password"));
    assert.is(reset.status, 200);
    assert.match(textOf(reset.html), hint);
    const resend = await browser.post("/resend-verification", { email }, await browser.get("/resend-verification"));
    assert.is(resend.status, 200);
    assert.match(textOf(resend.html), hint);
    // What the hint says is where the link is: the log line `console mail` with `to` and `link`.
    // The outbox composes mails side by side (src/console/mail-outbox.ts), so the verification's line may come after
    // the reset's: look among all the lines to this address.
    await test.app.mail.idle();
    const links = test.logs
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .filter((entry) => entry["msg"] === "console mail" && entry["to"] === email)
      .map((entry) => String(entry["link"]));
    assert.ok(
      links.some((link) => link.startsWith(`${test.console}/verify-email?token=`)),
      `a verification link among ${JSON.stringify(links)}`,
    );

    const owner = createSiteBrowser(test);
    await signedUpDeveloper(test, owner, newEmail("inviter"));
    const organizationId = await organizationOf(owner);
    const guest = newEmail("guest");
    const invited = await owner.post(
      `/organizations/${organizationId}/invitations`,
      { email: guest, role: "VIEWER" },
      await owner.get(`/organizations/${organizationId}`),
    );
    assert.is(invited.status, 200);
    assert.match(textOf(invited.html), `${en("console.invitationSent", { email: guest })} ${hint}`);
  },
);

Forms("with a real mail transport the pages say nothing of the log", async () => {
  const sent: Mail[] = [];
  const smtp = await startTestApp({
    clock,
    redis: false,
    env: { TRUST_PROXY: "127.0.0.1", MAIL_TRANSPORT: "smtp://127.0.0.1:2525" },
    mailTransport: { send: async (mail) => void sent.push(mail) },
  });
  try {
    const browser = createSiteBrowser(smtp);
    const email = newEmail("smtp");
    const signedUp = await browser.post("/sign-up", { email, password: strongPassword }, await browser.get("/sign-up"));
    assert.is(signedUp.status, 200);
    assert.match(signedUp.html, en("console.checkMailText", { email }));
    assert.not.match(textOf(signedUp.html), en("console.mailInLogWhere"));
    assert.not.match(signedUp.html, "MAIL_TRANSPORT");
  } finally {
    await smtp.stop();
  }
});

Forms.run();
