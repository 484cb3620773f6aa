// Order lines with modifiers (issue 39), over real ports: priced from the catalogue at placing and copied onto the
// line (a later price change does not touch the order), the line total including them, the same lines on GET, the
// list and the change feed; each refusal with its status, code and field, and nothing written: a required group
// left out, too many from a group, a modifier of another item or unknown, one sold out in that store (and only
// there, and not once its unavailableUntil has passed), the same modifier twice.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import {
  call,
  onlineOrderMerchant,
  orderBody,
  orderCount,
  startOrdersWorld,
  type Json,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

interface Menu {
  itemId: number;
  price: number;
  /** Group ids, and modifier ids by name. */
  size: number;
  extras: number;
  modifier: Record<string, number>;
  /** A modifier of another item. */
  otherItemsModifier: number;
}

const Orders = suite<{ world: OrdersWorld; merchant: Merchant; full: () => string; menu: Menu }>(
  "data/order-modifiers",
  {} as never,
);

/** A FULL app (items.write) of another organization connected to the merchant; its token minted now. */
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

const groups = [
  {
    name: "Size",
    minSelections: 1,
    maxSelections: 1,
    modifiers: [
      { name: "Regular", priceMinor: 0 },
      { name: "Large", priceMinor: 4000 },
    ],
  },
  {
    name: "Extras",
    minSelections: 0,
    maxSelections: 3,
    modifiers: [
      { name: "Oat milk", priceMinor: 3000 },
      { name: "Extra shot", priceMinor: 5000 },
      { name: "Syrup", priceMinor: 2500 },
      { name: "Cream", priceMinor: 1500 },
    ],
  },
];

Orders.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
  context.full = await fullApp(context.world, context.merchant);
  const created = await call(context.world, context.full(), "POST", "/v1/items", {
    name: "Latte",
    code: "LATTE-OM",
    priceMinor: 18000,
    modifierGroups: groups,
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const other = await call(context.world, context.full(), "POST", "/v1/items", {
    name: "Tea",
    code: "TEA-OM",
    priceMinor: 9000,
    modifierGroups: [{ name: "Milk", maxSelections: 1, modifiers: [{ name: "Oat", priceMinor: 1000 }] }],
  });
  const item = created.body.item;
  const modifier: Record<string, number> = {};
  for (const group of item.modifierGroups as Json[])
    for (const entry of group.modifiers as Json[]) modifier[entry.name] = entry.id;
  context.menu = {
    itemId: item.id,
    price: 18000,
    size: item.modifierGroups[0].id,
    extras: item.modifierGroups[1].id,
    modifier,
    otherItemsModifier: other.body.item.modifierGroups[0].modifiers[0].id,
  };
});

Orders.after(async ({ world }) => {
  await world.gw.stop();
});

/** A body whose one line is the latte, twice, with `modifiers`. */
const latte = (merchant: Merchant, menu: Menu, modifiers: unknown[], overrides: Record<string, unknown> = {}) =>
  orderBody(merchant, { lines: [{ itemId: menu.itemId, quantity: 2, modifiers }], ...overrides });

Orders(
  "modifiers are priced from the catalogue, copied onto the line and counted in its total; GET, the list and the feed say the same",
  async ({ world, merchant, menu }) => {
    const token = world.gw.token(merchant.fixture);
    const body = orderBody(merchant, {
      lines: [
        { itemId: merchant.items[0]!.id, quantity: 1 },
        {
          itemId: menu.itemId,
          quantity: 2,
          note: "extra hot",
          modifiers: [
            { modifierId: menu.modifier["Large"] },
            { modifierId: menu.modifier["Extra shot"], quantity: 2 },
            { modifierId: menu.modifier["Syrup"], quantity: 1 },
          ],
        },
      ],
    });
    const placed = await call(world, token, "POST", "/v1/online-orders", body);
    assert.is(placed.status, 200, JSON.stringify(placed.body));
    const order = placed.body.order;
    // One latte: 18000 + Large 4000 + two extra shots 2 × 5000 + syrup 2500 = 34500; the line is two of them.
    assert.equal(order.lines[1], {
      name: "Latte",
      quantity: 2,
      totalMinor: 69_000,
      itemCode: "LATTE-OM",
      unitPriceMinor: 18_000,
      note: "extra hot",
      modifiers: [
        { name: "Large", priceMinor: 4000, quantity: 1 },
        { name: "Extra shot", priceMinor: 5000, quantity: 2 },
        { name: "Syrup", priceMinor: 2500, quantity: 1 },
      ],
    });
    assert.equal(order.lines[0].modifiers, [], "a line without modifiers answers an empty list");
    assert.is(order.totalMinor, merchant.items[0]!.price + 69_000);

    // The catalogue changing later does not change the order: the modifiers were copied.
    const sql = world.gw.app.regionDatabases.get(merchant.fixture.region)!.sql;
    const modifiers = sql(`region_${merchant.fixture.region}.modifiers`);
    const ids = Object.values(menu.modifier);
    await sql`update ${modifiers} set price_minor = price_minor + 1, name = name || ' (new)' where id = any(${ids}::bigint[])`;
    const read = await call(world, token, "GET", `/v1/online-orders/${order.id}`);
    assert.equal([read.status, read.body.order], [200, order]);
    const listed = await call(world, token, "GET", `/v1/online-orders?externalReference=${body["externalReference"]}`);
    assert.equal(listed.body.orders, [order]);
    const feed = await call(
      world,
      token,
      "GET",
      `/v1/online-orders?updatedFrom=${encodeURIComponent(order.updatedAt)}&limit=100`,
    );
    assert.equal(
      feed.body.orders.find((entry: Json) => entry.id === order.id),
      order,
    );

    // A new order takes the new prices and names.
    const again = await call(
      world,
      token,
      "POST",
      "/v1/online-orders",
      latte(merchant, menu, [{ modifierId: menu.modifier["Regular"] }]),
    );
    assert.equal(again.body.order.lines[0].modifiers, [{ name: "Regular (new)", priceMinor: 1, quantity: 1 }]);
    assert.is(again.body.order.lines[0].totalMinor, 2 * (18_000 + 1));
    // Put the menu back for the other tests.
    await sql`update ${modifiers} set price_minor = price_minor - 1, name = left(name, -6) where id = any(${ids}::bigint[])`;
  },
);

Orders(
  "each group's selections within its min and max: a required group left out, too many, quantities counted",
  async ({ world, merchant, menu }) => {
    const token = world.gw.token(merchant.fixture);
    const before = await orderCount(world, merchant);
    const refusal = async (modifiers: unknown[]) => {
      const answer = await call(world, token, "POST", "/v1/online-orders", latte(merchant, menu, modifiers));
      return [answer.status, answer.body.code, answer.body.params];
    };
    const out = (groupId: number, min: number, max: number) => [
      400,
      "partner.modifier_selections_out_of_range",
      { field: "lines.0.modifiers", groupId, minSelections: min, maxSelections: max },
    ];
    assert.equal(await refusal([]), out(menu.size, 1, 1), "the required size left out");
    assert.equal(
      await refusal([{ modifierId: menu.modifier["Oat milk"] }]),
      out(menu.size, 1, 1),
      "extras without a size",
    );
    assert.equal(
      await refusal([{ modifierId: menu.modifier["Regular"] }, { modifierId: menu.modifier["Large"] }]),
      out(menu.size, 1, 1),
      "two sizes",
    );
    assert.equal(
      await refusal([{ modifierId: menu.modifier["Regular"], quantity: 2 }]),
      out(menu.size, 1, 1),
      "one size twice over",
    );
    assert.equal(
      await refusal([
        { modifierId: menu.modifier["Regular"] },
        { modifierId: menu.modifier["Oat milk"], quantity: 2 },
        { modifierId: menu.modifier["Syrup"], quantity: 2 },
      ]),
      out(menu.extras, 0, 3),
      "four extras where three are allowed",
    );
    const plain = await call(
      world,
      token,
      "POST",
      "/v1/online-orders",
      orderBody(merchant, {
        lines: [{ itemId: merchant.items[0]!.id, quantity: 1, modifiers: [{ modifierId: menu.modifier["Large"] }] }],
      }),
    );
    assert.equal(
      [plain.status, plain.body.code, plain.body.params],
      [404, "partner.modifier_not_found", { field: "lines.0.modifiers.0.modifierId" }],
      "an item without groups takes no modifiers",
    );
    assert.equal(await orderCount(world, merchant), before, "nothing written");
    const most = await call(
      world,
      token,
      "POST",
      "/v1/online-orders",
      latte(merchant, menu, [
        { modifierId: menu.modifier["Regular"] },
        { modifierId: menu.modifier["Oat milk"], quantity: 2 },
        { modifierId: menu.modifier["Syrup"] },
      ]),
    );
    assert.is(most.status, 200, "exactly the maximum");
    assert.is(most.body.order.lines[0].totalMinor, 2 * (18_000 + 2 * 3000 + 2500));
  },
);

Orders(
  "a modifier that is not the line's item's, or unknown, or given twice is refused with its field; nothing written",
  async ({ world, merchant, menu }) => {
    const token = world.gw.token(merchant.fixture);
    const before = await orderCount(world, merchant);
    const answer = async (modifiers: unknown[]) => {
      const result = await call(world, token, "POST", "/v1/online-orders", latte(merchant, menu, modifiers));
      return [result.status, result.body.code, result.body.params];
    };
    const regular = { modifierId: menu.modifier["Regular"] };
    assert.equal(await answer([regular, { modifierId: menu.otherItemsModifier }]), [
      404,
      "partner.modifier_not_found",
      { field: "lines.0.modifiers.1.modifierId" },
    ]);
    assert.equal(await answer([{ modifierId: 987_654_321 }, regular]), [
      404,
      "partner.modifier_not_found",
      { field: "lines.0.modifiers.0.modifierId" },
    ]);
    const twice = await call(
      world,
      token,
      "POST",
      "/v1/online-orders",
      latte(merchant, menu, [regular, { modifierId: menu.modifier["Syrup"] }, { modifierId: menu.modifier["Syrup"] }]),
    );
    assert.is(twice.status, 400);
    assert.is(twice.body.code, undefined);
    assert.is(twice.body.params.fields, "lines.0.modifiers.2.modifierId");
    const shapes: Array<[unknown, string]> = [
      [{ modifierId: 0 }, "lines.0.modifiers.0.modifierId"],
      [{ quantity: 1 }, "lines.0.modifiers.0.modifierId"],
      [{ modifierId: menu.modifier["Regular"], quantity: 0 }, "lines.0.modifiers.0.quantity"],
      [{ modifierId: menu.modifier["Regular"], quantity: 51 }, "lines.0.modifiers.0.quantity"],
    ];
    for (const [bad, field] of shapes) {
      const shape = await call(world, token, "POST", "/v1/online-orders", latte(merchant, menu, [bad]));
      assert.equal(
        [shape.status, shape.body.code, shape.body.params.fields],
        [400, undefined, field],
        JSON.stringify(bad),
      );
    }
    assert.equal(await orderCount(world, merchant), before, "nothing written");
  },
);

Orders(
  "a modifier sold out in one store is refused there only, until its unavailableUntil",
  async ({ world, merchant, full, menu }) => {
    const { gw } = world;
    const token = () => gw.token(merchant.fixture);
    const [store1, store2] = merchant.storeIds;
    const until = new Date(gw.clock.now() + 10 * 60_000).toISOString();
    const soldOut = await call(
      world,
      full(),
      "PUT",
      `/v1/stores/${store1}/modifiers/${menu.modifier["Syrup"]}/availability`,
      {
        available: false,
        unavailableUntil: until,
      },
    );
    assert.is(soldOut.status, 200);
    // Store 2 keeps a café's hours: made open around the clock, so only the modifier decides there.
    await world.pos.updateStoreDetails({
      companyId: BigInt(merchant.fixture.companyId),
      id: BigInt(store2!),
      openingHours: {
        weekly: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, ranges: [{ open: "00:00", close: "24:00" }] })),
      } as never,
    });
    const modifiers = [{ modifierId: menu.modifier["Regular"] }, { modifierId: menu.modifier["Syrup"] }];
    const before = await orderCount(world, merchant);
    const refused = await call(world, token(), "POST", "/v1/online-orders", latte(merchant, menu, modifiers));
    assert.equal(
      [refused.status, refused.body.code, refused.body.params],
      [409, "partner.modifier_sold_out", { field: "lines.0.modifiers.1.modifierId" }],
    );
    assert.equal(await orderCount(world, merchant), before, "nothing written");
    const elsewhere = await call(
      world,
      token(),
      "POST",
      "/v1/online-orders",
      latte(merchant, menu, modifiers, { storeId: store2 }),
    );
    assert.is(elsewhere.status, 200, JSON.stringify(elsewhere.body));
    gw.clock.advance(10 * 60_000);
    const back = await call(world, token(), "POST", "/v1/online-orders", latte(merchant, menu, modifiers));
    assert.is(back.status, 200, "on sale again at unavailableUntil");
  },
);

Orders.run();
