// The sandbox menu page over HTTP: a store paused (for a while, with a reason) and resumed, its opening hours replaced
// (an overnight range, its holiday kept), an item sold out in one store and made available again. Each post answers
// the page in place (200 with what the region now has), is the region's own write (the partner reads the change) and
// sends its catalogue event to the organization's sandbox endpoint, which the page then lists. A form the page cannot
// read, or the region refuses, answers 400 (or the region's status) with the refusal beside its field and in the
// error summary, and changes nothing; a viewer and an outsider change nothing; a form without its token is refused.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { momentText } from "../../src/web/i18n.js";
import { grpcTransport } from "../support/internal.js";
import { mailedLink } from "../support/console.js";
import { hiddenValue, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxOrdersSetup,
  signedUpDeveloper,
  textOf,
  type SandboxOrdersSetup,
  type SiteBrowser,
} from "../support/console-site.js";

const Menu = suite("console-site/sandbox-menu");
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 7_000);
let test: TestApp;
let browser: SiteBrowser;
let setup: SandboxOrdersSetup;
let receiver: Receiver;
let menuPath: string;
/** The merchant's two seeded stores: 1 open around the clock, 2 with a café's week and Christmas Day closed. */
let stores: Array<{ id: number; name: string }>;

Menu.before(async () => {
  test = await startTestApp({
    clock,
    redis: false,
    env: { TRUST_PROXY: "127.0.0.1", SANDBOX_ORDER_AUTOPILOT_SECONDS: "0", WEBHOOK_ALLOW_LOOPBACK: "1" },
  });
  const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, `menu.${process.pid}.${Date.now()}@partner.test`);
  await admittedDeveloper(browser, staff);
  setup = await sandboxOrdersSetup(test, browser, "Menu org");
  menuPath = `${setup.merchantPath}/menu`;
  stores = ((await partner("/v1/stores?limit=10")) as { stores: Array<{ id: number; name: string }> }).stores;
  // The organization's app receives the merchant's events at a sandbox endpoint (every event type).
  receiver = await startReceiver("ok");
  const [app] = await test.app.control.sql<{ id: string }[]>`
    select id from control.apps where organization_id = ${setup.organizationId} order by created_at limit 1`;
  const hooks = await browser.get(`/apps/${app!.id}/webhooks?environment=sandbox`);
  const added = await browser.post(`/apps/${app!.id}/webhooks`, { environment: "sandbox", url: receiver.url }, hooks);
  assert.is(added.status, 200, added.html);
});
Menu.after(async () => {
  await receiver?.close();
  await test?.stop();
});

async function partner(path: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`${test.base}${path}`, { headers: { authorization: `Bearer ${setup.token}` } });
  const body = (await answer.json()) as Record<string, unknown>;
  assert.is(answer.status, 200, JSON.stringify(body));
  return body;
}

const storeOf = async (id: number) => (await partner(`/v1/stores/${id}`))["store"] as Record<string, unknown>;
const itemIn = async (itemId: number, storeId: number) =>
  (await partner(`/v1/items/${itemId}?storeId=${storeId}`))["item"] as Record<string, unknown>;

/** The first webhook of `type` whose data `matches`, once it has arrived (the relay and the worker deliver it). */
async function received(type: string, matches: (data: Record<string, unknown>) => boolean) {
  for (let count = 1; ; count++) {
    const got = await receiver.waitFor(count);
    const hit = got
      .map((webhook) => JSON.parse(webhook.body) as { type: string; data: Record<string, unknown> })
      .find((body) => body.type === type && matches(body.data));
    if (hit) return hit;
  }
}

const noticeOf = (html: string) => /<div class="alert ok" role="status">([^<]*)<\/div>/.exec(html)?.[1];
const short = (at: number) => momentText("en", at, { seconds: false, year: false });

Menu(
  "the merchant page links its menu; the menu shows each store's ordering and hours and the first items",
  async () => {
    const merchant = await browser.get(setup.merchantPath);
    assert.match(merchant.html, `<a href="${menuPath}">Menu, opening hours and catalogue events</a>`);
    const page = await browser.get(menuPath);
    assert.is(page.status, 200, page.html);
    assert.match(page.html, "<title>Menu of Corner cafe");
    const text = textOf(page.html);
    for (const store of stores)
      assert.match(page.html, `<h2 id="store-${store.id}-heading"><bdi>${store.name}</bdi></h2>`);
    assert.ok(text.includes("Online ordering Taking orders"), text);
    // Store 2's café week: closed on Monday, past midnight on Friday, a split Sunday, its holiday kept aside.
    assert.ok(text.includes("Monday Closed Tuesday 08:00–22:00"), text);
    assert.ok(text.includes("Friday 08:00–02:00"), text);
    assert.ok(text.includes("1 date has hours of their own"), text);
    assert.is([...page.html.matchAll(/<li id="item-\d+">/g)].length, 20, "twenty items a page");
    assert.match(page.html, `<a href="${menuPath}?store=${stores[0]!.id}&amp;cursor=`);
    // Store 2's list: its third item is seeded sold out there.
    const second = await browser.get(`${menuPath}?store=${stores[1]!.id}`);
    assert.is([...second.html.matchAll(/<span class="badge">Sold out<\/span>/g)].length, 1);
  },
);

Menu(
  "pausing for 45 minutes with a reason is the sandbox helper's pause: answered in place, read by the partner, sent as store.updated",
  async () => {
    const store = stores[0]!;
    const page = await browser.get(menuPath);
    const paused = await browser.post(
      `${menuPath}/stores/${store.id}/online-ordering`,
      { action: "pause", minutes: "45", reason: "Kitchen at capacity" },
      page,
    );
    assert.is(paused.status, 200, paused.html);
    const until = clock.now() + 45 * 60_000;
    assert.is(noticeOf(paused.html), `${store.name} takes no online orders until ${short(until)}.`);
    const ordering = (await storeOf(store.id))["onlineOrdering"];
    assert.equal(ordering, {
      status: "PAUSED",
      pausedUntil: new Date(until).toISOString(),
      reason: "Kitchen at capacity",
    });
    const event = await received(
      "store.updated",
      (data) => String((data["store"] as { id: unknown }).id) === String(store.id),
    );
    assert.is(String(event.data["companyId"]), String(setup.companyId));
    assert.equal((event.data["store"] as Record<string, unknown>)["onlineOrdering"], ordering);
    assert.match(textOf(paused.html), "Paused · until");

    const resumed = await browser.post(`${menuPath}/stores/${store.id}/online-ordering`, { action: "resume" }, paused);
    assert.is(resumed.status, 200, resumed.html);
    assert.is(noticeOf(resumed.html), `${store.name} takes online orders again.`);
    assert.equal((await storeOf(store.id))["onlineOrdering"], { status: "ACCEPTING" });
    await received(
      "store.updated",
      (data) =>
        String((data["store"] as { id: unknown }).id) === String(store.id) &&
        (data["store"] as { onlineOrdering: { status: string } }).onlineOrdering.status === "ACCEPTING",
    );
    // The events that went out: the page lists both, newest first.
    const listed = await browser.get(menuPath);
    const rows = [...listed.html.matchAll(/<tr><td><code>([a-z_.]+)<\/code>/g)].map((match) => match[1]);
    assert.equal(rows.slice(0, 2), ["store.updated", "store.updated"]);
    assert.match(textOf(listed.html), `${store.name} #${store.id}`);
  },
);

Menu(
  "a pause the page cannot read is 400 beside its fields and in the summary, the form open; nothing is written",
  async () => {
    const store = stores[0]!;
    const before = await storeOf(store.id);
    const page = await browser.get(menuPath);
    const refused = await browser.post(
      `${menuPath}/stores/${store.id}/online-ordering`,
      { action: "pause", minutes: "0", reason: "x".repeat(201) },
      page,
    );
    assert.is(refused.status, 400, refused.html);
    assert.match(
      refused.html,
      `<p class="field-error" id="pause-minutes-${store.id}-error">Paused for (minutes, optional): a whole number of minutes from 1 to 10080, or empty.</p>`,
    );
    assert.match(
      refused.html,
      `<p class="field-error" id="pause-reason-${store.id}-error">Reason (optional): at most 200 characters.</p>`,
    );
    assert.match(refused.html, `<a href="#pause-minutes-${store.id}">`);
    assert.match(refused.html, `<a href="#pause-reason-${store.id}">`);
    assert.match(refused.html, `value="${"x".repeat(201)}"`, "what was typed is kept");
    assert.match(refused.html, '<details class="row-actions" open><summary>Pause or resume online ordering');
    const unreadable: Array<Record<string, string>> = [
      { action: "fly" },
      { action: "pause", minutes: "ten" },
      { action: "pause", minutes: "10081" },
    ];
    for (const form of unreadable) {
      const answer = await browser.post(`${menuPath}/stores/${store.id}/online-ordering`, form, page);
      assert.is(answer.status, 400, JSON.stringify(form));
    }
    assert.equal(await storeOf(store.id), before, "the store is as it was (updatedAt too: no change, no event)");
    const unknown = await browser.post(`${menuPath}/stores/999999999/online-ordering`, { action: "resume" }, page);
    assert.is(unknown.status, 404);
    assert.match(textOf(unknown.html), "This merchant has no such store.");
  },
);

Menu(
  "saving the week is UpdateStoreDetails with the hours: an overnight range, a closed day, the holiday kept, store.updated sent",
  async () => {
    const store = stores[1]!;
    const page = await browser.get(menuPath);
    const week = {
      monday: "",
      tuesday: "08:00-12:00, 13:00-18:00",
      wednesday: "08:00 – 18:00",
      thursday: "08:00-18:00",
      friday: "18:00-02:00",
      saturday: "10:00-24:00",
      sunday: "00:00-24:00",
    };
    const saved = await browser.post(`${menuPath}/stores/${store.id}/hours`, week, page);
    assert.is(saved.status, 200, saved.html);
    assert.is(noticeOf(saved.html), `The opening hours of ${store.name} are saved.`);
    const hours = (await storeOf(store.id))["openingHours"] as {
      weekly: unknown[];
      exceptions: Array<{ note?: string }>;
    };
    assert.equal(hours.weekly, [
      {
        day: "TUESDAY",
        ranges: [
          { open: "08:00", close: "12:00" },
          { open: "13:00", close: "18:00" },
        ],
      },
      { day: "WEDNESDAY", ranges: [{ open: "08:00", close: "18:00" }] },
      { day: "THURSDAY", ranges: [{ open: "08:00", close: "18:00" }] },
      { day: "FRIDAY", ranges: [{ open: "18:00", close: "02:00" }] },
      { day: "SATURDAY", ranges: [{ open: "10:00", close: "24:00" }] },
      { day: "SUNDAY", ranges: [{ open: "00:00", close: "24:00" }] },
    ]);
    assert.equal(
      hours.exceptions.map((exception) => exception.note),
      ["Christmas Day"],
    );
    const event = await received(
      "store.updated",
      (data) => String((data["store"] as { id: unknown }).id) === String(store.id),
    );
    assert.equal((event.data["store"] as { openingHours: { weekly: unknown } }).openingHours.weekly, hours.weekly);
    assert.match(textOf(saved.html), "Friday 18:00–02:00");
  },
);

Menu(
  "hours the page cannot read name every such day; hours the region refuses name their day; nothing is written",
  async () => {
    const store = stores[1]!;
    const before = await storeOf(store.id);
    const page = await browser.get(menuPath);
    const unread = await browser.post(
      `${menuPath}/stores/${store.id}/hours`,
      { monday: "9-17", tuesday: "25:00-26:00", wednesday: "08:00-12:00", sunday: "a, b, c" },
      page,
    );
    assert.is(unread.status, 400, unread.html);
    for (const day of ["monday", "tuesday", "sunday"]) {
      const label = day[0]!.toUpperCase() + day.slice(1);
      assert.match(unread.html, `<a href="#hours-${store.id}-${day}">${label}: write each opening as 09:00-17:00`);
    }
    assert.not.match(unread.html, `#hours-${store.id}-wednesday"`);
    assert.match(unread.html, 'value="25:00-26:00"', "what was typed is kept");
    // An overlap inside a day, and Sunday's night running into Monday's morning: the region's check, at the day.
    const overlaps: Array<{ form: Record<string, string>; day: string; label: string }> = [
      { form: { monday: "08:00-12:00, 11:00-14:00" }, day: "monday", label: "Monday" },
      { form: { sunday: "22:00-06:00", monday: "05:00-10:00" }, day: "sunday", label: "Sunday" },
      { form: { thursday: "09:00-09:00" }, day: "thursday", label: "Thursday" },
    ];
    for (const { form, day, label } of overlaps) {
      const refused = await browser.post(`${menuPath}/stores/${store.id}/hours`, form, page);
      assert.is(refused.status, 400, JSON.stringify(form));
      const words = messageFor("partner.opening_hours_invalid", { field: label });
      assert.match(
        refused.html,
        `<p class="field-error" id="hours-${store.id}-${day}-error">${words.replace(/'/g, "&#39;")}</p>`,
      );
    }
    assert.equal(await storeOf(store.id), before);
  },
);

Menu(
  "selling an item out for an hour is the partner's availability write: the item reads sold out there only, item.updated sent",
  async () => {
    const [store, other] = [stores[0]!, stores[1]!];
    const first = (
      (await partner(`/v1/items?limit=1&storeId=${store.id}`))["items"] as Array<{ id: number; name: string }>
    )[0]!;
    const page = await browser.get(menuPath);
    const sold = await browser.post(
      `${menuPath}/stores/${store.id}/items/${first.id}/availability`,
      { available: "false", minutes: "60", itemsStore: String(store.id) },
      page,
    );
    assert.is(sold.status, 200, sold.html);
    const until = clock.now() + 60 * 60_000;
    assert.is(noticeOf(sold.html), `${first.name} is sold out in ${store.name} until ${short(until)}.`);
    assert.match(textOf(sold.html.slice(sold.html.indexOf(`<li id="item-${first.id}">`))), "Sold out · until");
    const item = await itemIn(first.id, store.id);
    assert.is(item["available"], false);
    assert.is(item["unavailableUntil"], new Date(until).toISOString());
    assert.is((await itemIn(first.id, other.id))["available"], true);
    const event = await received(
      "item.updated",
      (data) =>
        String(data["storeId"]) === String(store.id) &&
        String((data["item"] as { id: unknown }).id) === String(first.id),
    );
    assert.is((event.data["item"] as Record<string, unknown>)["available"], false);

    const back = await browser.post(
      `${menuPath}/stores/${store.id}/items/${first.id}/availability`,
      { available: "true", itemsStore: String(store.id) },
      sold,
    );
    assert.is(back.status, 200, back.html);
    assert.is(noticeOf(back.html), `${first.name} sells in ${store.name} again.`);
    assert.is((await itemIn(first.id, store.id))["available"], true);
    await received(
      "item.updated",
      (data) =>
        String(data["storeId"]) === String(store.id) && (data["item"] as { available: unknown }).available === true,
    );

    const before = await itemIn(first.id, store.id);
    const unread = await browser.post(
      `${menuPath}/stores/${store.id}/items/${first.id}/availability`,
      { available: "false", minutes: "-5", itemsStore: String(store.id) },
      page,
    );
    assert.is(unread.status, 400);
    assert.match(
      unread.html,
      `<a href="#soldout-minutes-${first.id}">Sold out for (minutes, optional): a whole number`,
    );
    assert.equal(await itemIn(first.id, store.id), before);
    const unknown = await browser.post(
      `${menuPath}/stores/${store.id}/items/999999999/availability`,
      { available: "false" },
      page,
    );
    assert.is(unknown.status, 404);
    assert.match(textOf(unknown.html), "This merchant's menu has no such item (it may have been deleted).");
  },
);

Menu(
  "a viewer sees the menu without forms and changes nothing (403); an outsider sees nothing; a form without its token is refused",
  async () => {
    const store = stores[0]!;
    const orgPage = await browser.get(`/organizations/${setup.organizationId}`);
    const email = `menu.viewer.${process.pid}.${Date.now()}@partner.test`;
    const invited = await browser.post(
      `/organizations/${setup.organizationId}/invitations`,
      { email, role: "VIEWER" },
      orgPage,
    );
    assert.is(invited.status, 200, invited.html);
    const link = (await mailedLink(test, email)).slice(test.console.length);
    const viewer = createSiteBrowser(test);
    await signedUpDeveloper(test, viewer, email);
    const accept = await viewer.get(link);
    assert.is(
      (await viewer.post("/invitations/accept", { token: hiddenValue(accept.html, "token") }, accept)).status,
      303,
    );
    const page = await viewer.get(menuPath);
    assert.is(page.status, 200);
    assert.match(page.html, "Your role can see this menu but not change it.");
    assert.not.match(page.html, 'method="post" action="' + menuPath);
    const before = await storeOf(store.id);
    const forced = await viewer.post(`${menuPath}/stores/${store.id}/online-ordering`, { action: "pause" }, page);
    assert.is(forced.status, 403);
    assert.match(textOf(forced.html), messageFor("developer.insufficient_org_role"));
    assert.equal(await storeOf(store.id), before);

    const outsider = createSiteBrowser(test);
    await signedUpDeveloper(test, outsider, `menu.outsider.${process.pid}.${Date.now()}@partner.test`);
    const own = await outsider.get("/");
    assert.is((await outsider.get(menuPath)).status, 403);
    const refused = await outsider.post(`${menuPath}/stores/${store.id}/online-ordering`, { action: "pause" }, own);
    assert.is(refused.status, 403);
    const noToken = await browser.post(`${menuPath}/stores/${store.id}/online-ordering`, {
      action: "pause",
      csrf: "x".repeat(43),
    });
    assert.is(noToken.status, 403);
    assert.equal(await storeOf(store.id), before);
  },
);

Menu.run();
