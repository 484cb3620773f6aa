// The catalogue's change feeds over real ports (GET /v1/items, /v1/stores, /v1/categories with updatedFrom): the
// (updatedAt, id) order, a nextCursor on every page (the last one and an empty one included), deleted items as
// tombstones, each refusal with its code and field, and a poller that resumes from its cursors seeing every change
// of items, stores and categories exactly once while several writers change the catalogue in parallel.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { OnlineOrderingStatus } from "../../gen/partnerapi/v1/data_service_pb.js";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import {
  call,
  onlineOrderMerchant,
  startOrdersWorld,
  type Json,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Feed = suite<{ world: OrdersWorld }>("data/catalogue-feed", {} as never);

Feed.before(async (context) => {
  context.world = await startOrdersWorld({ PARTNER_RATE_LIMIT: "100000" });
});

Feed.after(async ({ world }) => {
  await world.gw.stop();
});

type Resource = "items" | "stores" | "categories";

/** A FULL app (items.write, categories.write) of another organization connected to the merchant; its token now. */
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

/** One poll of a feed: every page from `start` until an empty one; the rows seen and the cursor to keep. */
async function pollAll(
  world: OrdersWorld,
  token: string,
  resource: Resource,
  start: { cursor?: string; updatedFrom?: string },
  limit = 4,
) {
  const seen: Json[] = [];
  let query = start.cursor ? `cursor=${start.cursor}` : `updatedFrom=${encodeURIComponent(start.updatedFrom!)}`;
  for (;;) {
    const page = await call(world, token, "GET", `/v1/${resource}?${query}&limit=${limit}`);
    assert.is(page.status, 200, JSON.stringify(page.body));
    assert.type(page.body.nextCursor, "string", "every page answers a cursor");
    seen.push(...page.body[resource]);
    if (page.body[resource].length === 0) return { seen, cursor: page.body.nextCursor as string };
    query = `cursor=${page.body.nextCursor}`;
  }
}

/** The instant of the manual clock as a stamp reads it (microseconds). */
const stampAt = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");

/** A start after everything seeded so far (seeds are stamped at the clock's now): the clock moves on a second. */
function startNow(world: OrdersWorld): string {
  world.gw.clock.advance(1_000);
  return stampAt(world.gw.clock.now());
}

const key = (row: Json) => `${row.updatedAt}|${String(row.id).padStart(12, "0")}`;

Feed(
  "items: changes at or after updatedFrom in (updatedAt, id) order; a tombstone for a deleted item; every page a cursor",
  async ({ world }) => {
    const merchant = await onlineOrderMerchant(world);
    const full = await fullApp(world, merchant);
    const start = startNow(world);
    const created = await call(world, full(), "POST", "/v1/items", {
      name: "Feed tea",
      code: "FEED-1",
      priceMinor: 90,
    });
    assert.is(created.status, 200, JSON.stringify(created.body));
    const other = await call(world, full(), "POST", "/v1/items", {
      name: "Feed coffee",
      code: "FEED-2",
      priceMinor: 120,
    });
    const first = await pollAll(world, full(), "items", { updatedFrom: start }, 1);
    assert.equal(
      first.seen.map((item: Json) => item.id),
      [created.body.item.id, other.body.item.id],
      "the seeded items changed before start; the two new ones, in order",
    );
    assert.equal(first.seen[0], created.body.item, "as the write answered it");
    assert.is(first.seen[0].updatedAt, start, "updatedAt to the microsecond, inclusive of updatedFrom");

    const removed = await call(world, full(), "DELETE", `/v1/items/${created.body.item.id}`);
    assert.is(removed.status, 200);
    const afterDelete = await pollAll(world, full(), "items", { cursor: first.cursor });
    assert.is(afterDelete.seen.length, 1);
    const [tombstone] = afterDelete.seen;
    assert.equal([tombstone.id, tombstone.deleted], [created.body.item.id, true], "a tombstone");
    assert.ok(tombstone.updatedAt > other.body.item.updatedAt, "stamped when it was deleted");
    const still = await call(world, full(), "GET", `/v1/items/${created.body.item.id}`);
    assert.is(still.status, 404, "off the menu for every other read");
    const listed = await call(world, full(), "GET", "/v1/items?limit=100");
    assert.not.ok(
      listed.body.items.some((item: Json) => item.id === created.body.item.id),
      "the list skips it",
    );

    const nothing = await call(world, full(), "GET", `/v1/items?cursor=${afterDelete.cursor}`);
    assert.equal(
      [nothing.body.items, nothing.body.nextCursor],
      [[], afterDelete.cursor],
      "an empty page keeps the place",
    );
    const future = await call(world, full(), "GET", "/v1/items?updatedFrom=2099-01-01T00:00:00Z");
    assert.equal(future.body.items, []);
    assert.type(future.body.nextCursor, "string", "an empty first page too");

    // With storeId, the feed answers each item's availability there; an availability change is an item change.
    const [, store2] = merchant.storeIds;
    await call(world, full(), "PUT", `/v1/stores/${store2}/items/${other.body.item.id}/availability`, {
      available: false,
    });
    const inStore = await call(world, full(), "GET", `/v1/items?cursor=${afterDelete.cursor}&storeId=${store2}`);
    assert.equal(
      inStore.body.items.map((item: Json) => [item.id, item.available]),
      [[other.body.item.id, false]],
    );
  },
);

Feed("stores and categories: their feeds give a pause and a category change, each once", async ({ world }) => {
  const merchant = await onlineOrderMerchant(world);
  const full = await fullApp(world, merchant);
  const start = startNow(world);
  const [store1] = merchant.storeIds;
  await world.pos.setStoreOnlineOrdering({
    companyId: BigInt(merchant.fixture.companyId),
    id: BigInt(store1!),
    change: { status: OnlineOrderingStatus.PAUSED, reason: "Feed test" },
  });
  const stores = await pollAll(world, full(), "stores", { updatedFrom: start });
  assert.equal(
    stores.seen.map((store: Json) => [store.id, store.onlineOrdering.status, store.updatedAt]),
    [[store1, "PAUSED", start]],
  );
  // An access request's store scope narrows the feed as it narrows the list (the front's header, role `front`).
  const scoped = async (storeId: number) =>
    (
      await world.front.listStores(
        { companyId: BigInt(merchant.fixture.companyId), updatedFrom: start },
        { headers: { "x-partner-store-scope": String(storeId) } },
      )
    ).stores.map((store) => Number(store.id));
  assert.equal(await scoped(store1!), [store1]);
  assert.equal(await scoped(merchant.storeIds[1]!), [], "a store outside the scope is not in its feed");
  const category = await call(world, full(), "POST", "/v1/categories", { name: "Feed specials", sortOrder: 5 });
  assert.is(category.status, 200, JSON.stringify(category.body));
  const categories = await pollAll(world, full(), "categories", { updatedFrom: start });
  assert.equal(categories.seen, [category.body.category]);
  assert.equal((await pollAll(world, full(), "stores", { cursor: stores.cursor })).seen, [], "seen once");
  assert.equal((await pollAll(world, full(), "categories", { cursor: categories.cursor })).seen, []);
});

Feed(
  "refusals: a bad updatedFrom, a cursor of another feed or list, and a cursor not ours, each with its code",
  async ({ world }) => {
    const merchant = await onlineOrderMerchant(world);
    const token = merchant.token;
    const itemsFeed = await call(world, token, "GET", "/v1/items?updatedFrom=2000-01-01T00:00:00Z&limit=1");
    const itemsList = await call(world, token, "GET", "/v1/items?limit=1");
    const ordersFeed = await call(world, token, "GET", "/v1/online-orders?updatedFrom=2000-01-01T00:00:00Z&limit=1");
    assert.type(itemsList.body.nextCursor, "string");
    const refusals: Array<[string, number, string | undefined, Json]> = [
      ["/v1/items?updatedFrom=yesterday", 400, "partner.feed_updated_from_invalid", { field: "updatedFrom" }],
      [
        "/v1/stores?updatedFrom=2026-02-30T00:00:00Z",
        400,
        "partner.feed_updated_from_invalid",
        { field: "updatedFrom" },
      ],
      [
        "/v1/categories?updatedFrom=2026-01-01T00:00:00",
        400,
        "partner.feed_updated_from_invalid",
        { field: "updatedFrom" },
      ],
      [`/v1/stores?cursor=${itemsFeed.body.nextCursor}`, 400, "partner.feed_cursor_invalid", { field: "cursor" }],
      [`/v1/items?cursor=${ordersFeed.body.nextCursor}`, 400, "partner.feed_cursor_invalid", { field: "cursor" }],
      [
        `/v1/items?updatedFrom=2026-01-01T00:00:00Z&cursor=${itemsList.body.nextCursor}`,
        400,
        "partner.feed_cursor_invalid",
        { field: "cursor" },
      ],
      [
        "/v1/items?updatedFrom=2026-01-01T00:00:00Z&cursor=bm9wZQ",
        400,
        "partner.feed_cursor_invalid",
        { field: "cursor" },
      ],
      // A list cursor that is not ours stays the list's validation failure, as before the feed.
      ["/v1/categories?cursor=bm9wZQ", 400, undefined, { fields: "cursor" }],
    ];
    for (const [path, status, code, params] of refusals) {
      const answer = await call(world, token, "GET", path);
      assert.equal([answer.status, answer.body.code, answer.body.params], [status, code, params], path);
    }
    const arabic = await fetch(`${world.gw.base}/v1/items?updatedFrom=yesterday`, {
      headers: { authorization: `Bearer ${token}`, "accept-language": "ar" },
    });
    const body = (await arabic.json()) as Json;
    assert.is(body.code, "partner.feed_updated_from_invalid");
    assert.match(body.message, /updatedFrom/);
    assert.is(arabic.headers.get("content-language"), "ar");
    // A list cursor alone keeps paging the list (by id), not the feed.
    const second = await call(world, token, "GET", `/v1/items?limit=1&cursor=${itemsList.body.nextCursor}`);
    assert.equal([second.status, second.body.items[0].id], [200, merchant.items[1]!.id]);
  },
);

Feed(
  "a poller resuming from its cursors sees every catalogue change exactly once while writers change items, categories and stores in parallel",
  async ({ world }) => {
    const merchant = await onlineOrderMerchant(world);
    const full = await fullApp(world, merchant);
    const companyId = BigInt(merchant.fixture.companyId);
    const start = startNow(world);
    const token = full();
    const categories = await Promise.all(
      ["Writers A", "Writers B"].map(async (name) => {
        const made = await call(world, token, "POST", "/v1/categories", { name });
        assert.is(made.status, 200, JSON.stringify(made.body));
        return made.body.category.id as number;
      }),
    );
    const ok = (answer: { status: number; body: Json }) => {
      if (answer.status !== 200) throw new Error(`write refused: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    let writing = true;
    // Four item writers (create in a category, reprice, sell out in a store, move, delete every other), one category
    // writer (sort orders), one point of sale pausing and resuming its stores: all at once.
    const itemWriters = Array.from({ length: 4 }, async (_, writer) => {
      for (let n = 0; n < 4; n++) {
        const { item } = ok(
          await call(world, token, "POST", "/v1/items", {
            name: `Parallel ${writer}-${n}`,
            code: `PAR-${writer}-${n}`,
            priceMinor: 100 + n,
            categoryId: categories[n % 2],
          }),
        );
        ok(await call(world, token, "PATCH", `/v1/items/${item.id}`, { priceMinor: 200 + n }));
        ok(
          await call(world, token, "PUT", `/v1/stores/${merchant.storeIds[n % 2]}/items/${item.id}/availability`, {
            available: false,
          }),
        );
        ok(await call(world, token, "PATCH", `/v1/items/${item.id}`, { categoryId: categories[(n + 1) % 2] }));
        if (n % 2 === 0) ok(await call(world, token, "DELETE", `/v1/items/${item.id}`));
      }
    });
    const categoryWriter = (async () => {
      for (let n = 0; n < 8; n++)
        ok(await call(world, token, "PATCH", `/v1/categories/${categories[n % 2]}`, { sortOrder: n }));
    })();
    const storeWriter = (async () => {
      for (let n = 0; n < 8; n++)
        await world.pos.setStoreOnlineOrdering({
          companyId,
          id: BigInt(merchant.storeIds[n % 2]!),
          change: { status: n % 4 < 2 ? OnlineOrderingStatus.PAUSED : OnlineOrderingStatus.ACCEPTING },
        });
    })();
    const writers = Promise.all([...itemWriters, categoryWriter, storeWriter]).finally(() => (writing = false));

    const resources: Resource[] = ["items", "stores", "categories"];
    const versions: Record<Resource, Json[]> = { items: [], stores: [], categories: [] };
    const cursors: Partial<Record<Resource, string>> = {};
    const pollEach = async () => {
      for (const resource of resources) {
        const from = cursors[resource] ? { cursor: cursors[resource] } : { updatedFrom: start };
        const polled = await pollAll(world, token, resource, from, 3);
        versions[resource].push(...polled.seen);
        cursors[resource] = polled.cursor;
      }
    };
    await pollEach();
    while (writing) await pollEach();
    await writers;
    await pollEach();

    for (const resource of resources) {
      const keys = versions[resource].map(key);
      assert.is(new Set(keys).size, keys.length, `${resource}: no change seen twice`);
      assert.equal(keys, [...keys].sort(), `${resource}: in (updatedAt, id) order across polls`);
      // Never missed: the last version seen of each row is the row as the feed gives it now, and every row is there.
      const latest = new Map<number, Json>();
      for (const version of versions[resource]) latest.set(version.id, version);
      const now = await pollAll(world, token, resource, { updatedFrom: start }, 100);
      assert.is(latest.size, now.seen.length, `${resource}: every changed row seen`);
      for (const row of now.seen) assert.equal(latest.get(row.id), row, `${resource} ${row.id}`);
    }
    const items = [...new Map(versions.items.map((item) => [item.id, item])).values()];
    assert.is(items.length, 16);
    assert.is(items.filter((item) => item.deleted === true).length, 8, "the deleted ones end as tombstones");
    // The categories' itemIds as they are now: the items each holds on the menu, moved ones included.
    for (const category of (await pollAll(world, token, "categories", { updatedFrom: start }, 100)).seen) {
      const held = items.filter((item) => !item.deleted && item.categoryId === category.id).map((item) => item.id);
      assert.equal([...category.itemIds].sort(), held.sort(), `category ${category.id}`);
    }
  },
);

Feed.run();
