// The menu a sandbox merchant starts with (issue 39), over real ports with the partner client: stores with hours in
// the region's zone, items with modifier groups (a required pick-one, an optional pick-up-to-three), the seeded
// modifier sold out in store 2 only; an order with modifiers on it refused without its required group and placed
// with it, and the online_order.created webhook carrying the same copied lines as GET.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createMemoryTokenStore, createPartnerClient, PartnerApiError } from "../../src/client/index.js";
import { seededMenu } from "../../src/data/seed-menu.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { newApp, newOrganization, newSandboxMerchant } from "../support/sandbox.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const Seeded = suite("data/seeded-menu");
// Webhooks are signed with the app's clock and verified against the real one: the clock starts at real time.
const clock = createManualClock(Date.now());
let test: TestApp;
let receiver: Receiver;

Seeded.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { WEBHOOK_ALLOW_LOOPBACK: "1" } });
  receiver = await startReceiver("ok");
});

Seeded.after(async () => {
  await receiver?.close();
  await test?.stop();
});

Seeded(
  "a sandbox merchant's seeded menu: hours in its zone, modifier groups, one modifier sold out in store 2; an order with modifiers and its webhook",
  async () => {
    const credentials = credentialServiceOf(test, clock);
    const organizationId = await newOrganization(credentials);
    const sandbox = await newSandboxMerchant(credentials, organizationId, "GB");
    const app = await newApp(credentials, organizationId, Product.ONLINE_ORDER);
    const client = createPartnerClient({ baseUrl: test.base, ...app.sandbox, tokenStore: createMemoryTokenStore() });
    const created = await client.webhookEndpoints.create({ url: receiver.url });
    receiver.secrets.push(created.secret);
    await client.connectSandbox(sandbox.companyId);
    const merchant = client.merchant(sandbox.companyId);

    const { stores } = await merchant.stores.list();
    assert.equal(
      stores.map((store) => [store.timeZone, store.openingHours !== undefined, store.onlineOrdering.status]),
      [
        ["Europe/London", true, "ACCEPTING"],
        ["Europe/London", true, "ACCEPTING"],
      ],
    );
    const [store1, store2] = stores.map((store) => store.id);
    const { items } = await merchant.items.list({ limit: 10, storeId: store2 });
    const sandwich = items[seededMenu[0]!.itemIndex]!;
    const salad = items[seededMenu[1]!.itemIndex]!;
    const shape = (item: typeof sandwich) =>
      item.modifierGroups.map((group) => ({
        name: group.name,
        minSelections: group.minSelections,
        maxSelections: group.maxSelections,
        modifiers: group.modifiers.map((modifier) => ({ name: modifier.name, priceMinor: modifier.priceMinor })),
      }));
    assert.equal(shape(sandwich), seededMenu[0]!.groups);
    assert.equal(shape(salad), seededMenu[1]!.groups);
    assert.is(sandwich.description, seededMenu[0]!.description);
    assert.equal(
      items.filter((item) => item.available === false).map((item) => items.indexOf(item)),
      [2],
      "the third item is sold out in store 2",
    );
    assert.equal(
      items.flatMap((item, index) => (item.modifierGroups.length > 0 ? [index] : [])),
      seededMenu.map((entry) => entry.itemIndex),
      "only the seeded items have groups; the first two, which tests and the demo order, none",
    );
    const availability = (item: typeof sandwich) =>
      item.modifierGroups.flatMap((group) => group.modifiers.filter((m) => m.available === false).map((m) => m.name));
    assert.equal(availability(sandwich), ["Avocado"], "Avocado is sold out in store 2");
    assert.equal(availability(await merchant.items.get(sandwich.id, { storeId: store1 })), [], "and not in store 1");

    // Store 1 is open around the clock: an order there is judged by the menu alone.
    const [bread, extras] = sandwich.modifierGroups;
    const order = (modifiers: Array<{ modifierId: number; quantity?: number }>) =>
      merchant.orders.place({
        storeId: store1!,
        lines: [{ itemId: sandwich.id, quantity: 2, modifiers }],
        fulfilment: { type: "PICKUP" },
        customer: { name: "Seed test" },
        externalReference: `seeded-${Date.now()}`,
      });
    try {
      await order([{ modifierId: extras!.modifiers[0]!.id }]);
      assert.unreachable("the required bread was left out");
    } catch (error) {
      assert.instance(error, PartnerApiError);
      assert.is((error as PartnerApiError).code, "partner.modifier_selections_out_of_range");
      assert.is((error as PartnerApiError).status, 400);
    }
    const sourdough = bread!.modifiers[2]!;
    const [cheese, bacon] = extras!.modifiers;
    const placed = await order([
      { modifierId: sourdough.id },
      { modifierId: cheese!.id },
      { modifierId: bacon!.id, quantity: 2 },
    ]);
    const each = sandwich.priceMinor + sourdough.priceMinor + cheese!.priceMinor + 2 * bacon!.priceMinor;
    assert.equal(placed.lines[0]!.modifiers, [
      { name: "Sourdough", priceMinor: 60, quantity: 1 },
      { name: "Cheese", priceMinor: 80, quantity: 1 },
      { name: "Bacon", priceMinor: 120, quantity: 2 },
    ]);
    assert.is(placed.lines[0]!.totalMinor, 2 * each);
    assert.is(placed.totalMinor, 2 * each);

    // The webhook's order is the order as GET answers it, modifiers included.
    const read = await merchant.orders.get(placed.id);
    assert.equal(read, placed);
    let delivered: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 200 && !delivered; tries++) {
      delivered = receiver.received
        .map((entry) => entry.verified)
        .find(
          (event) => event?.type === "online_order.created" && (event.data["order"] as { id: number }).id === placed.id,
        )?.data;
      if (!delivered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(delivered, "the online_order.created webhook arrived, verified");
    assert.equal(delivered!["order"], read);
  },
);

Seeded.run();
