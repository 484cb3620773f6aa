// Categories of the menu (issue 39), over real ports: each answers its sortOrder and its items on the menu in menu
// order (itemIds), PATCH /v1/categories/{id} changes its fields and its items' order (a FULL app, categories.write),
// an item created in, moved out of or deleted from a category changes the category (a new updatedAt), and every
// refusal answers its status, code and field with nothing written.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import {
  call,
  onlineOrderMerchant,
  startOrdersWorld,
  type Json,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Categories = suite<{ world: OrdersWorld; merchant: Merchant; full: () => string }>(
  "data/menu-categories",
  {} as never,
);

Categories.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
  const { gw } = context.world;
  const fixture = await gw.fixture({ product: "FULL", region: context.merchant.fixture.region, seed: false });
  await createGrantQueries(gw.app.control.sql).ensureLive(
    fixture.appId,
    context.merchant.fixture.companyId,
    context.merchant.fixture.env,
    new Date(gw.clock.now()),
  );
  context.full = () => gw.token({ ...fixture, companyId: context.merchant.fixture.companyId });
});

Categories.after(async ({ world }) => {
  await world.gw.stop();
});

/** A category of its own with three new items in it; the items' ids in creation order. */
async function categoryWithItems(world: OrdersWorld, full: () => string, name: string) {
  const made = await call(world, full(), "POST", "/v1/categories", { name, code: name.toUpperCase() });
  assert.is(made.status, 200, JSON.stringify(made.body));
  const category = made.body.category;
  const itemIds: number[] = [];
  for (const n of [1, 2, 3]) {
    const item = await call(world, full(), "POST", "/v1/items", {
      name: `${name} ${n}`,
      code: `${name.toUpperCase()}-${n}`,
      priceMinor: 100 * n,
      categoryId: category.id,
    });
    assert.is(item.status, 200, JSON.stringify(item.body));
    itemIds.push(item.body.item.id);
  }
  return { id: category.id as number, itemIds };
}

const read = async (world: OrdersWorld, token: string, id: number): Promise<Json> => {
  const listed = await call(world, token, "GET", "/v1/categories?limit=100");
  return listed.body.categories.find((category: Json) => category.id === id);
};

Categories(
  "the list answers each category's sortOrder and its items in menu order; the seeded ones hold the seeded items",
  async ({ world, merchant }) => {
    const listed = await call(world, merchant.token, "GET", "/v1/categories?limit=100");
    assert.is(listed.status, 200);
    const held = listed.body.categories
      .flatMap((category: Json) => category.itemIds)
      .sort((a: number, b: number) => a - b);
    assert.equal(
      held,
      merchant.items.map((item) => item.id),
      "every seeded item in exactly one category",
    );
    for (const category of listed.body.categories) {
      assert.is(category.sortOrder, 0);
      assert.equal(
        category.itemIds,
        [...category.itemIds].sort((a: number, b: number) => a - b),
        "id order unplaced",
      );
      assert.match(category.updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
  },
);

Categories(
  "PATCH changes the name, sortOrder and the items' order; an empty PATCH changes nothing",
  async ({ world, full }) => {
    const { id, itemIds } = await categoryWithItems(world, full, "Reorder");
    const [a, b, c] = itemIds as [number, number, number];
    const before = await read(world, full(), id);
    assert.equal([before.itemIds, before.sortOrder], [[a, b, c], 0]);
    world.gw.clock.advance(1_000);
    const patched = await call(world, full(), "PATCH", `/v1/categories/${id}`, {
      name: "Reordered",
      sortOrder: 3,
      itemIds: [c, a, b],
    });
    assert.is(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(
      [
        patched.body.category.name,
        patched.body.category.code,
        patched.body.category.sortOrder,
        patched.body.category.itemIds,
      ],
      ["Reordered", "REORDER", 3, [c, a, b]],
    );
    assert.ok(patched.body.category.updatedAt > before.updatedAt);
    assert.equal(await read(world, full(), id), patched.body.category, "the list answers it as the PATCH did");
    const empty = await call(world, full(), "PATCH", `/v1/categories/${id}`, {});
    assert.equal(
      [empty.status, empty.body.category],
      [200, patched.body.category],
      "nothing changed, not even updatedAt",
    );
    // A new item of the category goes after the placed ones; its creation changes the category.
    const added = await call(world, full(), "POST", "/v1/items", {
      name: "Reorder 4",
      code: "REORDER-4",
      priceMinor: 400,
      categoryId: id,
    });
    const withNew = await read(world, full(), id);
    assert.equal(withNew.itemIds, [c, a, b, added.body.item.id]);
    assert.ok(withNew.updatedAt > patched.body.category.updatedAt, "an item joining changes the category");
  },
);

Categories(
  "an item moved to another category or deleted leaves this one's itemIds, and both categories change",
  async ({ world, full }) => {
    const from = await categoryWithItems(world, full, "Leaving");
    const to = await categoryWithItems(world, full, "Joining");
    const [a, b, c] = from.itemIds as [number, number, number];
    await call(world, full(), "PATCH", `/v1/categories/${from.id}`, { itemIds: [c, b, a] });
    await call(world, full(), "PATCH", `/v1/categories/${to.id}`, { itemIds: [...to.itemIds].reverse() });
    const [fromBefore, toBefore] = [await read(world, full(), from.id), await read(world, full(), to.id)];
    const moved = await call(world, full(), "PATCH", `/v1/items/${c}`, { categoryId: to.id });
    assert.is(moved.status, 200, JSON.stringify(moved.body));
    const [fromAfter, toAfter] = [await read(world, full(), from.id), await read(world, full(), to.id)];
    assert.equal(fromAfter.itemIds, [b, a]);
    assert.equal(
      toAfter.itemIds,
      [...[...to.itemIds].reverse(), c],
      "after the placed ones: its place does not travel",
    );
    assert.ok(fromAfter.updatedAt > fromBefore.updatedAt && toAfter.updatedAt > toBefore.updatedAt);
    assert.is(fromAfter.updatedAt, moved.body.item.updatedAt, "in the same change as the item");
    const repriced = await call(world, full(), "PATCH", `/v1/items/${b}`, { priceMinor: 999 });
    assert.is((await read(world, full(), from.id)).updatedAt, fromAfter.updatedAt, "a change within it is the item's");
    const removed = await call(world, full(), "DELETE", `/v1/items/${b}`);
    assert.is(removed.status, 200);
    const afterDelete = await read(world, full(), from.id);
    assert.equal(afterDelete.itemIds, [a]);
    assert.ok(afterDelete.updatedAt > repriced.body.item.updatedAt);
  },
);

Categories(
  "refusals: an unknown category, items that are not exactly its own, a duplicate name, bad fields, no categories.write",
  async ({ world, merchant, full }) => {
    const { id, itemIds } = await categoryWithItems(world, full, "Strict");
    const other = await categoryWithItems(world, full, "Elsewhere");
    const [a, b, c] = itemIds as [number, number, number];
    const before = await read(world, full(), id);
    const refusals: Array<[string, unknown, number, string | undefined, Json]> = [
      ["/v1/categories/987654321", { sortOrder: 1 }, 404, "partner.category_not_found", { field: "id" }],
      [`/v1/categories/${id}`, { itemIds: [a, b] }, 409, "partner.category_items_mismatch", { field: "itemIds" }],
      [`/v1/categories/${id}`, { itemIds: [a, b, c, c] }, 409, "partner.category_items_mismatch", { field: "itemIds" }],
      [`/v1/categories/${id}`, { itemIds: [a, a, b] }, 409, "partner.category_items_mismatch", { field: "itemIds" }],
      [
        `/v1/categories/${id}`,
        { itemIds: [a, b, other.itemIds[0]] },
        409,
        "partner.category_items_mismatch",
        { field: "itemIds" },
      ],
      [`/v1/categories/${id}`, { name: "Elsewhere", sortOrder: 9 }, 409, "db.duplicate", { field: "name" }],
      [`/v1/categories/${id}`, { sortOrder: -1 }, 400, undefined, { fields: "sortOrder" }],
      [`/v1/categories/${id}`, { sortOrder: 1_000_001 }, 400, undefined, { fields: "sortOrder" }],
      [`/v1/categories/${id}`, { name: "" }, 400, undefined, { fields: "name" }],
      [`/v1/categories/${id}`, { colour: "red" }, 400, undefined, { fields: "colour" }],
    ];
    for (const [path, body, status, code, params] of refusals) {
      const answer = await call(world, full(), "PATCH", path, body);
      assert.equal([answer.status, answer.body.code, answer.body.params], [status, code, params], JSON.stringify(body));
    }
    const forbidden = await call(world, merchant.token, "PATCH", `/v1/categories/${id}`, { sortOrder: 2 });
    assert.equal(
      [forbidden.status, forbidden.body.code],
      [403, "partner.scope_denied"],
      "an ONLINE_ORDER app reads only",
    );
    assert.equal(await read(world, full(), id), before, "nothing written by a refusal");
    const created = await call(world, full(), "POST", "/v1/categories", { name: "Sorted", sortOrder: 7 });
    assert.equal([created.body.category.sortOrder, created.body.category.itemIds], [7, []]);
  },
);

Categories.run();
