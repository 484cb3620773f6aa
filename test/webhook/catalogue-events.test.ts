// The menu's events as subscribed webhook endpoints get them (issue 39), on the injected clock: the sandbox menu
// autopilot (SANDBOX_MENU_AUTOPILOT_SECONDS) pauses a sandbox merchant's second store and resumes it a step later,
// each turn one store.updated event that the relay fans out to every endpoint of the app subscribed to it (and to no
// other); a category's PATCH sends category.updated from its own transaction, and a refused one sends nothing.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { WebhookEventType } from "../../src/client/index.js";
import { menuAutopilotReason } from "../../src/data/menu-autopilot.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { clientFor, newSeededWorld } from "../support/client.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Events = suite("webhook/catalogue-events");
const clock = createManualClock(Date.now());
let test: TestApp;

Events.before(async () => {
  test = await startTestApp({
    clock,
    redis: false,
    env: {
      GATEWAY_CACHE_SECONDS: "0",
      SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
      SANDBOX_MENU_AUTOPILOT_SECONDS: "60",
      WEBHOOK_ALLOW_LOOPBACK: "1",
    },
  });
});
Events.after(async () => {
  await test.stop();
});

interface Sent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * The events the relay has fanned out to `endpointId` (the signed bodies of its deliveries, oldest first), once it
 * has at least `count` (a relay pass started by a commit's notification may hold rows a moment): drained each time.
 */
async function sentTo(endpointId: string, count: number): Promise<Sent[]> {
  const sql = test.app.control.sql;
  for (let tries = 0; ; tries++) {
    await test.app.webhooks.relay!.drain();
    const rows = await sql<{ payload: string }[]>`
      select payload from control.webhook_deliveries where endpoint_id = ${endpointId} order by occurred_at, created_at`;
    if (rows.length >= count || tries === 50) return rows.map((row) => JSON.parse(row.payload) as Sent);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs every region's timers once, as a tick of the clock would. */
async function runTimers(): Promise<void> {
  for (const timers of test.app.orderTimers.values()) await timers.runDue();
}

Events(
  "the menu autopilot pauses and resumes the second store: one store.updated each turn, to each subscribed endpoint",
  async () => {
    const world = await newSeededWorld(test, clock, "http://127.0.0.1:9/menu/1", Product.FULL);
    const { client } = clientFor(test, world, clock);
    await client.connectSandbox(world.companyId);
    const merchant = client.merchant(world.companyId);
    const endpoint = async (events: WebhookEventType[]) =>
      // One URL per endpoint: an app's environment holds one endpoint per URL (developer.webhook_url_taken).
      (await client.webhookEndpoints.create({ url: `http://127.0.0.1:9/hooks/${events.join("+")}`, events })).endpoint
        .id;
    const both = await endpoint(["store.updated", "category.updated"]);
    const storesOnly = await endpoint(["store.updated"]);
    const itemsOnly = await endpoint(["item.created"]);
    const [first, second] = (await merchant.stores.list()).stores;

    await runTimers();
    const paused = await merchant.stores.get(second!.id);
    assert.equal(paused.onlineOrdering, { status: "PAUSED", reason: menuAutopilotReason });
    for (const id of [both, storesOnly]) {
      const sent = await sentTo(id, 1);
      assert.equal(
        sent.map((event) => event.type),
        ["store.updated"],
      );
      assert.equal(sent[0]!.data, { companyId: world.companyId, store: paused }, "the store as the API answers it");
    }
    assert.equal(await sentTo(itemsOnly, 0), [], "an endpoint not subscribed to store.updated gets none");

    clock.advance(59_000);
    await runTimers();
    assert.is((await sentTo(both, 2)).length, 1, "nothing before its step");
    clock.advance(1_000);
    await runTimers();
    const resumed = await merchant.stores.get(second!.id);
    assert.equal(resumed.onlineOrdering, { status: "ACCEPTING" });
    for (const id of [both, storesOnly]) {
      const sent = await sentTo(id, 2);
      assert.equal(
        sent.map((event) => (event.data["store"] as { onlineOrdering: { status: string } }).onlineOrdering.status),
        ["PAUSED", "ACCEPTING"],
      );
      assert.equal(sent[1]!.data, { companyId: world.companyId, store: resumed });
    }
    const firstNow = await merchant.stores.get(first!.id);
    assert.equal(firstNow.onlineOrdering, { status: "ACCEPTING" }, "the first store is never turned");
    assert.equal(await sentTo(itemsOnly, 0), []);
  },
);

Events("a category's PATCH sends category.updated from its transaction; a refused one sends nothing", async () => {
  const world = await newSeededWorld(test, clock, "http://127.0.0.1:9/menu/2", Product.FULL);
  const { client } = clientFor(test, world, clock);
  await client.connectSandbox(world.companyId);
  const merchant = client.merchant(world.companyId);
  const { endpoint } = await client.webhookEndpoints.create({
    url: "http://127.0.0.1:9/hooks/categories",
    events: ["category.updated"],
  });
  const [category, other] = (await merchant.categories.list({ limit: 2 })).categories;
  const reordered = await merchant.categories.update(category!.id, {
    sortOrder: 4,
    itemIds: [...category!.itemIds].reverse(),
  });
  assert.equal(reordered.itemIds, [...category!.itemIds].reverse());
  const refused = await merchant.categories.update(category!.id, { itemIds: other!.itemIds }).then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
  assert.is(refused, "partner.category_items_mismatch");
  const duplicate = await merchant.categories.update(category!.id, { name: other!.name }).then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
  assert.is(duplicate, "db.duplicate");
  const sent = await sentTo(endpoint.id, 1);
  assert.equal(
    sent.map((event) => event.type),
    ["category.updated"],
    "the refused writes sent nothing",
  );
  assert.equal(
    sent[0]!.data,
    { companyId: world.companyId, category: reordered },
    "the category as the PATCH answered",
  );
});

Events.run();
