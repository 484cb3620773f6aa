// The app page's structure over HTTP (src/console-site/app-sections.ts, app-pages.ts): for each product, the section
// menu (exactly the sections that apply, the current one aria-current), the forms each view holds (exactly), at most
// one primary action per view, 404 for a section that does not apply, and where a form's POST lands (the view that
// holds the form, whose language switch leads back to it).
import { createClient, type Client } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { escapeHtml } from "../../src/web/html.js";
import { momentText, translator, type Locale } from "../../src/web/i18n.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  signedUpDeveloper,
  type SiteBrowser,
  type SitePage,
} from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { reviewLinks } from "../support/app-links.js";

const Sections = suite("console-site/app-sections");
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let reviews: Client<typeof CredentialService>;
let serial = 0;
const en = (...args: Parameters<ReturnType<typeof translator>>) => escapeHtml(translator("en")(...args));

Sections.before(async () => {
  test = await startTestApp({
    clock,
    redis: Boolean(process.env["TEST_REDIS_URL"]),
    env: { TRUST_PROXY: "127.0.0.1" },
  });
  const transport = grpcTransport(test.app.grpc.port, test.internal.staff);
  staff = createClient(ConsoleService, transport);
  reviews = createClient(CredentialService, transport);
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
});
Sections.after(async () => {
  await test.stop();
});

/** The section menu: each link's path and label, and which one is current. */
function menuOf(html: string): { links: Array<[string, string]>; current: string[] } {
  const nav = /<nav class="tabs section-menu" aria-label="([^"]+)"><ul>(.*?)<\/ul><\/nav>/s.exec(html);
  assert.ok(nav, "the page has the section menu");
  assert.is(nav![1], en("console.appSectionsNav"));
  const items = [...nav![2]!.matchAll(/<a href="([^"]+)"( aria-current="page")?>([^<]+)<\/a>/g)];
  return {
    links: items.map((item) => [item[1]!, item[3]!]),
    current: items.filter((item) => item[2]).map((item) => item[1]!),
  };
}

/** The actions of the page's forms, in order (the header's sign-out form left out). */
function formsOf(html: string, appId: string): string[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"/g)]
    .map((match) => match[1]!)
    .filter((action) => action !== "/sign-out")
    .map((action) => action.replace(`/apps/${appId}`, ""));
}

/** Primary actions: submit buttons and button-styled links that are neither secondary nor danger. */
function primariesOf(html: string): number {
  return [...html.matchAll(/<button type="submit">|<a class="button" /g)].length;
}

async function newOrganization(browser: SiteBrowser): Promise<number> {
  const made = await browser.post("/organizations", { name: `Sections ${++serial}` }, await browser.get("/"));
  assert.is(made.status, 303, made.html);
  return Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
}

async function newApp(browser: SiteBrowser, organizationId: number, product: string, name: string): Promise<string> {
  const created = await browser.post(
    `/organizations/${organizationId}/apps`,
    { name, product, ...reviewLinks },
    await browser.get(`/organizations/${organizationId}`),
  );
  assert.is(created.status, 200, created.html);
  return /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!;
}

/** Checks one view: 200, its menu with it current, its forms and its primary actions, exactly. */
async function view(
  browser: SiteBrowser,
  appId: string,
  section: string,
  expected: { menu: Array<[string, string]>; forms: string[]; primaries: number; title: string },
): Promise<SitePage> {
  const path = `/apps/${appId}${section}`;
  const page = await browser.get(path);
  assert.is(page.status, 200, `${path}: ${page.html}`);
  const menu = menuOf(page.html);
  assert.equal(
    menu.links,
    expected.menu.map(([suffix, label]) => [`/apps/${appId}${suffix}`, label]),
    path,
  );
  assert.equal(menu.current, [path], path);
  assert.equal(formsOf(page.html, appId), expected.forms, `${path}: forms`);
  assert.is(primariesOf(page.html), expected.primaries, `${path}: primary actions`);
  assert.match(page.html, `<title>${expected.title} · `);
  return page;
}

const oauthMenu: Array<[string, string]> = [
  ["", en("console.sectionOverview")],
  ["/credentials", en("console.credentialsHeading")],
  ["/redirect-uris", en("console.redirectsHeading")],
  ["/review", en("console.reviewHeading")],
  ["/settings", en("console.sectionSettings")],
];
const adsrMenu: Array<[string, string]> = [
  ["", en("console.sectionOverview")],
  ["/api-keys", en("console.apiKeysHeading")],
  ["/access-requests", en("console.accessRequestsHeading")],
  ["/review", en("console.reviewHeading")],
  ["/settings", en("console.sectionSettings")],
];

Sections(
  "FULL and ONLINE_ORDER: overview, credentials, redirect URIs, review, settings; no API keys or access requests",
  async () => {
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `sections.oauth.${process.pid}.${++serial}@partner.test`);
    await admittedDeveloper(browser, staff);
    const organizationId = await newOrganization(browser);
    for (const product of ["FULL", "ONLINE_ORDER"]) {
      const name = `${product} app`;
      const appId = await newApp(browser, organizationId, product, name);
      const title = (section: string) => `${escapeHtml(section)} · ${name}`;
      // A draft: the review view holds the submit form.
      await view(browser, appId, "/review", {
        menu: oauthMenu,
        forms: ["/submit"],
        primaries: 1,
        title: title(translator("en")("console.reviewHeading")),
      });
      assert.is(
        (await browser.post(`/apps/${appId}/submit`, {}, await browser.get(`/apps/${appId}/review`))).location,
        `/apps/${appId}/review`,
      );
      await reviews.approveApp({ appId });

      const overview = await view(browser, appId, "", { menu: oauthMenu, forms: [], primaries: 1, title: name });
      assert.match(
        overview.html,
        `<a class="button" href="/apps/${appId}/first-call">${en("console.firstCallTitle")}</a>`,
      );
      // Approved: both environments' client ids (rotate and allowlist, secondary) and the production reveal (primary).
      await view(browser, appId, "/credentials", {
        menu: oauthMenu,
        forms: ["/rotate", "/allowed-ips", "/rotate", "/allowed-ips", "/production-credentials"],
        primaries: 1,
        title: title(translator("en")("console.credentialsHeading")),
      });
      await view(browser, appId, "/redirect-uris", {
        menu: oauthMenu,
        forms: ["/redirect-uris"],
        primaries: 1,
        title: title(translator("en")("console.redirectsHeading")),
      });
      await view(browser, appId, "/review", {
        menu: oauthMenu,
        forms: [],
        primaries: 0,
        title: title(translator("en")("console.reviewHeading")),
      });
      const settings = await view(browser, appId, "/settings", {
        menu: oauthMenu,
        forms: ["/rename", "/pushed-requests", "/dpop"],
        primaries: 1,
        title: title(translator("en")("console.sectionSettings")),
      });
      assert.match(settings.html, `<a class="button danger" href="/apps/${appId}/archive">`);
      for (const section of ["/api-keys", "/access-requests"]) {
        const absent = await browser.get(`/apps/${appId}${section}`);
        assert.is(absent.status, 404, section);
        assert.match(absent.html, en("console.sectionUnavailable"));
        assert.match(absent.html, `<a href="/apps/${appId}">${en("console.sectionOverview")}</a>`);
      }

      // A form's answer is the view that holds it, and its language switch leads there, not to the POST's path.
      const credentials = await browser.get(`/apps/${appId}/credentials`);
      const clientId = /name="client_id" value="([^"]+)"/.exec(credentials.html)![1]!;
      // The first click asks (the consequence, "Yes, rotate", "Keep it") and rotates nothing.
      const asked = await browser.post(`/apps/${appId}/rotate`, { client_id: clientId }, credentials);
      assert.is(asked.status, 200, asked.html);
      assert.match(asked.html, `<title>${en("console.rotateConfirmTitle")} · `);
      assert.match(asked.html, `<p>${en("console.rotateConsequence")}</p>`);
      assert.match(asked.html, '<input type="hidden" name="confirm" value="yes">');
      assert.match(
        asked.html,
        `<a class="button secondary" href="/apps/${appId}/credentials">${en("console.confirmKeep")}</a>`,
      );
      assert.not.match(asked.html, 'id="rotated-heading"');
      const rotated = await browser.post(`/apps/${appId}/rotate`, { client_id: clientId, confirm: "yes" }, credentials);
      assert.is(rotated.status, 200, rotated.html);
      assert.equal(menuOf(rotated.html).current, [`/apps/${appId}/credentials`]);
      assert.match(rotated.html, 'id="rotated-heading"');
      assert.match(rotated.html, `<a href="/apps/${appId}/credentials?lang=ar" lang="ar" hreflang="ar">`);
      const badUris = await browser.post(
        `/apps/${appId}/redirect-uris`,
        { redirectUris: "http://app.example/cb" },
        credentials,
      );
      assert.is(badUris.status, 400);
      assert.equal(menuOf(badUris.html).current, [`/apps/${appId}/redirect-uris`]);
      assert.match(badUris.html, 'id="field-redirectUris-error"');
      // An empty name is refused on the settings view: the summary links to the field, the field says why, and
      // what was typed stays; the name is unchanged.
      const empty = await browser.post(`/apps/${appId}/rename`, { name: "   " }, credentials);
      assert.is(empty.status, 400);
      assert.equal(menuOf(empty.html).current, [`/apps/${appId}/settings`]);
      const said = en("console.fieldInvalid", { field: en("console.appName") });
      assert.match(empty.html, `<li><a href="#field-name">${said}</a></li>`);
      assert.match(empty.html, `<p class="field-error" id="field-name-error">${said}</p>`);
      assert.match(empty.html, 'name="name" type="text" value="   " required aria-invalid="true"');
      assert.match((await browser.get(`/apps/${appId}/settings`)).html, `value="${name}"`);
      const renamed = await browser.post(`/apps/${appId}/rename`, { name: `${name} 2` }, credentials);
      assert.is(renamed.status, 303);
      assert.is(renamed.location, `/apps/${appId}/settings`);
      // "Require pushed authorization requests" (RFC 9126 section 6): off, turned on, said so, turned off again.
      assert.match(settings.html, en("console.pushedRequestsOff"));
      assert.match(settings.html, '<input type="hidden" name="required" value="true">');
      const required = await browser.post(`/apps/${appId}/pushed-requests`, { required: "true" }, settings);
      assert.is(required.status, 303);
      assert.is(required.location, `/apps/${appId}/settings`);
      const on = await browser.get(`/apps/${appId}/settings`);
      assert.match(on.html, en("console.pushedRequestsOn"));
      assert.match(on.html, en("console.stopRequiringPushedRequests"));
      assert.match(on.html, `value="${name} 2"`);
      assert.is((await browser.post(`/apps/${appId}/pushed-requests`, { required: "false" }, on)).status, 303);
      assert.match((await browser.get(`/apps/${appId}/settings`)).html, en("console.pushedRequestsOff"));
      const garbled = await browser.post(`/apps/${appId}/pushed-requests`, { required: "yes" }, on);
      assert.is(garbled.status, 400);
      assert.equal(menuOf(garbled.html).current, [`/apps/${appId}/settings`]);
      // "Require DPoP" (RFC 9449): the same, and each card changes its own setting only.
      assert.match(settings.html, en("console.dpopOff"));
      const dpopOn = await browser.post(`/apps/${appId}/dpop`, { required: "true" }, settings);
      assert.is(dpopOn.status, 303);
      assert.is(dpopOn.location, `/apps/${appId}/settings`);
      const bound = await browser.get(`/apps/${appId}/settings`);
      assert.match(bound.html, en("console.dpopOn"));
      assert.match(bound.html, en("console.stopRequiringDpop"));
      assert.match(bound.html, en("console.pushedRequestsOff"));
      assert.is((await browser.post(`/apps/${appId}/dpop`, { required: "false" }, bound)).status, 303);
      assert.match((await browser.get(`/apps/${appId}/settings`)).html, en("console.dpopOff"));
      const garbledDpop = await browser.post(`/apps/${appId}/dpop`, { required: "" }, bound);
      assert.is(garbledDpop.status, 400);
      assert.equal(menuOf(garbledDpop.html).current, [`/apps/${appId}/settings`]);
      assert.match((await browser.get(`/apps/${appId}/settings`)).html, en("console.dpopOff"));
      // A form of another product, forged: the API refuses it, said at the top of the overview.
      const forged = await browser.post(`/apps/${appId}/api-keys`, { name: "k", environment: "SANDBOX" }, credentials);
      assert.is(forged.status, 400);
      assert.equal(menuOf(forged.html).current, [`/apps/${appId}`]);
      // Said once, by the error summary: no second alert.
      assert.match(forged.html, '<div class="error-summary" id="error-summary" role="alert"');
      assert.is(forged.html.split('role="alert"').length, 2);
    }
  },
);

Sections(
  "ADSR: overview, API keys, access requests, review, settings; no client credentials or redirect URIs",
  async () => {
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, `sections.adsr.${process.pid}.${++serial}@partner.test`);
    await admittedDeveloper(browser, staff);
    const organizationId = await newOrganization(browser);
    const name = "Sales reader";
    const appId = await newApp(browser, organizationId, "ADSR", name);
    const title = (section: string) => `${escapeHtml(section)} · ${name}`;
    await view(browser, appId, "/api-keys", {
      menu: adsrMenu,
      forms: ["/api-keys"],
      primaries: 1,
      title: title(translator("en")("console.apiKeysHeading")),
    });
    // Before approval the access-request form is not offered: nothing to do in that view.
    await view(browser, appId, "/access-requests", {
      menu: adsrMenu,
      forms: [],
      primaries: 0,
      title: title(translator("en")("console.accessRequestsHeading")),
    });
    const keys = await browser.get(`/apps/${appId}/api-keys`);
    const made = await browser.post(`/apps/${appId}/api-keys`, { name: "nightly", environment: "SANDBOX" }, keys);
    assert.is(made.status, 200, made.html);
    assert.equal(menuOf(made.html).current, [`/apps/${appId}/api-keys`]);
    assert.match(made.html, 'id="new-key-heading"');
    assert.match(made.html, `<a href="/apps/${appId}/api-keys?lang=hi" lang="hi" hreflang="hi">`);
    assert.is((await browser.post(`/apps/${appId}/submit`, {}, keys)).location, `/apps/${appId}/review`);
    await reviews.approveApp({ appId });

    await view(browser, appId, "", { menu: adsrMenu, forms: [], primaries: 1, title: name });
    // A live key: revoke (danger) and its allowlist (secondary); creating one stays the primary action.
    await view(browser, appId, "/api-keys", {
      menu: adsrMenu,
      forms: ["/api-keys/revoke", "/api-keys/allowed-ips", "/api-keys"],
      primaries: 1,
      title: title(translator("en")("console.apiKeysHeading")),
    });
    await view(browser, appId, "/access-requests", {
      menu: adsrMenu,
      forms: ["/access-requests"],
      primaries: 1,
      title: title(translator("en")("console.accessRequestsHeading")),
    });
    await view(browser, appId, "/review", {
      menu: adsrMenu,
      forms: [],
      primaries: 0,
      title: title(translator("en")("console.reviewHeading")),
    });
    await view(browser, appId, "/settings", {
      menu: adsrMenu,
      forms: ["/rename"],
      primaries: 1,
      title: title(translator("en")("console.sectionSettings")),
    });
    for (const section of ["/credentials", "/redirect-uris"]) {
      const absent = await browser.get(`/apps/${appId}${section}`);
      assert.is(absent.status, 404, section);
      assert.match(absent.html, en("console.sectionUnavailable"));
    }
    // No client id or secret in any view of an ADSR app.
    for (const section of ["", "/api-keys", "/access-requests", "/review", "/settings"])
      assert.not.match((await browser.get(`/apps/${appId}${section}`)).html, "lp_app_sb");

    const listed = await browser.get(`/apps/${appId}/api-keys`);
    const keyId = /name="api_key_id" value="([^"]+)"/.exec(listed.html)![1]!;
    // The first click asks and revokes nothing; "Yes, revoke" revokes and says so on the API keys view.
    const asked = await browser.post(`/apps/${appId}/api-keys/revoke`, { api_key_id: keyId }, listed);
    assert.is(asked.status, 200, asked.html);
    assert.match(asked.html, `<title>${en("console.revokeKeyConfirmTitle")} · `);
    assert.match(asked.html, `<p>${en("console.revokeKeyConsequence")}</p>`);
    assert.match(
      asked.html,
      `<a class="button secondary" href="/apps/${appId}/api-keys">${en("console.confirmKeep")}</a>`,
    );
    assert.not.match((await browser.get(`/apps/${appId}/api-keys`)).html, en("console.revoked"));
    const revoked = await browser.post(`/apps/${appId}/api-keys/revoke`, { api_key_id: keyId, confirm: "yes" }, listed);
    assert.is(revoked.status, 200, revoked.html);
    assert.equal(menuOf(revoked.html).current, [`/apps/${appId}/api-keys`]);
    assert.match(revoked.html, /The API key \u2068[^<]+\u2069 was revoked: calls with it are refused\./);
    // Again (an old tab): the key is no longer live, the refusal beside the keys.
    const again = await browser.post(`/apps/${appId}/api-keys/revoke`, { api_key_id: keyId, confirm: "yes" }, listed);
    assert.is(again.status, 404, again.html);
    const refused = await browser.post(`/apps/${appId}/access-requests`, { companyId: "", storeIds: "" }, listed);
    assert.is(refused.status, 400);
    assert.equal(menuOf(refused.html).current, [`/apps/${appId}/access-requests`]);
    // HEAD answers on a section; a wrong method says which ones the path takes.
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const head = await fetch(`${test.console}/apps/${appId}/settings`, { method: "HEAD", headers: { cookie } });
    assert.is(head.status, 200);
    const put = await fetch(`${test.console}/apps/${appId}/api-keys`, { method: "PUT", headers: { cookie } });
    assert.is(put.status, 405);
    assert.is(put.headers.get("allow"), "GET, HEAD, POST");
    const putSettings = await fetch(`${test.console}/apps/${appId}/settings`, { method: "PUT", headers: { cookie } });
    assert.is(putSettings.headers.get("allow"), "GET, HEAD");
  },
);

Sections(
  "production credentials: the reveal says before the click that the unseen approval secret stops working; once shown it is no longer offered, and the card says when and to whom, in en, ar and hi",
  async () => {
    const browser = createSiteBrowser(test);
    const email = `sections.reveal.${process.pid}.${++serial}@partner.test`;
    await signedUpDeveloper(test, browser, email);
    await admittedDeveloper(browser, staff);
    const organizationId = await newOrganization(browser);
    const appId = await newApp(browser, organizationId, "FULL", "Reveal app");
    await browser.post(`/apps/${appId}/submit`, {}, await browser.get(`/apps/${appId}/review`));
    await reviews.approveApp({ appId });
    const say = (locale: Locale, ...args: Parameters<ReturnType<typeof translator>>) =>
      escapeHtml(translator(locale)(...args));
    const locales: Locale[] = ["en", "ar", "hi"];
    for (const locale of locales) {
      const before = await browser.get(`/apps/${appId}/credentials?lang=${locale}`);
      assert.match(before.html, `<p>${say(locale, "console.productionExplain")}</p>`, locale);
      assert.equal(formsOf(before.html, appId), [
        "/rotate",
        "/allowed-ips",
        "/rotate",
        "/allowed-ips",
        "/production-credentials",
      ]);
    }
    const credentials = await browser.get(`/apps/${appId}/credentials`);
    const shownAt = clock.now();
    const revealed = await browser.post(`/apps/${appId}/production-credentials`, {}, credentials);
    assert.is(revealed.status, 200, revealed.html);
    assert.match(revealed.html, 'id="production-secret-heading"');
    for (const locale of locales) {
      const after = await browser.get(`/apps/${appId}/credentials?lang=${locale}`);
      assert.equal(formsOf(after.html, appId), ["/rotate", "/allowed-ips", "/rotate", "/allowed-ips"], locale);
      const when = momentText(locale, shownAt);
      assert.match(
        after.html,
        `<p>${say(locale, "console.productionShown", { when, to: `\u2068${email}\u2069` })}</p>`,
        locale,
      );
      assert.match(after.html, `<p>${say(locale, "console.productionRotateInstead")}</p>`, locale);
      assert.not.match(after.html, say(locale, "console.revealProduction"), locale);
    }
    // A second reveal (an old tab) is refused with the catalogue's 409, beside the card that says why.
    const again = await browser.post(`/apps/${appId}/production-credentials`, {}, credentials);
    assert.is(again.status, 409, again.html);
  },
);

Sections.run();
