// Modifier groups of the menu (issue 39), over real ports: an item created with its groups answers them (ids, order,
// prices) on POST, GET /v1/items/{id} and GET /v1/items; `available` per store on each modifier only when the read
// names a store; a modifier sold out in one store (PUT .../modifiers/{id}/availability) and not in another; every
// refusal with its status, code and field, and nothing written by a refused write (a PATCH naming modifierGroups,
// which only a creation takes, included).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import {
  call,
  onlineOrderMerchant,
  startOrdersWorld,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Modifiers = suite<{ world: OrdersWorld; merchant: Merchant; full: () => string }>(
  "data/menu-modifiers",
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

Modifiers.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
  context.full = await fullApp(context.world, context.merchant);
});

Modifiers.after(async ({ world }) => {
  await world.gw.stop();
});

const groupsBody = [
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
    maxSelections: 2,
    modifiers: [
      { name: "Oat milk", priceMinor: 3000 },
      { name: "Extra shot", priceMinor: 5000 },
      { name: "Syrup", priceMinor: 2500 },
    ],
  },
];

/** The groups as answered, without ids or availability: what was written. */
const shapeOf = (
  groups: Array<{
    name: string;
    minSelections?: number;
    maxSelections: number;
    modifiers: Array<{ name: string; priceMinor: number }>;
  }>,
) =>
  groups.map((group) => ({
    name: group.name,
    minSelections: group.minSelections ?? 0,
    maxSelections: group.maxSelections,
    modifiers: group.modifiers.map((modifier) => [modifier.name, modifier.priceMinor]),
  }));

async function itemCount(world: OrdersWorld, merchant: Merchant): Promise<{ items: number; groups: number }> {
  const sql = world.gw.app.regionDatabases.get(merchant.fixture.region)!.sql;
  const schema = `region_${merchant.fixture.region}`;
  const [row] = await sql<{ items: number; groups: number }[]>`
    select (select count(*)::int from ${sql(`${schema}.items`)} where company_id = ${merchant.fixture.companyId}) as items,
      (select count(*)::int from ${sql(`${schema}.modifier_groups`)} where company_id = ${merchant.fixture.companyId}) as groups`;
  return row!;
}

Modifiers(
  "an item created with modifier groups answers them, in order, on POST, GET /v1/items/{id} and the list",
  async ({ world, merchant, full }) => {
    const created = await call(world, full(), "POST", "/v1/items", {
      name: "Latte",
      code: "LATTE-M1",
      priceMinor: 18000,
      modifierGroups: groupsBody,
    });
    assert.is(created.status, 200);
    const item = created.body.item;
    assert.equal(shapeOf(item.modifierGroups), shapeOf(groupsBody));
    const ids = item.modifierGroups.flatMap((group: { id: number; modifiers: Array<{ id: number }> }) => [
      group.id,
      ...group.modifiers.map((modifier) => modifier.id),
    ]);
    assert.ok(ids.every((id: unknown) => Number.isInteger(id) && (id as number) > 0));
    assert.ok(
      item.modifierGroups.every((group: { modifiers: Array<{ available?: boolean }> }) =>
        group.modifiers.every((modifier) => modifier.available === undefined),
      ),
      "no store named: no availability",
    );
    const one = await call(world, world.gw.token(merchant.fixture), "GET", `/v1/items/${item.id}`);
    assert.equal([one.status, one.body.item.modifierGroups], [200, item.modifierGroups]);
    const inStore = await call(
      world,
      world.gw.token(merchant.fixture),
      "GET",
      `/v1/items/${item.id}?storeId=${merchant.storeIds[0]}`,
    );
    assert.ok(
      inStore.body.item.modifierGroups.every((group: { modifiers: Array<{ available?: boolean }> }) =>
        group.modifiers.every((modifier) => modifier.available === true),
      ),
    );
    let cursor: string | undefined;
    let listed: { modifierGroups: unknown } | undefined;
    do {
      const page = await call(
        world,
        world.gw.token(merchant.fixture),
        "GET",
        `/v1/items?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
      );
      listed ??= page.body.items.find((entry: { id: number }) => entry.id === item.id);
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.equal(listed?.modifierGroups, item.modifierGroups);
    const plain = await call(world, world.gw.token(merchant.fixture), "GET", `/v1/items/${merchant.items[0]!.id}`);
    assert.equal(plain.body.item.modifierGroups, [], "an item without groups answers an empty list");
  },
);

Modifiers(
  "a PATCH cannot change an item's groups: modifierGroups is refused as an unknown field, and the groups stay",
  async ({ world, merchant, full }) => {
    const created = await call(world, full(), "POST", "/v1/items", {
      name: "Flat white",
      code: "FLAT-M1",
      priceMinor: 17000,
      modifierGroups: groupsBody,
    });
    const id = created.body.item.id;
    const patched = await call(world, full(), "PATCH", `/v1/items/${id}`, {
      name: "Flat white, large cup",
      modifierGroups: [groupsBody[1]],
    });
    assert.equal(
      [patched.status, patched.body.code, patched.body.message, patched.body.params],
      [400, undefined, "Invalid or unknown fields: modifierGroups.", { fields: "modifierGroups" }],
    );
    const read = await call(world, world.gw.token(merchant.fixture), "GET", `/v1/items/${id}`);
    assert.equal(
      [read.body.item.name, read.body.item.modifierGroups],
      ["Flat white", created.body.item.modifierGroups],
      "nothing written",
    );
  },
);

Modifiers(
  "a modifier sold out in one store until a time: available elsewhere, again after it, and the item's updatedAt moves",
  async ({ world, merchant, full }) => {
    const created = await call(world, full(), "POST", "/v1/items", {
      name: "Mocha",
      code: "MOCHA-M1",
      priceMinor: 19000,
      modifierGroups: groupsBody,
    });
    const large = created.body.item.modifierGroups[0].modifiers[1];
    const [store1, store2] = merchant.storeIds;
    world.gw.clock.advance(1000);
    const until = new Date(world.gw.clock.now() + 30 * 60_000).toISOString();
    const soldOut = await call(world, full(), "PUT", `/v1/stores/${store1}/modifiers/${large.id}/availability`, {
      available: false,
      unavailableUntil: until,
    });
    assert.is(soldOut.status, 200);
    const answered = soldOut.body.item.modifierGroups[0].modifiers[1];
    assert.equal([answered.id, answered.available, answered.unavailableUntil], [large.id, false, until]);
    assert.is(soldOut.body.item.modifierGroups[0].modifiers[0].available, true);
    assert.is(soldOut.body.item.updatedAt, new Date(world.gw.clock.now()).toISOString().replace("Z", "000Z"));
    const elsewhere = await call(
      world,
      world.gw.token(merchant.fixture),
      "GET",
      `/v1/items/${created.body.item.id}?storeId=${store2}`,
    );
    assert.is(elsewhere.body.item.modifierGroups[0].modifiers[1].available, true);
    world.gw.clock.advance(30 * 60_000);
    const later = await call(
      world,
      world.gw.token(merchant.fixture),
      "GET",
      `/v1/items/${created.body.item.id}?storeId=${store1}`,
    );
    assert.equal(
      [
        later.body.item.modifierGroups[0].modifiers[1].available,
        later.body.item.modifierGroups[0].modifiers[1].unavailableUntil,
      ],
      [true, undefined],
    );
    const missing = await call(world, full(), "PUT", `/v1/stores/${store1}/modifiers/987654321/availability`, {
      available: false,
    });
    assert.equal(
      [missing.status, missing.body.code, missing.body.params],
      [404, "partner.modifier_not_found", { field: "modifierId" }],
    );
    const wrongStore = await call(world, full(), "PUT", `/v1/stores/987654321/modifiers/${large.id}/availability`, {
      available: false,
    });
    assert.equal(
      [wrongStore.status, wrongStore.body.code, wrongStore.body.params],
      [404, "partner.store_not_found", { field: "storeId" }],
    );
    const byOrderApp = await call(
      world,
      world.gw.token(merchant.fixture),
      "PUT",
      `/v1/stores/${store1}/modifiers/${large.id}/availability`,
      {
        available: false,
      },
    );
    assert.equal([byOrderApp.status, byOrderApp.body.code], [403, "partner.scope_denied"]);
  },
);

Modifiers(
  "creations with bad groups are refused naming the field, and write nothing",
  async ({ world, merchant, full }) => {
    const before = await itemCount(world, merchant);
    const base = { name: "Tea", code: "TEA-M1", priceMinor: 9000 };
    const group = groupsBody[0]!;
    const cases: Array<[unknown, number, string | undefined, string]> = [
      [
        [{ ...group, minSelections: 2, maxSelections: 1 }],
        400,
        "partner.modifier_group_invalid",
        "modifierGroups[0].minSelections",
      ],
      [
        [{ ...group, minSelections: 0, maxSelections: 3 }],
        400,
        "partner.modifier_group_invalid",
        "modifierGroups[0].maxSelections",
      ],
      [[group, { ...group }], 400, "partner.modifier_group_invalid", "modifierGroups[1].name"],
      [
        [{ ...group, modifiers: [group.modifiers[0], group.modifiers[0]] }],
        400,
        "partner.modifier_group_invalid",
        "modifierGroups[0].modifiers[1].name",
      ],
      [[{ ...group, id: 5 }], 404, "partner.modifier_not_found", "modifierGroups[0].id"],
    ];
    for (const [modifierGroups, status, code, field] of cases) {
      const refused = await call(world, full(), "POST", "/v1/items", { ...base, modifierGroups });
      assert.equal([refused.status, refused.body.code, refused.body.params], [status, code, { field }], field);
    }
    const empty = await call(world, full(), "POST", "/v1/items", {
      ...base,
      modifierGroups: [{ ...group, modifiers: [] }],
    });
    assert.is(empty.status, 400);
    assert.is(empty.body.code, undefined, "a validation failure of the front: no code");
    const negative = await call(world, full(), "POST", "/v1/items", {
      ...base,
      modifierGroups: [{ ...group, modifiers: [{ name: "Free", priceMinor: -1 }] }],
    });
    assert.is(negative.status, 400);
    assert.equal(await itemCount(world, merchant), before, "nothing written");
    const duplicateCode = await call(world, full(), "POST", "/v1/items", {
      ...base,
      code: merchant.items[0]!.code,
      modifierGroups: [group],
    });
    assert.equal([duplicateCode.status, duplicateCode.body.code], [409, "db.duplicate"]);
    assert.equal(await itemCount(world, merchant), before, "the item's groups rolled back with it");
  },
);

Modifiers.run();
