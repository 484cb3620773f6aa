// The sandbox merchant page over HTTP: the merchant's recent online orders (newest first, at most twenty) with the
// moves each status allows; a move made there is the sandbox helper's (same write path: the order, its history with
// actor `sandbox`), a refused one answers 409 with the reason in words in that order's card and changes nothing; a
// form that cannot be read is 400, a developer of another organization sees and moves nothing (403, as for the organization's other pages).
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
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxOrdersSetup,
  signedUpDeveloper,
  textOf,
  type SandboxOrdersSetup,
  type SiteBrowser,
} from "../support/console-site.js";

const Orders = suite("console-site/sandbox-orders");
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 7_000);
let test: TestApp;
let browser: SiteBrowser;
let setup: SandboxOrdersSetup;

Orders.before(async () => {
  test = await startTestApp({
    clock,
    redis: false,
    env: { TRUST_PROXY: "127.0.0.1", SANDBOX_ORDER_AUTOPILOT_SECONDS: "0" },
  });
  const staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
  browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, `orders.${process.pid}.${Date.now()}@partner.test`);
  await admittedDeveloper(browser, staff);
  setup = await sandboxOrdersSetup(test, browser, "Orders org");
});
Orders.after(async () => {
  await test?.stop();
});

/** The order as the partner reads it. */
async function partnerOrder(id: number): Promise<Record<string, unknown>> {
  const answer = await fetch(`${test.base}/v1/online-orders/${id}`, {
    headers: { authorization: `Bearer ${setup.token}` },
  });
  assert.is(answer.status, 200);
  return ((await answer.json()) as { order: Record<string, unknown> }).order;
}

/** The order's card in the page: its <li>. */
function cardOf(html: string, id: number): string {
  const start = html.indexOf(`<li id="order-${id}">`);
  assert.ok(start >= 0, `order ${id} is on the page`);
  return html.slice(start, html.indexOf("</li>", start));
}

const events = (id: number) =>
  test.app.control.sql<{ actor: string; from_status: string | null; status: string }[]>`
    select actor, from_status, status from region_uk.online_order_events where order_id = ${id} order by id`;

Orders(
  "the organization page links each sandbox merchant's orders; the page lists the newest twenty first, with the moves each status allows",
  async () => {
    const organization = await browser.get(`/organizations/${setup.organizationId}`);
    assert.match(
      organization.html,
      `<a href="${setup.merchantPath}" aria-label="Online orders: Corner cafe">Online orders</a>`,
    );
    clock.advance(60_000);
    const id = await setup.place("Ada Lovelace", "web-1001");
    const page = await browser.get(setup.merchantPath);
    assert.is(page.status, 200, page.html);
    assert.match(page.html, "<title>Sandbox merchant Corner cafe");
    const cards = [...page.html.matchAll(/<li id="order-(\d+)">/g)].map((match) => Number(match[1]));
    const rows = [...page.html.matchAll(/<tr id="order-(\d+)">/g)].map((match) => Number(match[1]));
    assert.is(cards.length + rows.length, 20, "sixty seeded orders and one placed: the newest twenty");
    assert.is(cards[0], id, "the order just placed comes first");
    const card = textOf(cardOf(page.html, id));
    for (const text of [`Order ${id}`, "Status Pending", "Customer Ada Lovelace", "Reference web-1001", "Total £"])
      assert.ok(card.includes(text), `${text} in: ${card}`);
    const buttons = (html: string) => [...html.matchAll(/aria-label="([^"]+)">/g)].map((match) => match[1]);
    assert.equal(buttons(cardOf(page.html, id)), [`Accept: Order ${id}`, `Reject: Order ${id}`]);
    // Seeded orders in the other states: a card with the point of sale's moves from each open one, a row of the
    // finished table (no button) for each final one, both newest first.
    const statuses = await test.app.control.sql<{ id: number; status: string; placed_at: Date }[]>`
    select id, status, placed_at from region_uk.online_orders
    where company_id = ${setup.companyId} and id = any(${[...cards, ...rows]})`;
    const open = new Set(["PENDING", "ACCEPTED", "READY"]);
    assert.ok(rows.length > 0 && cards.length > 1, `both kinds seeded: ${cards.length} cards, ${rows.length} rows`);
    for (const row of statuses) {
      const expected =
        {
          PENDING: [`Accept: Order ${row.id}`, `Reject: Order ${row.id}`],
          ACCEPTED: [`Mark ready: Order ${row.id}`, `Cancel order: Order ${row.id}`],
          READY: [`Complete: Order ${row.id}`, `Cancel order: Order ${row.id}`],
        }[row.status] ?? [];
      if (open.has(row.status)) {
        assert.ok(cards.includes(Number(row.id)), `${row.status} order ${row.id} is a card`);
        assert.equal(buttons(cardOf(page.html, Number(row.id))), expected, `${row.status} order ${row.id}`);
      } else {
        assert.ok(rows.includes(Number(row.id)), `${row.status} order ${row.id} is a row`);
        const tr = page.html.slice(page.html.indexOf(`<tr id="order-${row.id}">`));
        const text = textOf(tr.slice(0, tr.indexOf("</tr>"))).trim();
        assert.ok(text.startsWith(`${row.id} ${row.status[0]}${row.status.slice(1).toLowerCase()}`), text);
      }
    }
    const newestFirst = (ids: number[]) =>
      ids.map((order) => statuses.find((row) => Number(row.id) === order)!.placed_at.getTime());
    for (const ids of [cards, rows]) {
      const times = newestFirst(ids);
      assert.equal(
        times,
        [...times].sort((a, b) => b - a),
      );
    }
    assert.match(page.html, '<caption id="finished-caption">Finished orders, newest first: no more moves</caption>');
  },
);

Orders(
  "accepting on the page is the sandbox helper's move: the partner sees ACCEPTED with the promised time, the history says sandbox",
  async () => {
    const id = await setup.place("Grace Hopper", "web-1002");
    const page = await browser.get(setup.merchantPath);
    const accepted = await browser.post(
      `${setup.merchantPath}/orders/${id}/move`,
      { move: "accept", minutes: "25" },
      page,
    );
    assert.is(accepted.status, 303, accepted.html);
    assert.is(accepted.location, `${setup.merchantPath}?moved=${id}#order-${id}`);
    // The page it leads to says what happened: the order's status now and its promised time.
    const said = await browser.get(`${setup.merchantPath}?moved=${id}`);
    assert.match(
      said.html,
      `<div class="alert ok" role="status">Order ${id} is now Accepted, promised for ${momentText("en", clock.now() + 25 * 60_000, { seconds: false, year: false })}.</div>`,
    );
    const order = await partnerOrder(id);
    assert.is(order["status"], "ACCEPTED");
    assert.is(order["promisedFor"], new Date(clock.now() + 25 * 60_000).toISOString());
    assert.equal(
      (await events(id)).map((row) => ({ ...row })),
      [
        { actor: `app:${(await appIdOf(setup)) ?? ""}`, from_status: null, status: "PENDING" },
        { actor: "sandbox", from_status: "PENDING", status: "ACCEPTED" },
      ],
    );
    const after = await browser.get(setup.merchantPath);
    assert.equal(
      [...cardOf(after.html, id).matchAll(/aria-label="([^"]+)">/g)].map((match) => match[1]),
      [`Mark ready: Order ${id}`, `Cancel order: Order ${id}`],
    );
    const ready = await browser.post(`${setup.merchantPath}/orders/${id}/move`, { move: "ready" }, after);
    assert.is(ready.status, 303);
    const cancelled = await browser.post(
      `${setup.merchantPath}/orders/${id}/move`,
      { move: "cancel", reason: "CUSTOMER_NO_SHOW" },
      after,
    );
    assert.is(cancelled.status, 303);
    const final = await partnerOrder(id);
    assert.is(final["status"], "CANCELLED");
    assert.is(final["reason"], "CUSTOMER_NO_SHOW");
  },
);

Orders(
  "a refused move (the order moved on since the page was shown) answers 409 with the reason in words in that order's card; nothing changes",
  async () => {
    const id = await setup.place("Alan Turing", "web-1003");
    const stale = await browser.get(setup.merchantPath);
    assert.is(
      (await browser.post(`${setup.merchantPath}/orders/${id}/move`, { move: "accept", minutes: "10" }, stale)).status,
      303,
    );
    const before = await events(id);
    const refused = await browser.post(
      `${setup.merchantPath}/orders/${id}/move`,
      { move: "reject", reason: "TOO_BUSY" },
      stale,
    );
    assert.is(refused.status, 409, refused.html);
    const card = cardOf(refused.html, id);
    assert.match(
      card,
      '<div class="alert error" role="alert"><p>This order is Accepted now, so it cannot become Rejected. It was moved before your click',
    );
    assert.match(card, "partner.order_status_conflict");
    assert.match(textOf(card), "Status Accepted");
    assert.is((await partnerOrder(id))["status"], "ACCEPTED");
    assert.equal(await events(id), before, "no event for a refused move");
  },
);

Orders(
  "a form that cannot be read is 400 on the merchant's page (the refusal in the order's card, the summary leading there) and moves nothing; an order of another merchant is 404 in words",
  async () => {
    const id = await setup.place("Barbara Liskov", "web-1004");
    const page = await browser.get(setup.merchantPath);
    const forms: Array<Record<string, string>> = [
      { move: "fly" },
      { move: "accept", minutes: "0" },
      { move: "accept", minutes: "ten" },
      { move: "reject", reason: "TIMED_OUT" },
      { move: "cancel" },
    ];
    for (const form of forms) {
      const answer = await browser.post(`${setup.merchantPath}/orders/${id}/move`, form, page);
      assert.is(answer.status, 400, JSON.stringify(form));
      assert.match(cardOf(answer.html, id), '<div class="alert error" role="alert"><p>That move could not be read (');
      assert.match(answer.html, `<a href="#order-${id}">Order ${id}: That move could not be read (`);
      assert.match(answer.html, `<a href="/organizations/${setup.organizationId}">`);
      assert.match(cardOf(answer.html, id), '<details class="row-actions" open>');
    }
    assert.is((await partnerOrder(id))["status"], "PENDING");
    const unknown = await browser.post(`${setup.merchantPath}/orders/999999999/move`, { move: "ready" }, page);
    assert.is(unknown.status, 404);
    assert.match(
      unknown.html,
      '<div class="alert error" role="alert"><p>Order 999999999</p><p>Online order not found.</p>',
    );
    const noCsrf = await browser.post(`${setup.merchantPath}/orders/${id}/move`, {
      move: "ready",
      csrf: "x".repeat(43),
    });
    assert.is(noCsrf.status, 403);
  },
);

Orders(
  "a developer of another organization sees no page and moves nothing (403 developer.not_org_member)",
  async () => {
    const id = await setup.place("Edsger Dijkstra", "web-1005");
    const outsider = createSiteBrowser(test);
    await signedUpDeveloper(test, outsider, `outsider.${process.pid}.${Date.now()}@partner.test`);
    const own = await outsider.get("/");
    const page = await outsider.get(setup.merchantPath);
    assert.is(page.status, 403);
    assert.match(page.html, messageFor("developer.not_org_member"));
    assert.not.match(page.html, "Edsger");
    const moved = await outsider.post(
      `${setup.merchantPath}/orders/${id}/move`,
      { move: "reject", reason: "OTHER" },
      own,
    );
    assert.is(moved.status, 403);
    assert.is((await partnerOrder(id))["status"], "PENDING");
  },
);

Orders(
  "a viewer of the organization sees the orders without buttons; a forced move is 403 and moves nothing",
  async () => {
    const id = await setup.place("Frances Allen", "web-1006");
    const orgPage = await browser.get(`/organizations/${setup.organizationId}`);
    const email = `viewer.${process.pid}.${Date.now()}@partner.test`;
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
    const page = await viewer.get(setup.merchantPath);
    assert.is(page.status, 200);
    assert.match(textOf(cardOf(page.html, id)), "Customer Frances Allen");
    assert.match(page.html, "Your role can see these orders but not move them.");
    assert.not.match(page.html, "/move");
    const forced = await viewer.post(
      `${setup.merchantPath}/orders/${id}/move`,
      { move: "reject", reason: "OTHER" },
      page,
    );
    assert.is(forced.status, 403);
    assert.match(textOf(cardOf(forced.html, id)), messageFor("developer.insufficient_org_role"));
    assert.is((await partnerOrder(id))["status"], "PENDING");
  },
);

async function appIdOf(world: SandboxOrdersSetup): Promise<string | undefined> {
  const [row] = await test.app.control.sql<{ id: string }[]>`
    select id from control.apps where organization_id = ${world.organizationId} order by created_at limit 1`;
  return row?.id;
}

Orders.run();
