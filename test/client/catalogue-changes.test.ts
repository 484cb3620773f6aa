// The partner client's catalogue against the real app: catalogue.changes over the items', stores' and categories'
// change feeds (typed values, a deleted item as its tombstone, resumable from the cursor it yields, a cursor of one
// feed refused by another), and categories.update, with a FULL app's sandbox connection on the injected clock.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import type { CatalogueChange, CatalogueResource, PartnerApiError } from "../../src/client/index.js";
import { catalogueResources } from "../../src/client/index.js";
import { createClient } from "@connectrpc/connect";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { DataService, OnlineOrderingStatus } from "../../gen/partnerapi/v1/data_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { clientFor, newSeededWorld } from "../support/client.js";
import { grpcTransport } from "../support/internal.js";

const Catalogue = suite("client/catalogue-changes");
const clock = createManualClock(Date.now());
let test: TestApp;

Catalogue.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { GATEWAY_CACHE_SECONDS: "0" } });
});
Catalogue.after(async () => {
  await test.stop();
});

/** Every change of one feed until its first empty page. */
async function drain<R extends CatalogueResource>(changes: AsyncIterable<CatalogueChange<R>>) {
  const seen: CatalogueChange<R>[] = [];
  for await (const change of changes) seen.push(change);
  return seen;
}

Catalogue(
  "catalogue.changes gives each feed's changes typed, tombstones included, and resumes from its cursor",
  async () => {
    const w = await newSeededWorld(test, clock, "http://127.0.0.1:9/catalogue/1", Product.FULL);
    const { client } = clientFor(test, w, clock);
    await client.connectSandbox(w.companyId);
    const merchant = client.merchant(w.companyId);
    assert.equal([...catalogueResources], ["items", "stores", "categories"]);
    clock.advance(1_000); // past the seeded catalogue's stamps
    const start = new Date(clock.now()).toISOString();

    const [category] = (await merchant.categories.list({ limit: 1 })).categories;
    const kept = await merchant.items.create({
      name: "Client tea",
      code: "CLIENT-1",
      priceMinor: 90,
      categoryId: category!.id,
    });
    const gone = await merchant.items.create({ name: "Client cake", code: "CLIENT-2", priceMinor: 250 });
    await merchant.items.remove(gone.id);
    const items = await drain(merchant.catalogue.changes("items", { updatedFrom: start }, { limit: 1 }));
    assert.equal(
      items.map((change) => change.value),
      [kept, { id: gone.id, deleted: true, updatedAt: items[1]!.value.updatedAt }],
      "the live item as written; the deleted one as its tombstone only",
    );
    const [live, tombstone] = items.map((change) => change.value);
    if (tombstone!.deleted) assert.ok(tombstone!.updatedAt > gone.updatedAt);
    else assert.unreachable("the second change is a tombstone");
    assert.is(live!.deleted, undefined);
    // Pages of one: each change is the last of its page, so its cursor resumes right after it.
    const afterFirst = await drain(merchant.catalogue.changes("items", { cursor: items[0]!.cursor! }));
    assert.equal(
      afterFirst.map((change) => change.value),
      [items[1]!.value],
    );
    const itemsCursor = items.at(-1)!.cursor!;
    assert.type(itemsCursor, "string");

    const categories = await drain(merchant.catalogue.changes("categories", { updatedFrom: start }));
    assert.equal(
      categories.map((change) => [change.value.id, change.value.itemIds.includes(kept.id)]),
      [[category!.id, true]],
      "the category the new item joined",
    );
    const moved = await merchant.categories.update(category!.id, { sortOrder: 2 });
    assert.is(moved.sortOrder, 2);
    const resumed = await drain(merchant.catalogue.changes("categories", { cursor: categories.at(-1)!.cursor! }));
    assert.equal(
      resumed.map((change) => change.value),
      [moved],
      "only what changed after the kept cursor",
    );
    assert.equal(await drain(merchant.catalogue.changes("items", { cursor: itemsCursor })), [], "nothing new");

    // The point of sale pauses a store (role `pos` on the internal port).
    const stores = (await merchant.stores.list()).stores;
    const pos = createClient(DataService, grpcTransport(test.app.grpc.port, test.internal.pos));
    await pos.setStoreOnlineOrdering({
      companyId: BigInt(w.companyId),
      id: BigInt(stores[0]!.id),
      change: { status: OnlineOrderingStatus.PAUSED, reason: "client test" },
    });
    const storeChanges = await drain(merchant.catalogue.changes("stores", { updatedFrom: start }));
    assert.equal(
      storeChanges.map((change) => [change.resource, change.value.id, change.value.onlineOrdering.status]),
      [["stores", stores[0]!.id, "PAUSED"]],
    );

    // A cursor kept for one feed is refused by another: the iterator throws the API's error.
    const wrong = await drain(merchant.catalogue.changes("stores", { cursor: itemsCursor })).then(
      () => undefined,
      (error: PartnerApiError) => error,
    );
    assert.equal([wrong?.status, wrong?.code], [400, "partner.feed_cursor_invalid"]);

    // With storeId, the items' feed answers availability in that store.
    await merchant.items.setAvailability(stores[1]!.id, kept.id, { available: false });
    const inStore = await drain(
      merchant.catalogue.changes("items", { cursor: itemsCursor }, { storeId: stores[1]!.id }),
    );
    assert.equal(
      inStore.map((change) => [change.value.id, change.value.deleted ? undefined : change.value.available]),
      [[kept.id, false]],
    );
  },
);

Catalogue("a feed's resource is one of three, and an item change is a live item or a tombstone by `deleted`", () => {
  const resource: CatalogueResource = "categories";
  // @ts-expect-error: not a feed
  const wrong: CatalogueResource = "menus";
  const tombstone: CatalogueChange<"items">["value"] = {
    id: 4,
    deleted: true,
    updatedAt: "2026-11-29T10:00:00.000000Z",
  };
  // @ts-expect-error: a tombstone carries no name
  const named: CatalogueChange<"items">["value"] = { id: 4, deleted: true, updatedAt: "x", name: "Tea" };
  assert.equal([resource, wrong, tombstone.id, named.id], ["categories", "menus", 4, 4]);
});

Catalogue.run();
