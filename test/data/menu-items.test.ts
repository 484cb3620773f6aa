// Items of the menu (issue 39), over real ports: a description, availability per store (the seeded sold-out item,
// a FULL app selling out and restoring with PUT .../availability, a sell-out that ends by itself on the injected
// clock), GET /v1/items/{id}, DELETE /v1/items/{id} (off the menu, orders keep their copied lines, the code free
// again), every refusal with its status, code and field, and nothing written by a refused write.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import {
  call,
  onlineOrderMerchant,
  place,
  startOrdersWorld,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Items = suite<{ world: OrdersWorld; merchant: Merchant }>("data/menu-items", {} as never);

Items.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
});

Items.after(async ({ world }) => {
  await world.gw.stop();
});

/** A token of the merchant's ONLINE_ORDER app minted now (tests move the clock past a token's lifetime). */
const orderToken = (world: OrdersWorld, merchant: Merchant) => world.gw.token(merchant.fixture);

/** A FULL app (items.write) of another organization connected to the same merchant; its token minted now. */
async function fullApp(world: OrdersWorld, merchant: Merchant): Promise<() => string> {
  const { gw } = world;
  const fixture = await gw.fixture({ product: "FULL", region: merchant.fixture.region, seed: false });
  await createGrantQueries(gw.app.control.sql).ensureLive(
    fixture.appId,
    merchant.fixture.companyId,
    merchant.fixture.env,
    new Date(gw.clock.now()),
  );
  return () => gw.token({ ...fixture, companyId: merchant.fixture.companyId });
}

Items(
  "the seeded menu: one item sold out in store 2; availability only when the list names a store",
  async ({ world, merchant }) => {
    const [store1, store2] = merchant.storeIds;
    const plain = await call(world, orderToken(world, merchant), "GET", "/v1/items?limit=5");
    assert.is(plain.status, 200);
    assert.ok(plain.body.items.every((item: { available?: boolean }) => item.available === undefined));
    const inStore2 = await call(world, orderToken(world, merchant), "GET", `/v1/items?limit=5&storeId=${store2}`);
    assert.equal(
      inStore2.body.items.map((item: { id: number; available: boolean }) => [item.id, item.available]),
      merchant.items.slice(0, 5).map((item, index) => [item.id, index !== 2]),
    );
    const inStore1 = await call(world, orderToken(world, merchant), "GET", `/v1/items?limit=5&storeId=${store1}`);
    assert.ok(inStore1.body.items.every((item: { available: boolean }) => item.available === true));
    const one = await call(
      world,
      orderToken(world, merchant),
      "GET",
      `/v1/items/${merchant.items[2]!.id}?storeId=${store2}`,
    );
    assert.equal(
      [one.status, one.body.item.id, one.body.item.available, one.body.item.unavailableUntil],
      [200, merchant.items[2]!.id, false, undefined],
    );
    for (const path of ["/v1/items?storeId=987654321", `/v1/items/${merchant.items[0]!.id}?storeId=987654321`]) {
      const unknown = await call(world, orderToken(world, merchant), "GET", path);
      assert.equal(
        [unknown.status, unknown.body.code, unknown.body.params],
        [404, "partner.store_not_found", { field: "storeId" }],
      );
    }
    const missing = await call(world, orderToken(world, merchant), "GET", "/v1/items/987654321");
    assert.equal(
      [missing.status, missing.body.code, missing.body.params],
      [404, "partner.item_not_found", { field: "id" }],
    );
  },
);

Items(
  "a FULL app sells an item out in one store until a time; it sells again after it, and when set available",
  async ({ world, merchant }) => {
    const full = await fullApp(world, merchant);
    const [store1, store2] = merchant.storeIds;
    const item = merchant.items[0]!;
    const until = new Date(world.gw.clock.now() + 60 * 60_000).toISOString();
    const path = `/v1/stores/${store1}/items/${item.id}/availability`;
    const soldOut = await call(world, full(), "PUT", path, { available: false, unavailableUntil: until });
    assert.is(soldOut.status, 200);
    assert.equal(
      [soldOut.body.item.id, soldOut.body.item.available, soldOut.body.item.unavailableUntil],
      [item.id, false, until],
    );
    // The change's stamp, to the microsecond: now, or just after a change made at the same instant.
    assert.is(
      Date.parse(soldOut.body.item.updatedAt),
      world.gw.clock.now(),
      "an availability change is an item change",
    );
    const elsewhere = await call(world, full(), "GET", `/v1/items/${item.id}?storeId=${store2}`);
    assert.is(elsewhere.body.item.available, true, "sold out in one store only");
    world.gw.clock.advance(60 * 60_000);
    const later = await call(world, orderToken(world, merchant), "GET", `/v1/items/${item.id}?storeId=${store1}`);
    assert.equal([later.body.item.available, later.body.item.unavailableUntil], [true, undefined]);
    await call(world, full(), "PUT", path, { available: false });
    const indefinite = await call(world, full(), "GET", `/v1/items/${item.id}?storeId=${store1}`);
    assert.equal([indefinite.body.item.available, indefinite.body.item.unavailableUntil], [false, undefined]);
    const back = await call(world, full(), "PUT", path, { available: true });
    assert.equal([back.status, back.body.item.available], [200, true]);
  },
);

Items(
  "availability writes refused: bad bodies (400 naming the field), unknown store or item (404), no items.write (403); nothing written",
  async ({ world, merchant }) => {
    const full = await fullApp(world, merchant);
    const [store1] = merchant.storeIds;
    const item = merchant.items[1]!;
    const path = `/v1/stores/${store1}/items/${item.id}/availability`;
    const before = await call(world, full(), "GET", `/v1/items/${item.id}?storeId=${store1}`);
    const soon = new Date(world.gw.clock.now() + 60_000).toISOString();
    const past = new Date(world.gw.clock.now() - 60_000).toISOString();
    const bodies: Array<[unknown, string]> = [
      [{}, "available"],
      [{ available: "no" }, "available"],
      [{ available: true, unavailableUntil: soon }, "unavailableUntil"],
      [{ available: false, unavailableUntil: past }, "unavailableUntil"],
      [{ available: false, unavailableUntil: "tonight" }, "unavailableUntil"],
      [{ available: false, extra: 1 }, "extra"],
    ];
    for (const [body, field] of bodies) {
      const answer = await call(world, full(), "PUT", path, body);
      assert.equal(
        [answer.status, answer.body.code, answer.body.params],
        [400, undefined, { fields: field }],
        JSON.stringify(body),
      );
    }
    const noStore = await call(world, full(), "PUT", `/v1/stores/987654321/items/${item.id}/availability`, {
      available: false,
    });
    assert.equal(
      [noStore.status, noStore.body.code, noStore.body.params],
      [404, "partner.store_not_found", { field: "storeId" }],
    );
    const other = await onlineOrderMerchant(world);
    const theirs = await call(world, full(), "PUT", `/v1/stores/${other.storeIds[0]}/items/${item.id}/availability`, {
      available: false,
    });
    assert.equal([theirs.status, theirs.body.code], [404, "partner.store_not_found"]);
    const noItem = await call(world, full(), "PUT", `/v1/stores/${store1}/items/${other.items[0]!.id}/availability`, {
      available: false,
    });
    assert.equal(
      [noItem.status, noItem.body.code, noItem.body.params],
      [404, "partner.item_not_found", { field: "itemId" }],
    );
    const readOnly = await call(world, orderToken(world, merchant), "PUT", path, { available: false });
    assert.equal([readOnly.status, readOnly.body.code], [403, "partner.scope_denied"]);
    const after = await call(world, full(), "GET", `/v1/items/${item.id}?storeId=${store1}`);
    assert.equal(after.body, before.body, "no refused write changed the item or its availability");
    const sql = world.gw.app.regionDatabases.get("in")!.sql;
    const [rows] = await sql<{ count: number }[]>`
    select count(*)::int as count from region_in.item_store_availability where company_id = ${other.fixture.companyId} and item_id = ${item.id}`;
    assert.is(rows!.count, 0);
  },
);

Items(
  "DELETE /v1/items/{id}: off the menu, the order placed before keeps its line, its code free again",
  async ({ world, merchant }) => {
    const full = await fullApp(world, merchant);
    const created = await call(world, full(), "POST", "/v1/items", {
      name: "Masala chai",
      code: `CHAI-${merchant.fixture.companyId}`,
      priceMinor: 4000,
      description: "Spiced tea\nwith milk",
    });
    assert.equal([created.status, created.body.item.description], [200, "Spiced tea\nwith milk"]);
    const item = created.body.item;
    const patched = await call(world, full(), "PATCH", `/v1/items/${item.id}`, { description: "Spiced tea" });
    assert.is(patched.body.item.description, "Spiced tea");
    const order = await place(
      world,
      merchant,
      { lines: [{ itemId: item.id, quantity: 2 }] },
      orderToken(world, merchant),
    );
    const gone = await call(world, full(), "DELETE", `/v1/items/${item.id}`);
    assert.equal([gone.status, gone.body], [200, {}]);
    const read = await call(world, full(), "GET", `/v1/items/${item.id}`);
    assert.equal([read.status, read.body.code, read.body.params], [404, "partner.item_not_found", { field: "id" }]);
    const again = await call(world, full(), "DELETE", `/v1/items/${item.id}`);
    assert.equal([again.status, again.body.code], [404, "partner.item_not_found"]);
    const patch = await call(world, full(), "PATCH", `/v1/items/${item.id}`, { name: "Chai" });
    assert.equal([patch.status, patch.body.code], [404, "db.not_found"]);
    const listed = await menuIds(world, full);
    assert.ok(listed.length >= merchant.items.length && !listed.includes(item.id), "not listed");
    const kept = await call(world, orderToken(world, merchant), "GET", `/v1/online-orders/${order.id}`);
    assert.equal(kept.body.order.lines[0], { ...order.lines[0] });
    assert.is(kept.body.order.lines[0].name, "Masala chai");
    const placing = await call(world, orderToken(world, merchant), "POST", "/v1/online-orders", {
      storeId: merchant.storeIds[0],
      lines: [{ itemId: item.id, quantity: 1 }],
      fulfilment: { type: "PICKUP" },
      customer: { name: "Late" },
      externalReference: `late-${item.id}`,
    });
    assert.equal(
      [placing.status, placing.body.code, placing.body.params],
      [404, "partner.item_not_found", { field: "lines.0.itemId" }],
    );
    const reused = await call(world, full(), "POST", "/v1/items", {
      name: "Masala chai",
      code: item.code,
      priceMinor: 4500,
    });
    assert.is(reused.status, 200, "a deleted item's code is free again");
    const clash = await call(world, full(), "POST", "/v1/items", {
      name: "Chai again",
      code: item.code,
      priceMinor: 1,
    });
    assert.equal([clash.status, clash.body.code, clash.body.params], [409, "db.duplicate", { field: "code" }]);
    const readOnly = await call(world, orderToken(world, merchant), "DELETE", `/v1/items/${reused.body.item.id}`);
    assert.equal([readOnly.status, readOnly.body.code], [403, "partner.scope_denied"]);
  },
);

/** Every item id of the merchant's menu, page after page. */
async function menuIds(world: OrdersWorld, token: () => string): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined;
  do {
    const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page = await call(world, token(), "GET", `/v1/items?limit=100${query}`);
    ids.push(...page.body.items.map((row: { id: number }) => row.id));
    cursor = page.body.nextCursor;
  } while (cursor);
  return ids;
}

Items.run();
