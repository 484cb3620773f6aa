// The console site over plain HTTP against the real app: sign-up, the mailed verification link, sign-in and the
// session cookie, the program, an organization, a FULL app (secret shown once), a sandbox merchant (owner login
// shown once, the limit of three), the first call to a 200, secret rotation with its overlap, the password reset
// by its mailed link; API errors beside their field in the page's language; CSRF and Origin checks; the assets.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { stylesheetPath } from "../../src/web/assets.js";
import { momentText, translator } from "../../src/web/i18n.js";
import { mailedLink, mailsTo } from "../support/console.js";
import { grpcTransport } from "../support/internal.js";
import { hiddenValue, startTestApp, type TestApp } from "../support/test-app.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  shownValue,
  signedUpDeveloper,
  strongPassword,
  textOf,
  type SiteBrowser,
} from "../support/console-site.js";
import { reviewLinks } from "../support/app-links.js";

const Site = suite("console-site/pages");
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let serial = 0;
const en = translator("en");
const ar = translator("ar");
const newEmail = (who = "dev") => `${who}.${process.pid}.${Date.now()}.${++serial}@partner.test`;

Site.before(async () => {
  test = await startTestApp({
    clock,
    redis: Boolean(process.env["TEST_REDIS_URL"]),
    env: { TRUST_PROXY: "127.0.0.1" },
  });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
});
Site.after(async () => {
  await test.stop();
});

async function organizationOf(browser: SiteBrowser): Promise<number> {
  const dashboard = await browser.get("/");
  const made = await browser.post("/organizations", { name: `Org ${serial}` }, dashboard);
  assert.is(made.status, 303, made.html);
  return Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
}

Site(
  "every page: its language, the hashed stylesheet, a CSP without inline script, no framing, no caching",
  async () => {
    const page = await createSiteBrowser(test).get("/sign-up");
    assert.is(page.status, 200);
    assert.is(
      page.headers.get("content-security-policy"),
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    assert.is(page.headers.get("x-frame-options"), "DENY");
    assert.is(page.headers.get("cache-control"), "no-store");
    assert.match(page.html, '<html lang="en" dir="ltr">');
    assert.match(page.html, `<link rel="stylesheet" href="${stylesheetPath}">`);
    assert.match(page.html, `<h1>${en("console.signUpTitle")}</h1>`);
    assert.match(page.html, '<label for="field-email">Email</label>');
    const css = await fetch(test.console + stylesheetPath);
    assert.is(css.status, 200);
    assert.is(css.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.is(css.headers.get("content-type"), "text/css; charset=utf-8");
    const etag = css.headers.get("etag")!;
    assert.is((await fetch(test.console + stylesheetPath, { headers: { "if-none-match": etag } })).status, 304);
    const arabic = await createSiteBrowser(test, "ar-AE,ar;q=0.9").get("/sign-in");
    assert.match(arabic.html, '<html lang="ar" dir="rtl">');
    assert.match(arabic.html, `<h1>${ar("console.signInTitle")}</h1>`);
    const switched = await createSiteBrowser(test, "ar").get("/sign-in?lang=hi");
    assert.match(switched.html, '<html lang="hi" dir="ltr">');
    assert.ok(
      switched.setCookie.includes("lp_lang=hi; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000"),
      switched.setCookie.join("\n"),
    );
    assert.is((await createSiteBrowser(test).get("/nowhere")).status, 404);
    assert.is((await createSiteBrowser(test).get("/organizations")).status, 303);
  },
);

Site(
  "a public page or a probe asked with another method: 405 naming its methods; HEAD is GET without the body",
  async () => {
    for (const [method, path, allow] of [
      ["PUT", "/sign-in", "GET, HEAD, POST"],
      ["PATCH", "/verify-email", "GET, HEAD"],
      ["GET", "/sign-out", "POST"],
      ["PUT", "/healthz", "GET, HEAD"],
      ["DELETE", "/readyz", "GET, HEAD"],
    ] as const) {
      const refused = await fetch(test.console + path, { method, headers: { "accept-language": "ar" } });
      assert.is(refused.status, 405, `${method} ${path}`);
      assert.is(refused.headers.get("allow"), allow, `${method} ${path}`);
      assert.match(await refused.text(), `<h1>${ar("common.methodNotAllowedTitle")}</h1>`);
    }
    for (const path of ["/sign-in", "/healthz", "/readyz", "/organizations", "/nowhere"]) {
      const get = await fetch(test.console + path, { redirect: "manual" });
      const body = await get.text();
      const head = await fetch(test.console + path, { method: "HEAD", redirect: "manual" });
      assert.is(head.status, get.status, path);
      for (const name of ["content-type", "content-language", "content-length", "location", "cache-control"])
        assert.is(head.headers.get(name), get.headers.get(name), `${path} ${name}`);
      assert.is(get.headers.get("content-length"), String(Buffer.byteLength(body)), path);
      assert.is(await head.text(), "", path);
    }
  },
);

Site("a POST without the page's CSRF token, or from another origin, is refused and changes nothing", async () => {
  const browser = createSiteBrowser(test);
  await browser.get("/sign-up");
  const email = newEmail("csrf");
  const forged = await browser.post("/sign-up", { email, password: strongPassword, csrf: "x".repeat(43) });
  assert.is(forged.status, 403);
  assert.match(forged.html, en("common.formExpired"));
  const page = await browser.get("/sign-up");
  const crossSite = await fetch(test.console + "/sign-up", {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: "https://evil.example",
      cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
    },
    body: new URLSearchParams({ email, password: strongPassword, csrf: hiddenValue(page.html, "csrf") }),
  });
  assert.is(crossSite.status, 403);
  await test.app.mail.idle();
  assert.not.ok(
    test.logs.some((line) => line.includes(email)),
    "no mail was sent",
  );
});

Site("API errors are shown beside their field, in the page's language, with the rules that bite", async () => {
  const browser = createSiteBrowser(test, "ar");
  const form = await browser.get("/sign-up");
  const weak = await browser.post("/sign-up", { email: newEmail("weak"), password: "short" }, form);
  assert.is(weak.status, 400);
  assert.match(weak.html, `<p class="field-error" id="field-password-error">${ar("console.passwordTooWeak")}</p>`);
  assert.match(weak.html, 'aria-invalid="true" aria-describedby="field-password-hint field-password-error"');
  assert.match(weak.html, ar("console.passwordRules"));
  const badEmail = await browser.post("/sign-up", { email: "not-an-email", password: strongPassword }, form);
  assert.is(badEmail.status, 400);
  assert.match(
    badEmail.html,
    `id="field-email-error">${ar("console.fieldInvalid", { field: ar("console.email") })}</p>`,
  );
  const signIn = await browser.get("/sign-in");
  const wrong = await browser.post("/sign-in", { email: newEmail("nobody"), password: strongPassword }, signIn);
  assert.is(wrong.status, 401);
  assert.match(wrong.html, messageFor("developer.sign_in_failed", {}, "ar"));
  assert.match(wrong.html, ar("console.lockoutRule", { attempts: 5, minutes: 15 }));
});

Site(
  "a new partner: sign-up, mailed link, sign-in, program, organization, FULL app, sandbox merchant, first call 200",
  async () => {
    const browser = createSiteBrowser(test);
    const email = newEmail("journey");
    await signedUpDeveloper(test, browser, email);
    const session = [...browser.cookies.keys()].find((name) => name === "lp_console_session");
    assert.ok(session, "the session cookie is set");
    const dashboard = await browser.get("/");
    assert.is(dashboard.status, 200);
    assert.match(dashboard.html, email);
    assert.match(dashboard.html, en("console.programNone"));
    // Before the program, creating an app is refused with the API's own message.
    const organizationId = await organizationOf(browser);
    const early = await browser.post(
      `/organizations/${organizationId}/apps`,
      { name: "Too early", product: "FULL" },
      await browser.get(`/organizations/${organizationId}`),
    );
    assert.is(early.status, 403);
    assert.match(early.html, messageFor("developer.nda_required", {}, "en"));

    await admittedDeveloper(browser, staff);
    const program = await browser.get("/program");
    assert.match(program.html, en("console.programApproved"));
    assert.match(program.html, en("console.agreementSigned", { version: 1 }));

    const orgPage = await browser.get(`/organizations/${organizationId}`);
    assert.match(orgPage.html, en("console.productOnce"));
    const created = await browser.post(
      `/organizations/${organizationId}/apps`,
      { name: "Stock sync", product: "FULL", ...reviewLinks },
      orgPage,
    );
    assert.is(created.status, 200, created.html);
    assert.is(created.headers.get("cache-control"), "no-store");
    const clientId = shownValue(created.html, "client-id");
    const secret = shownValue(created.html, "client-secret");
    assert.match(clientId, /^lp_app_sb/);
    assert.match(secret, /^lp_sk_sb_/);
    assert.match(created.html, 'data-copy-target="client-secret"');
    assert.match(created.html, /<script src="\/assets\/copy\.[0-9a-f]{16}\.js" defer><\/script>/);
    const appId = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
    // Shown once: the app's credentials list the client id, and no view of the app shows the secret.
    const appPage = await browser.get(`/apps/${appId}/credentials`);
    assert.match(appPage.html, clientId);
    assert.not.match(appPage.html, secret);
    const overview = await browser.get(`/apps/${appId}`);
    assert.not.match(overview.html, secret);
    assert.match(overview.html, en("console.appStateDraft"));

    const withMerchant = await browser.post(
      `/organizations/${organizationId}/sandbox-merchants`,
      { name: "Corner shop", country: "gb" },
      orgPage,
    );
    assert.is(withMerchant.status, 200, withMerchant.html);
    assert.match(shownValue(withMerchant.html, "owner-email"), /@/);
    assert.ok(shownValue(withMerchant.html, "owner-password").length >= 12);
    assert.match(withMerchant.html, en("console.sandboxLimitRule", { limit: 3, active: 1 }));

    const firstCall = await browser.get(`/apps/${appId}/first-call`);
    assert.is(firstCall.status, 200);
    const commands = textOf(firstCall.html);
    assert.match(commands, `curl -X POST '${test.config.urls.base}v1/token'`);
    assert.match(commands, `"client_id":"${clientId}","client_secret":"<CLIENT_SECRET>"`);
    assert.match(
      commands,
      `curl '${test.config.urls.base}v1/items?limit=5' \\ -H 'Authorization: Bearer <ACCESS_TOKEN>'`,
    );
    assert.not.match(firstCall.html, secret);
    const ran = await browser.post(
      `/apps/${appId}/first-call`,
      { client_secret: secret, merchant_id: hiddenSelected(firstCall.html) },
      firstCall,
    );
    assert.is(ran.status, 200);
    assert.equal(
      [...ran.html.matchAll(/data-testid="status">(\d+)</g)].map((m) => m[1]),
      ["200", "200"],
    );
    assert.match(ran.html, "&quot;items&quot;");
    assert.not.match(ran.html, secret);

    // Rotation: a new secret once, and the previous one's 24-hour overlap said.
    const rotated = await browser.post(`/apps/${appId}/rotate`, { client_id: clientId, confirm: "yes" }, appPage);
    assert.is(rotated.status, 200, rotated.html);
    const newSecret = shownValue(rotated.html, "client-secret");
    assert.ok(newSecret !== secret && newSecret.startsWith("lp_sk_sb_"));
    const until = momentText("en", clock.now() + 24 * 3_600_000);
    assert.match(rotated.html, en("console.rotationOverlap", { until, hours: 24 }));

    // Redirect URIs: the spec's rules on error, beside the field.
    const badUri = await browser.post(
      `/apps/${appId}/redirect-uris`,
      { redirectUris: "http://app.example/cb" },
      appPage,
    );
    assert.is(badUri.status, 400);
    assert.match(badUri.html, 'id="field-redirectUris-error"');
    assert.match(badUri.html, en("console.redirectRules"));
    const goodUri = await browser.post(
      `/apps/${appId}/redirect-uris`,
      { redirectUris: "https://app.example/cb\nhttp://localhost:3000/cb" },
      appPage,
    );
    assert.is(goodUri.status, 200);
    assert.match(goodUri.html, "https://app.example/cb\nhttp://localhost:3000/cb</textarea>");

    const submitted = await browser.post(`/apps/${appId}/submit`, {}, appPage);
    assert.is(submitted.status, 303);
    assert.is(submitted.location, `/apps/${appId}/review`);
    assert.match((await browser.get(`/apps/${appId}`)).html, en("console.appStateInReview"));

    const signedOut = await browser.post("/sign-out", {}, appPage);
    assert.is(signedOut.status, 303);
    assert.is(signedOut.location, "/sign-in");
    assert.is((await browser.get("/")).status, 303);
  },
);

Site("the session cookie: HttpOnly, SameSite=Lax, a random id; the tokens stay on the server", async () => {
  const browser = createSiteBrowser(test);
  const email = newEmail("cookie");
  const form = await browser.get("/sign-up");
  await browser.post("/sign-up", { email, password: strongPassword }, form);
  await browser.get(new URL(await mailedLink(test, email)).pathname + new URL(await mailedLink(test, email)).search);
  const signIn = await browser.get("/sign-in");
  const signedIn = await browser.post("/sign-in", { email, password: strongPassword }, signIn);
  assert.is(signedIn.status, 303);
  const line = signedIn.setCookie.find((candidate) => candidate.startsWith("lp_console_session="))!;
  assert.match(line, /^lp_console_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
  assert.not.match(line, /eyJ/);
});

Site("a password reset through the mailed link: the new password signs in, the old one no longer", async () => {
  const browser = createSiteBrowser(test);
  const email = newEmail("reset");
  await signedUpDeveloper(test, browser, email);
  const other = createSiteBrowser(test, "hi");
  const forgot = await other.get("/forgot-password");
  const sent = await other.post("/forgot-password", { email }, forgot);
  assert.is(sent.status, 200);
  assert.match(sent.html, translator("hi")("console.resetSentText", { email }));
  const link = await mailedLink(test, email);
  assert.ok(link.startsWith(`${test.console}/reset-password?token=`), link);
  const resetPage = await other.get(link.slice(test.console.length));
  assert.is(resetPage.status, 200);
  const weak = await other.post(
    "/reset-password",
    { token: hiddenValue(resetPage.html, "token"), newPassword: "short" },
    resetPage,
  );
  assert.is(weak.status, 400);
  assert.match(weak.html, translator("hi")("console.passwordTooWeak"));
  const done = await other.post(
    "/reset-password",
    { token: hiddenValue(resetPage.html, "token"), newPassword: "another long passphrase" },
    resetPage,
  );
  assert.is(done.status, 200, done.html);
  // Every session ended: the first browser's next page asks to sign in again.
  assert.is((await browser.get("/")).status, 303);
  const signIn = await other.get("/sign-in");
  assert.is((await other.post("/sign-in", { email, password: strongPassword }, signIn)).status, 401);
  assert.is((await other.post("/sign-in", { email, password: "another long passphrase" }, signIn)).status, 303);
  // The link is single use.
  const again = await other.post(
    "/reset-password",
    { token: hiddenValue(resetPage.html, "token"), newPassword: "yet another passphrase" },
    await other.get(link.slice(test.console.length)),
  );
  assert.is(again.status, 400);
  assert.match(again.html, messageFor("developer.link_invalid", {}, "hi"));
});

Site("account mail is in the page's language: verification in Arabic, reset and sign-up notice in Hindi", async () => {
  const hi = translator("hi");
  const email = newEmail("words");
  const arabic = createSiteBrowser(test, "ar");
  const form = await arabic.get("/sign-up");
  assert.is((await arabic.post("/sign-up", { email, password: strongPassword }, form)).status, 200);
  const [verify] = await mailsTo(test, email);
  assert.equal(
    { subject: verify!.subject, text: verify!.text },
    { subject: ar("console.mailVerifySubject"), text: ar("console.mailVerifyText") },
  );
  assert.is(verify!.subject, "تحقّق من عنوان بريدك الإلكتروني");
  assert.ok(verify!.link.startsWith(`${test.console}/verify-email?token=`), verify!.link);

  // The same address signed up again from a Hindi page: the notice in Hindi, linking to the sign-in.
  const hindi = createSiteBrowser(test, "hi");
  const again = await hindi.get("/sign-up");
  assert.is((await hindi.post("/sign-up", { email, password: strongPassword }, again)).status, 200);
  const notice = (await mailsTo(test, email)).at(-1)!;
  assert.equal(
    { subject: notice.subject, text: notice.text, link: notice.link },
    { subject: hi("console.mailTakenSubject"), text: hi("console.mailTakenText"), link: `${test.console}/sign-in` },
  );
  assert.is(notice.subject, "आपका डेवलपर खाता पहले से है");

  // A reset asked from a Hindi page: Hindi, though the account signed up in Arabic.
  const forgot = await hindi.get("/forgot-password");
  assert.is((await hindi.post("/forgot-password", { email }, forgot)).status, 200);
  const reset = (await mailsTo(test, email)).at(-1)!;
  assert.equal(
    { subject: reset.subject, text: reset.text },
    { subject: hi("console.mailResetSubject"), text: hi("console.mailResetText") },
  );
  assert.is(reset.text, "नया पासवर्ड चुनने के लिए यह लिंक खोलें।");
  assert.ok(reset.link.startsWith(`${test.console}/reset-password?token=`), reset.link);

  // An API client that names no language: the account's own (Arabic, from its sign-up).
  const asked = await fetch(`${test.base}/v1/console/account/password-reset`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  assert.is(asked.status, 200, await asked.text());
  const fallback = (await mailsTo(test, email)).at(-1)!;
  assert.is(fallback.subject, ar("console.mailResetSubject"));
  assert.is(fallback.text, ar("console.mailResetText"));
});

Site("the sandbox merchant limit of three is explained where it bites; deactivating makes room", async () => {
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, newEmail("limit"));
  const organizationId = await organizationOf(browser);
  const page = await browser.get(`/organizations/${organizationId}`);
  for (let i = 0; i < 3; i++)
    assert.is(
      (await browser.post(`/organizations/${organizationId}/sandbox-merchants`, { country: "US" }, page)).status,
      200,
    );
  const fourth = await browser.post(`/organizations/${organizationId}/sandbox-merchants`, { country: "US" }, page);
  assert.is(fourth.status, 409);
  assert.match(fourth.html, messageFor("developer.sandbox_limit", {}, "en"));
  assert.match(fourth.html, en("console.sandboxLimitRule", { limit: 3, active: 3 }));
  const companyId = /sandbox-merchants\/(\d+)\/deactivate/.exec(fourth.html)![1];
  assert.is(
    (await browser.post(`/organizations/${organizationId}/sandbox-merchants/${companyId}/deactivate`, {}, page)).status,
    303,
  );
  assert.is(
    (await browser.post(`/organizations/${organizationId}/sandbox-merchants`, { country: "US" }, page)).status,
    200,
  );
});

Site(
  "members: an invitation mailed to a second person, accepted through the link, who then sees only what a viewer may",
  async () => {
    const owner = createSiteBrowser(test);
    await signedUpDeveloper(test, owner, newEmail("owner"));
    const organizationId = await organizationOf(owner);
    const orgPage = await owner.get(`/organizations/${organizationId}`);
    const guestEmail = newEmail("guest");
    const bad = await owner.post(
      `/organizations/${organizationId}/invitations`,
      { email: "nope", role: "VIEWER" },
      orgPage,
    );
    assert.is(bad.status, 400);
    assert.match(bad.html, 'id="field-email-error"');
    const invited = await owner.post(
      `/organizations/${organizationId}/invitations`,
      { email: guestEmail, role: "VIEWER" },
      orgPage,
    );
    assert.is(invited.status, 200, invited.html);
    assert.match(invited.html, en("console.invitationSent", { email: guestEmail }));
    const link = await mailedLink(test, guestEmail);
    assert.ok(link.startsWith(`${test.console}/invitations/accept?token=`), link);

    const guest = createSiteBrowser(test);
    const landing = await guest.get(link.slice(test.console.length));
    assert.is(landing.status, 200);
    assert.match(landing.html, en("console.invitationSignIn"));
    await signedUpDeveloper(test, guest, guestEmail);
    const accept = await guest.get(link.slice(test.console.length));
    const accepted = await guest.post("/invitations/accept", { token: hiddenValue(accept.html, "token") }, accept);
    assert.is(accepted.status, 303, accepted.html);
    assert.is(accepted.location, `/organizations/${organizationId}`);
    const viewer = await guest.get(`/organizations/${organizationId}`);
    assert.match(viewer.html, en("console.roleViewer"));
    assert.match(viewer.html, en("console.viewerNote"));
    assert.not.match(viewer.html, `action="/organizations/${organizationId}/apps"`);
    assert.not.match(viewer.html, `action="/organizations/${organizationId}/invitations"`);
    // Refused by the server regardless of the page.
    const forced = await guest.post(`/organizations/${organizationId}/sandbox-merchants`, { country: "GB" }, viewer);
    assert.is(forced.status, 403);
    assert.match(textOf(forced.html), messageFor("developer.insufficient_org_role", {}, "en"));
  },
);

Site("an ADSR app: an API key shown once, listed by name, revoked", async () => {
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, newEmail("adsr"));
  await admittedDeveloper(browser, staff);
  const organizationId = await organizationOf(browser);
  const created = await browser.post(
    `/organizations/${organizationId}/apps`,
    { name: "Reports", product: "ADSR", ...reviewLinks },
    await browser.get(`/organizations/${organizationId}`),
  );
  assert.is(created.status, 200, created.html);
  const appId = /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
  // Only what applies to an ADSR app: no OAuth client pair, the way to its API keys as the one primary action.
  assert.not.match(created.html, 'id="client-secret"');
  assert.not.match(created.html, 'id="client-id"');
  assert.not.match(created.html, en("console.sandboxCredentials"));
  assert.match(textOf(created.html), en("console.appCreatedAdsr", { name: "Reports" }));
  assert.match(created.html, `<a class="button" href="/apps/${appId}/api-keys">${en("console.createApiKey")}</a>`);
  // The page a POST rendered: its language switch leads to a page that answers GET (here the organization's), not
  // back to the POST-only path (405).
  const switchLinks = [...created.html.matchAll(/<a href="([^"]+)" lang="(en|ar|hi)" hreflang/g)].map((m) => m[1]);
  assert.equal(switchLinks, [
    `/organizations/${organizationId}?lang=en`,
    `/organizations/${organizationId}?lang=ar`,
    `/organizations/${organizationId}?lang=hi`,
  ]);
  const switched = await browser.get(switchLinks[1]!);
  assert.is(switched.status, 200);
  assert.match(switched.html, '<html lang="ar" dir="rtl">');
  assert.is((await browser.get(switchLinks[0]!)).status, 200); // back to English (the choice is remembered)
  const appPage = await browser.get(`/apps/${appId}/api-keys`);
  assert.match(textOf(appPage.html), en("console.apiKeysExplain"));
  const made = await browser.post(`/apps/${appId}/api-keys`, { name: "nightly", environment: "SANDBOX" }, appPage);
  assert.is(made.status, 200, made.html);
  const key = shownValue(made.html, "api-key");
  assert.match(key, /^lp_ak_sb_/);
  const listed = await browser.get(`/apps/${appId}/api-keys`);
  assert.match(listed.html, "nightly");
  assert.not.match(listed.html, key);
  const keyId = hiddenValue(listed.html, "api_key_id");
  const revoked = await browser.post(`/apps/${appId}/api-keys/revoke`, { api_key_id: keyId, confirm: "yes" }, listed);
  assert.is(revoked.status, 200);
  assert.match(revoked.html, en("console.apiKeyRevoked", { name: "\u2068nightly\u2069" }));
  assert.match((await browser.get(`/apps/${appId}/api-keys`)).html, en("console.revoked"));
});

/** The value of the selected option of the merchant choice. */
function hiddenSelected(html: string): string {
  return /name="merchant_id" value="(\d+)" checked>/.exec(html)![1]!;
}

Site(
  "every answer names its correlation id, reused from a well-formed X-Request-Id, and the request line logs it",
  async () => {
    const requestId = "4bf92f35-77b3-4da6-a3ce-929d0e0e4736";
    const page = await fetch(`${test.console}/sign-in`, { headers: { "X-Request-Id": requestId } });
    assert.is(page.status, 200);
    assert.is(page.headers.get("x-correlation-id"), requestId);
    const line = test.logs
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .find((entry) => entry["msg"] === "console site request" && entry["correlationId"] === requestId);
    assert.equal([line?.["path"], line?.["status"], typeof line?.["ms"]], ["/sign-in", 200, "number"]);
  },
);

Site.run();
