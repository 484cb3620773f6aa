// The console site's pages for the rest of the console API, over plain HTTP against the real app: members' roles
// changed and members removed (offered to owners and admins only, refused by the server regardless, the refusal
// in the member's row); the IP allowlists of a client id and of an API key (the rules under the field, the refusal
// beside it, in the page's language); ADSR access requests created and listed with their states; an app archived
// through its confirmation page, and shown archived. Every POST without the page's CSRF token is refused.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { messageFor } from "../../src/errors/index.js";
import { escapeHtml } from "../../src/web/html.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { catalogueOf, momentText, translator, type Locale } from "../../src/web/i18n.js";
import { mailedLink } from "../support/console.js";
import { grpcTransport } from "../support/internal.js";
import { newLiveMerchant } from "../support/sandbox.js";
import { credentialServiceOf, hiddenValue, startTestApp, type TestApp } from "../support/test-app.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  shownValue,
  signedUpDeveloper,
  textOf,
  type SiteBrowser,
} from "../support/console-site.js";
import { reviewLinks } from "../support/app-links.js";

const Pages = suite("console-site/capabilities");
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let reviews: Client<typeof CredentialService>;
let serial = 0;
// The catalogue's words as a page writes them (escaped: "merchant's" is merchant&#39;s in the HTML).
const en = (...args: Parameters<ReturnType<typeof translator>>) => escapeHtml(translator("en")(...args));
const ar = (...args: Parameters<ReturnType<typeof translator>>) => escapeHtml(translator("ar")(...args));
const newEmail = (who = "dev") => `${who}.${process.pid}.${Date.now()}.${++serial}@capabilities.test`;

/** An organization of an admitted owner, with an admin, a developer and a viewer who joined by the mailed link. */
interface Team {
  organizationId: number;
  owner: SiteBrowser;
  admin: SiteBrowser;
  developer: SiteBrowser;
  viewer: SiteBrowser;
  /** Account ids by role, read from the members list. */
  ids: Record<"owner" | "admin" | "developer" | "viewer", string>;
}

Pages.before(async () => {
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
Pages.after(async () => {
  await test.stop();
});

async function organizationOf(browser: SiteBrowser): Promise<number> {
  const made = await browser.post("/organizations", { name: `Org ${++serial}` }, await browser.get("/"));
  assert.is(made.status, 303, made.html);
  return Number(/^\/organizations\/(\d+)$/.exec(made.location ?? "")![1]);
}

/** A new person invited with `role`, signed up through the pages, who accepts through the mailed link. */
async function joined(
  owner: SiteBrowser,
  organizationId: number,
  role: string,
): Promise<{ browser: SiteBrowser; email: string }> {
  const email = newEmail(role.toLowerCase());
  const invited = await owner.post(
    `/organizations/${organizationId}/invitations`,
    { email, role },
    await owner.get(`/organizations/${organizationId}`),
  );
  assert.is(invited.status, 200, invited.html);
  const link = (await mailedLink(test, email)).slice(test.console.length);
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, email);
  const page = await browser.get(link);
  assert.is((await browser.post("/invitations/accept", { token: hiddenValue(page.html, "token") }, page)).status, 303);
  return { browser, email };
}

/** The account id of the member with `email`, from the members list. */
function memberId(html: string, email: string): string {
  const match = new RegExp(`<li data-member="(\\d+)"><span class="ltr">${email.replace(/[.+]/g, "\\$&")}</span>`).exec(
    html,
  );
  if (!match) throw new Error(`no member ${email} in the page`);
  return match[1]!;
}

/** The HTML of one member's row. */
function rowOf(html: string, id: string): string {
  const start = html.indexOf(`<li data-member="${id}">`);
  assert.ok(start >= 0, `no row of member ${id}`);
  return html.slice(start, html.indexOf("</li>", start));
}

async function newTeam(): Promise<Team> {
  const owner = createSiteBrowser(test);
  const ownerEmail = newEmail("owner");
  await signedUpDeveloper(test, owner, ownerEmail);
  await admittedDeveloper(owner, staff);
  const organizationId = await organizationOf(owner);
  const admin = await joined(owner, organizationId, "ADMIN");
  const developer = await joined(owner, organizationId, "DEVELOPER");
  const viewer = await joined(owner, organizationId, "VIEWER");
  const page = (await owner.get(`/organizations/${organizationId}`)).html;
  return {
    organizationId,
    owner,
    admin: admin.browser,
    developer: developer.browser,
    viewer: viewer.browser,
    ids: {
      owner: memberId(page, ownerEmail),
      admin: memberId(page, admin.email),
      developer: memberId(page, developer.email),
      viewer: memberId(page, viewer.email),
    },
  };
}

/** Creates an app through the organization page; its id and sandbox client id. */
async function newApp(
  browser: SiteBrowser,
  organizationId: number,
  product: "FULL" | "ADSR",
  name = `App ${++serial}`,
): Promise<{ appId: string; clientId: string }> {
  const created = await browser.post(
    `/organizations/${organizationId}/apps`,
    { name, product, ...reviewLinks },
    await browser.get(`/organizations/${organizationId}`),
  );
  assert.is(created.status, 200, created.html);
  return {
    appId: /href="\/apps\/([^"/]+)"/.exec(created.html)![1]!,
    // An ADSR app's creation shows no client pair (it calls with API keys).
    clientId: product === "ADSR" ? "" : shownValue(created.html, "client-id"),
  };
}

/** English strings of the catalogue (those the language writes differently) left in a page's text. */
function englishLeft(html: string, locale: Locale): string[] {
  const text = textOf(html);
  const other = catalogueOf(locale);
  return Object.entries(catalogueOf("en"))
    .filter(
      ([key, value]) =>
        key !== "common.languageName" &&
        other[key as keyof typeof other] !== value &&
        !value.includes("{") &&
        value.length > 3,
    )
    .filter(([, value]) => text.includes(value))
    .map(([key]) => key);
}

Pages(
  "members: owners and admins change roles and remove members; the others see the list only; refusals shown in the member's row",
  async () => {
    const team = await newTeam();
    const { organizationId, ids } = team;
    const path = `/organizations/${organizationId}`;
    const ownerPage = await team.owner.get(path);
    assert.is(ownerPage.status, 200);
    // The owner's own row has no controls (the owner cannot change); every other member's row has both.
    assert.not.match(rowOf(ownerPage.html, ids.owner), "<form");
    const viewerRow = rowOf(ownerPage.html, ids.viewer);
    assert.match(viewerRow, `<form method="post" action="${path}/members/${ids.viewer}/role" class="inline-form">`);
    assert.match(viewerRow, `<option value="VIEWER" selected>${en("console.roleViewer")}</option>`);
    assert.match(viewerRow, `aria-label="${en("console.changeRole")}: `);
    assert.match(viewerRow, `<form method="post" action="${path}/members/${ids.viewer}/remove" class="inline-form">`);
    assert.match(ownerPage.html, en("console.membersRule"));

    // The developer and the viewer see the members and their roles, and no control.
    for (const member of [team.developer, team.viewer]) {
      const page = await member.get(path);
      assert.is(page.status, 200);
      assert.not.match(page.html, "/members/");
      assert.match(rowOf(page.html, ids.admin), `<span class="badge">${en("console.roleAdmin")}</span>`);
      assert.match(page.html, en("console.inviteRoleNote"));
    }

    // The owner makes the viewer a developer.
    const changed = await team.owner.post(`${path}/members/${ids.viewer}/role`, { role: "DEVELOPER" }, ownerPage);
    assert.is(changed.status, 303, changed.html);
    assert.is(changed.location, path);
    const after = await team.owner.get(path);
    assert.match(rowOf(after.html, ids.viewer), `<option value="DEVELOPER" selected>`);
    assert.match(rowOf(after.html, ids.viewer), `<span class="badge">${en("console.roleDeveloper")}</span>`);

    // A developer's forced change is refused by the server, its message in that member's row.
    const developerPage = await team.developer.get(path);
    const forced = await team.developer.post(`${path}/members/${ids.viewer}/role`, { role: "ADMIN" }, developerPage);
    assert.is(forced.status, 403);
    assert.match(textOf(rowOf(forced.html, ids.viewer)), messageFor("developer.insufficient_org_role", {}, "en"));
    assert.match(
      rowOf((await team.owner.get(path)).html, ids.viewer),
      `<span class="badge">${en("console.roleDeveloper")}</span>`,
    );

    // An admin cannot touch the owner: 409 in the owner's row, in the page's language.
    team.admin.language = "ar";
    const adminPage = await team.admin.get(path);
    assert.match(adminPage.html, `action="${path}/members/${ids.developer}/remove"`);
    const ownerRefused = await team.admin.post(`${path}/members/${ids.owner}/remove`, {}, adminPage);
    assert.is(ownerRefused.status, 409);
    assert.match(textOf(rowOf(ownerRefused.html, ids.owner)), messageFor("developer.owner_immutable", {}, "ar"));
    assert.equal(englishLeft(ownerRefused.html, "ar"), []);
    const ownerDemoted = await team.admin.post(`${path}/members/${ids.owner}/role`, { role: "VIEWER" }, adminPage);
    assert.is(ownerDemoted.status, 409);
    // OWNER is never given: the API names the field.
    const toOwner = await team.admin.post(`${path}/members/${ids.developer}/role`, { role: "OWNER" }, adminPage);
    assert.is(toOwner.status, 400);
    assert.match(
      textOf(rowOf(toOwner.html, ids.developer)),
      messageFor("developer.invalid_request", { fields: "role" }, "ar"),
    );

    // Without the page's CSRF token nothing is removed.
    const forged = await team.owner.post(`${path}/members/${ids.developer}/remove`, { csrf: "x".repeat(43) });
    assert.is(forged.status, 403);
    assert.match(forged.html, en("common.formExpired"));
    assert.match((await team.owner.get(path)).html, `data-member="${ids.developer}"`);

    // The owner removes the developer, who no longer reaches the organization.
    const removed = await team.owner.post(`${path}/members/${ids.developer}/remove`, {}, await team.owner.get(path));
    assert.is(removed.status, 303);
    assert.is(removed.location, path);
    assert.not.match((await team.owner.get(path)).html, `data-member="${ids.developer}"`);
    const gone = await team.developer.get(path);
    assert.is(gone.status, 403);
    assert.match(textOf(gone.html), messageFor("developer.not_org_member", {}, "en"));
    // A removal of someone no longer a member is said above the list.
    const again = await team.owner.post(`${path}/members/${ids.developer}/remove`, {}, await team.owner.get(path));
    assert.is(again.status, 404);
    assert.match(textOf(again.html), messageFor("developer.member_not_found", {}, "en"));

    // An admin who removes themselves lands on the dashboard.
    const left = await team.admin.post(`${path}/members/${ids.admin}/remove`, {}, await team.admin.get(path));
    assert.is(left.status, 303);
    assert.is(left.location, "/");
  },
);

Pages(
  "IP allowlists: the rules under each client id's list, a refusal beside that list in the page's language, the saved list shown",
  async () => {
    const browser = createSiteBrowser(test, "ar");
    await signedUpDeveloper(test, browser, newEmail("allow"));
    await admittedDeveloper(browser, staff);
    const organizationId = await organizationOf(browser);
    const { appId, clientId } = await newApp(browser, organizationId, "FULL");
    const page = await browser.get(`/apps/${appId}/credentials`);
    assert.is(page.status, 200);
    const listId = `allowlist-${clientId}`;
    assert.match(
      page.html,
      `<label for="${listId}">${ar("console.allowlistOf", { name: `${ar("console.sandbox")} ${clientId}` })}</label>`,
    );
    assert.match(page.html, `<p class="hint" id="${listId}-hint">${ar("console.allowlistRules", { limit: 50 })}</p>`);
    assert.match(textOf(page.html), `${ar("console.allowlistCurrent")} ${ar("console.allowlistAny")}`);

    // A range with host bits set: refused, beside the list, naming its line; what was typed stays in the field.
    const typed = "203.0.113.7\n10.0.0.1/8";
    const refused = await browser.post(`/apps/${appId}/allowed-ips`, { client_id: clientId, allowedIps: typed }, page);
    assert.is(refused.status, 400);
    const error = new RegExp(`<p class="field-error" id="${listId}-error">([^<]*)</p>`).exec(refused.html);
    assert.ok(error, "the error is beside the list");
    assert.is(
      textOf(error![1]!).trim(),
      messageFor(
        "developer.ip_allowlist_invalid",
        {
          field: ar("console.fieldLine", {
            label: ar("console.allowlistOf", { name: `${ar("console.sandbox")} ${clientId}` }),
            line: 2,
          }),
          value: "10.0.0.1/8",
        },
        "ar",
      ).replace(/[\u2066\u2068\u2069]/g, ""), // as textOf reads the page: without the isolates
    );
    assert.match(refused.html, `aria-describedby="${listId}-hint ${listId}-error"`);
    assert.match(refused.html, `>${typed}</textarea>`);
    assert.match(refused.html, ar("console.allowlistRules", { limit: 50 }));
    assert.equal(englishLeft(refused.html, "ar"), []);
    // More than fifty: refused too.
    const tooMany = Array.from({ length: 51 }, (_, i) => `192.0.2.${i}`).join("\n");
    assert.is(
      (await browser.post(`/apps/${appId}/allowed-ips`, { client_id: clientId, allowedIps: tooMany }, page)).status,
      400,
    );
    // Another app's client id: the server refuses it, beside the list it was sent for.
    const other = await browser.post(
      `/apps/${appId}/allowed-ips`,
      { client_id: "lp_app_sbnotthisone", allowedIps: "192.0.2.1" },
      page,
    );
    assert.is(other.status, 404);
    assert.match(textOf(other.html), messageFor("developer.credential_not_found", {}, "ar"));

    const saved = await browser.post(
      `/apps/${appId}/allowed-ips`,
      { client_id: clientId, allowedIps: "203.0.113.7\n2001:DB8::/32" },
      page,
    );
    assert.is(saved.status, 200, saved.html);
    assert.match(saved.html, ar("console.allowlistSaved"));
    assert.match(saved.html, `>203.0.113.7\n2001:db8::/32</textarea>`);
    assert.match(textOf(saved.html), `${ar("console.allowlistCurrent")} 203.0.113.7, 2001:db8::/32`);
    // Emptied: any address again.
    const cleared = await browser.post(`/apps/${appId}/allowed-ips`, { client_id: clientId, allowedIps: "" }, page);
    assert.is(cleared.status, 200);
    assert.match(textOf(cleared.html), `${ar("console.allowlistCurrent")} ${ar("console.allowlistAny")}`);
    // Without the page's CSRF token: refused, nothing saved.
    const forged = await browser.post(`/apps/${appId}/allowed-ips`, {
      client_id: clientId,
      allowedIps: "192.0.2.9",
      csrf: "y".repeat(43),
    });
    assert.is(forged.status, 403);
    assert.not.match((await browser.get(`/apps/${appId}/credentials`)).html, "192.0.2.9");
  },
);

Pages(
  "an ADSR app: a key's allowlist; access requests explained, refused before approval, created and listed with their state",
  async () => {
    const browser = createSiteBrowser(test);
    await signedUpDeveloper(test, browser, newEmail("access"));
    await admittedDeveloper(browser, staff);
    const organizationId = await organizationOf(browser);
    const { appId } = await newApp(browser, organizationId, "ADSR");
    const draft = await browser.get(`/apps/${appId}/access-requests`);
    assert.match(draft.html, `<h2 id="access-heading">${en("console.accessRequestsHeading")}</h2>`);
    assert.match(draft.html, en("console.accessRequestsExplain"));
    assert.match(draft.html, en("console.accessRequestsNeedApproval"));
    assert.not.match(draft.html, `action="/apps/${appId}/access-requests"`);
    // A key's name too long for the API: said in the summary and beside the field, what was typed kept.
    const longName = "k".repeat(300);
    const unnamed = await browser.post(`/apps/${appId}/api-keys`, { name: longName, environment: "SANDBOX" }, draft);
    assert.is(unnamed.status, 400);
    const keySaid = en("console.fieldInvalid", { field: en("console.apiKeyName") });
    assert.match(unnamed.html, `<li><a href="#api-key-name">${keySaid}</a></li>`);
    assert.match(unnamed.html, `<p class="field-error" id="api-key-name-error">${keySaid}</p>`);
    assert.match(unnamed.html, `name="name" type="text" value="${longName}"`);
    // No OAuth redirect for an app that only has API keys: in no view, and its section is not there.
    for (const view of ["", "/api-keys", "/access-requests", "/review", "/settings"]) {
      const html = (await browser.get(`/apps/${appId}${view}`)).html;
      assert.not.match(html, `id="redirects-heading"`);
      assert.not.match(html, `action="/apps/${appId}/redirect-uris"`);
      assert.not.match(html, `href="/apps/${appId}/redirect-uris"`);
    }
    assert.is((await browser.get(`/apps/${appId}/redirect-uris`)).status, 404);

    // A sandbox key's allowlist: a refusal beside that key's list.
    const made = await browser.post(`/apps/${appId}/api-keys`, { name: "nightly", environment: "SANDBOX" }, draft);
    assert.is(made.status, 200, made.html);
    const withKey = await browser.get(`/apps/${appId}/api-keys`);
    const keyId = hiddenValue(withKey.html, "api_key_id");
    const keyList = `allowlist-key-${keyId}`;
    assert.match(withKey.html, `<label for="${keyList}">${en("console.allowlistOf", { name: "nightly" })}</label>`);
    const badKey = await browser.post(
      `/apps/${appId}/api-keys/allowed-ips`,
      { api_key_id: keyId, allowedIps: "fe80::1%eth0" },
      withKey,
    );
    assert.is(badKey.status, 400);
    assert.match(badKey.html, `id="${keyList}-error"`);
    const goodKey = await browser.post(
      `/apps/${appId}/api-keys/allowed-ips`,
      { api_key_id: keyId, allowedIps: "198.51.100.0/24" },
      withKey,
    );
    assert.is(goodKey.status, 200, goodKey.html);
    assert.match(goodKey.html, `>198.51.100.0/24</textarea>`);

    // Before approval the server refuses a request (the form is not offered): its message on the page.
    const live = await newLiveMerchant(credentialServiceOf(test, clock), "us");
    const storeIds = await seedMerchantData(test.app.regionDatabases.get("us")!.sql, "us", live.companyId, {
      storeCount: 2,
      itemCount: 1,
      salesDays: 0,
      onlineOrderCount: 0,
      now: new Date(clock.now()),
    });
    const early = await browser.post(
      `/apps/${appId}/access-requests`,
      { companyId: String(live.companyId), storeIds: storeIds.join(", ") },
      draft,
    );
    assert.is(early.status, 403);
    assert.match(textOf(early.html), messageFor("developer.app_not_approved", {}, "en"));

    assert.is((await browser.post(`/apps/${appId}/submit`, {}, draft)).status, 303);
    await reviews.approveApp({ appId });
    const approved = await browser.get(`/apps/${appId}/access-requests`);
    assert.match(approved.html, `action="/apps/${appId}/access-requests"`);
    assert.match(approved.html, en("console.noAccessRequests"));
    assert.match(approved.html, en("console.storeIdsHint"));

    // The stores are required: the API's refusal beside that field.
    const noStores = await browser.post(
      `/apps/${appId}/access-requests`,
      { companyId: String(live.companyId), storeIds: "" },
      approved,
    );
    assert.is(noStores.status, 400);
    assert.match(noStores.html, 'id="field-storeIds-error"');
    assert.match(noStores.html, `value="${live.companyId}"`);
    const badCompany = await browser.post(
      `/apps/${appId}/access-requests`,
      { companyId: "shop", storeIds: String(storeIds[0]) },
      approved,
    );
    assert.is(badCompany.status, 400);
    assert.match(badCompany.html, 'id="field-companyId-error"');
    // A store number the schema refuses is named by its place in the list, never as `storeIds.1`.
    const badStore = await browser.post(
      `/apps/${appId}/access-requests`,
      { companyId: String(live.companyId), storeIds: `${storeIds[0]}, shop` },
      approved,
    );
    assert.is(badStore.status, 400);
    const storeSaid = en("console.fieldInvalid", {
      field: en("console.fieldEntry", { label: en("console.storeIds"), entry: 2 }),
    });
    assert.match(badStore.html, `<li><a href="#field-storeIds">${storeSaid}</a></li>`);
    assert.match(badStore.html, `<p class="field-error" id="field-storeIds-error">${storeSaid}</p>`);
    assert.match(badStore.html, `value="${storeIds[0]}, shop"`);
    assert.not.match(badStore.html, "storeIds.1");

    const sent = await browser.post(
      `/apps/${appId}/access-requests`,
      { companyId: String(live.companyId), storeIds: storeIds.join(", ") },
      approved,
    );
    assert.is(sent.status, 200, sent.html);
    assert.match(sent.html, en("console.accessRequestSent", { companyId: String(live.companyId) }));
    const row = /<tbody>(.*?)<\/tbody>/s.exec(sent.html)![1]!;
    assert.match(
      row,
      `<td class="ltr">${live.companyId}</td><td class="ltr">${storeIds.join(", ")}</td><td class="ltr"></td>`,
    );
    assert.match(row, `<span class="badge">${en("console.accessStatePending")}</span>`);
    const expires = momentText("en", clock.now() + 30 * 24 * 3_600_000);
    assert.match(row, expires);
    // A second one for the same merchant: the API's 409, said on the page.
    const twice = await browser.post(
      `/apps/${appId}/access-requests`,
      { companyId: String(live.companyId), storeIds: String(storeIds[0]) },
      approved,
    );
    assert.is(twice.status, 409);
    assert.match(textOf(twice.html), messageFor("developer.access_request_exists", {}, "en"));
    // Without the page's CSRF token: refused.
    assert.is(
      (
        await browser.post(`/apps/${appId}/access-requests`, {
          companyId: String(live.companyId),
          storeIds: "1",
          csrf: "z".repeat(43),
        })
      ).status,
      403,
    );

    // In Arabic: the section's words, the state, no English left.
    const arabic = await browser.get(`/apps/${appId}/access-requests?lang=ar`);
    assert.match(arabic.html, `<span class="badge">${ar("console.accessStatePending")}</span>`);
    assert.equal(englishLeft(arabic.html, "ar"), []);
  },
);

Pages(
  "archive: owners and admins only, after a page that says the consequence; the archived app shown as such and changed no more",
  async () => {
    const team = await newTeam();
    const { appId, clientId } = await newApp(team.owner, team.organizationId, "FULL", "Old sync");
    const appPath = `/apps/${appId}`;
    // Every view of the app's page a role may open (a viewer has no settings: nothing there it may change).
    const views = ["", "/credentials", "/redirect-uris", "/review", "/settings"];
    const ownerView = await team.owner.get(`${appPath}/settings`);
    assert.match(ownerView.html, `<a class="button danger" href="${appPath}/archive">${en("console.archiveApp")}</a>`);
    // A developer and a viewer are not offered it; the viewer is offered no change at all.
    for (const view of views)
      assert.not.match((await team.developer.get(`${appPath}${view}`)).html, `${appPath}/archive`);
    const developerView = await team.developer.get(`${appPath}/credentials`);
    assert.match(developerView.html, `action="${appPath}/rotate"`);
    assert.is((await team.viewer.get(`${appPath}/settings`)).status, 404);
    for (const view of views.filter((view) => view !== "/settings")) {
      const viewerView = await team.viewer.get(`${appPath}${view}`);
      assert.is(viewerView.status, 200, view);
      assert.not.match(viewerView.html, `${appPath}/archive`);
      assert.not.match(viewerView.html, '<form method="post" action="/apps/');
      assert.match(viewerView.html, en("console.appViewerNote"));
    }
    const viewerView = await team.viewer.get(`${appPath}/credentials`);
    // The viewer's forced allowlist change: the server's refusal at the top of the page.
    const viewerForced = await team.viewer.post(
      `${appPath}/allowed-ips`,
      { client_id: clientId, allowedIps: "192.0.2.1" },
      viewerView,
    );
    assert.is(viewerForced.status, 403);
    assert.match(textOf(viewerForced.html), messageFor("developer.insufficient_org_role", {}, "en"));

    // The confirmation step says what archiving does.
    const confirm = await team.owner.get(`${appPath}/archive`);
    assert.is(confirm.status, 200);
    assert.match(confirm.html, `<h1>${en("console.archiveTitle", { name: "Old sync" })}</h1>`);
    for (const key of [
      "console.archiveConsequenceTokens",
      "console.archiveConsequenceFinal",
      "console.archiveConsequenceListed",
    ] as const)
      assert.match(confirm.html, en(key));
    assert.match(
      confirm.html,
      `<button type="submit" class="danger">${en("console.archiveConfirm", { name: "Old sync" })}</button>`,
    );
    assert.match(confirm.html, `<a href="${appPath}">${en("console.cancel")}</a>`);
    // A POST that did not come from the confirmation form shows it and archives nothing.
    const unconfirmed = await team.owner.post(`${appPath}/archive`, {}, confirm);
    assert.is(unconfirmed.status, 200);
    assert.match(unconfirmed.html, en("console.archiveConsequenceFinal"));
    // Without the page's CSRF token: refused.
    assert.is((await team.owner.post(`${appPath}/archive`, { confirm: "archive", csrf: "q".repeat(43) })).status, 403);
    // A developer's forced archive: refused by the server, said on the confirmation page.
    const developerConfirm = await team.developer.get(`${appPath}/archive`);
    const developerForced = await team.developer.post(`${appPath}/archive`, { confirm: "archive" }, developerConfirm);
    assert.is(developerForced.status, 403);
    assert.match(textOf(developerForced.html), messageFor("developer.insufficient_org_role", {}, "en"));
    assert.match((await team.owner.get(appPath)).html, en("console.appStateDraft"));

    // An admin archives it.
    const adminConfirm = await team.admin.get(`${appPath}/archive`);
    const archived = await team.admin.post(`${appPath}/archive`, { confirm: "archive" }, adminConfirm);
    assert.is(archived.status, 303, archived.html);
    assert.is(archived.location, appPath);
    const after = await team.owner.get(appPath);
    assert.match(after.html, `<span class="badge">${en("console.appStateArchived")}</span>`);
    assert.match(after.html, en("console.archivedNote"));
    // No view offers a change any more; review and settings are gone from the page.
    for (const view of ["", "/credentials", "/redirect-uris"]) {
      const archivedView = await team.owner.get(`${appPath}${view}`);
      assert.is(archivedView.status, 200, view);
      assert.match(archivedView.html, en("console.archivedNote"));
      for (const gone of [
        `${appPath}/archive"`,
        `${appPath}/rotate"`,
        `${appPath}/allowed-ips"`,
        `${appPath}/rename"`,
        `${appPath}/submit"`,
        `${appPath}/first-call"`,
        `action="${appPath}/redirect-uris"`,
      ])
        assert.not.match(archivedView.html, gone);
    }
    for (const view of ["/review", "/settings"]) assert.is((await team.owner.get(`${appPath}${view}`)).status, 404);
    const listed = await team.owner.get(`/organizations/${team.organizationId}`);
    assert.match(
      listed.html,
      `<a href="${appPath}">Old sync</a> · ${en("console.productFull")} <span class="badge">${en("console.appStateArchived")}</span>`,
    );
    // The confirmation page of an archived app leads back to it; a change is refused by the server, said on the page.
    const reopened = await team.owner.get(`${appPath}/archive`);
    assert.is(reopened.status, 303);
    assert.is(reopened.location, appPath);
    const late = await team.owner.post(
      `${appPath}/allowed-ips`,
      { client_id: clientId, allowedIps: "192.0.2.1" },
      after,
    );
    assert.is(late.status, 403);
    assert.match(textOf(late.html), messageFor("developer.app_archived", {}, "en"));
    // HEAD and a wrong method on the archive path.
    const put = await fetch(`${test.console}${appPath}/archive`, {
      method: "PUT",
      redirect: "manual",
      headers: { cookie: [...team.owner.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    assert.is(put.status, 405);
    assert.is(put.headers.get("allow"), "GET, HEAD, POST");
  },
);

Pages.run();
