// The DataService of a region against a real database (embedded PGlite, or TEST_DATABASE_URL): lists and their
// cursors, writes and the codes their constraints give, online orders, and the reports aggregated in SQL.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { readServiceError } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createDataService } from "../../src/data/service.js";
import { createRegionSeedQueries } from "../../src/data/queries/region-seed-queries.js";
import { useTestDatabase } from "../support/storage.js";

const Data = suite("data/service");
const database = useTestDatabase(Data);
const clock = createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));

/** A company id no other test uses (the shared database is never assumed empty). */
const uniqueCompanyId = () => 100_000 + Math.floor(Math.random() * 800_000_000);

function client(region: "uk" | "in" = "in"): Client<typeof DataService> {
  const impl = createDataService(
    { config: loadConfig({}), clock, ids: cryptoIds, logger: silentLogger },
    { region, sql: database().sql },
  );
  return createClient(
    DataService,
    createRouterTransport(({ service }) => service(DataService, impl)),
  );
}

/** The catalogue code a call failed with. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return readServiceError(error).code;
  }
  throw new Error("the call succeeded");
}

async function seeded(itemCount = 25): Promise<{ companyId: bigint; storeIds: number[] }> {
  const companyId = uniqueCompanyId();
  const storeIds = await seedMerchantData(database().sql, "in", companyId, {
    storeCount: 2,
    itemCount,
    salesDays: 10,
    onlineOrderCount: itemCount > 0 ? 3 : 0,
    now: new Date(clock.now()),
  });
  return { companyId: BigInt(companyId), storeIds };
}

Data("items come ten by default in id order, and the cursor walks every page exactly once", async () => {
  const { companyId } = await seeded(25);
  const data = client();
  const first = await data.listItems({ companyId });
  assert.is(first.items.length, 10);
  assert.is(first.items[0]!.code, "ITEM0001");
  assert.is(first.items[0]!.currency, "INR");
  assert.ok(first.nextCursor);
  const seen = [...first.items];
  let cursor: string | undefined = first.nextCursor;
  while (cursor) {
    const page = await data.listItems({ companyId, limit: 10, cursor });
    seen.push(...page.items);
    cursor = page.nextCursor;
  }
  assert.is(seen.length, 25);
  assert.equal(
    seen.map((item) => item.code),
    Array.from({ length: 25 }, (_, index) => `ITEM${String(index + 1).padStart(4, "0")}`),
  );
  const exact = await data.listItems({ companyId, limit: 25 });
  assert.is(exact.items.length, 25);
  assert.is(exact.nextCursor, undefined, "no cursor when the page holds the last row");
});

Data("a cursor we did not issue is a validation failure naming cursor", async () => {
  const { companyId } = await seeded(1);
  const data = client();
  for (const cursor of ["nope!", Buffer.from("v1:-4").toString("base64url"), Buffer.from("12").toString("base64url")]) {
    try {
      await data.listItems({ companyId, cursor });
      assert.unreachable("accepted");
    } catch (error) {
      assert.equal(readServiceError(error), { code: "request.invalid_fields", params: { fields: "cursor" } });
    }
  }
});

Data("a merchant sees only its own rows, and another region's DataService does not see this region's", async () => {
  const { companyId } = await seeded(3);
  const other = await seeded(4);
  assert.is((await client().listItems({ companyId, limit: 100 })).items.length, 3);
  assert.is((await client().listItems({ companyId: other.companyId, limit: 100 })).items.length, 4);
  assert.is((await client("uk").listItems({ companyId, limit: 100 })).items.length, 0);
  assert.is(await codeOf(client().listItems({})), "partner.company_param_required");
});

Data("stores and categories page the same way", async () => {
  const { companyId, storeIds } = await seeded(1);
  const data = client();
  const stores = await data.listStores({ companyId, limit: 1 });
  assert.equal(
    stores.stores.map((store) => [Number(store.id), store.name]),
    [[storeIds[0], "Store 1"]],
  );
  const rest = await data.listStores({ companyId, cursor: stores.nextCursor! });
  assert.equal(
    rest.stores.map((store) => Number(store.id)),
    [storeIds[1]],
  );
  assert.is(rest.nextCursor, undefined);
  const categories = await data.listCategories({ companyId });
  assert.is(categories.categories.length, 10);
  assert.is(categories.categories[0]!.name, "Coffee");
  assert.is(categories.categories[0]!.code, "CAT01");
});

Data("creating an item: attributed, currency defaulted, duplicates and foreign categories refused", async () => {
  const { companyId } = await seeded(1);
  const other = await seeded(0);
  const data = client();
  const category = (await data.listCategories({ companyId, limit: 1 })).categories[0]!;
  const created = await data.createItem({
    companyId,
    name: "Masala chai",
    code: "CHAI",
    barcode: "890100",
    categoryId: category.id,
    priceMinor: 4500n,
  });
  // The change's stamp, to the microsecond: now, or just after the merchant's data seeded at the same instant.
  assert.match(created.item!.updatedAt, /^2026-11-21T12:00:00\.0000\d\dZ$/);
  assert.equal(
    { ...created.item, $typeName: undefined, id: undefined },
    {
      $typeName: undefined,
      id: undefined,
      name: "Masala chai",
      code: "CHAI",
      barcode: "890100",
      categoryId: category.id,
      priceMinor: 4500n,
      currency: "INR",
      createdAt: "2026-11-21T12:00:00.000Z",
      updatedAt: created.item!.updatedAt,
      modifierGroups: [],
    },
  );
  const [row] = await database()
    .sql`select created_by_employee_id from region_in.items where id = ${Number(created.item!.id)}`;
  assert.ok(row!["created_by_employee_id"], "attributed to an employee");
  assert.is(await codeOf(data.createItem({ companyId, name: "Other", code: "CHAI", priceMinor: 1n })), "db.duplicate");
  assert.is(
    await codeOf(data.createItem({ companyId, name: "Other", code: "C2", barcode: "890100", priceMinor: 1n })),
    "db.duplicate",
  );
  const foreignCategory = (await data.listCategories({ companyId: other.companyId, limit: 1 })).categories[0]!;
  assert.is(
    await codeOf(
      data.createItem({ companyId, name: "Other", code: "C3", categoryId: foreignCategory.id, priceMinor: 1n }),
    ),
    "partner.category_not_found",
  );
  assert.is(
    await codeOf(
      data.createItem({ companyId, name: "Other", code: "C4", categoryId: 999_999_999_999n, priceMinor: 1n }),
    ),
    "partner.category_not_found",
  );
  // A retried POST is a second record (no idempotency keys): only the unique code stops it.
  const again = await data.createItem({
    companyId,
    name: "Masala chai",
    code: "CHAI2",
    priceMinor: 4500n,
    currency: "USD",
  });
  assert.is(again.item!.currency, "USD");
});

Data("updating an item changes only the fields sent; unknown ids and duplicates have their codes", async () => {
  const { companyId } = await seeded(2);
  const data = client();
  const [first, second] = (await data.listItems({ companyId })).items;
  clock.advance(60_000);
  const updated = await data.updateItem({ companyId, id: first!.id, priceMinor: 999n });
  assert.is(updated.item!.priceMinor, 999n);
  assert.is(updated.item!.name, first!.name);
  assert.is(updated.item!.code, first!.code);
  assert.is(updated.item!.createdAt, first!.createdAt);
  assert.is(updated.item!.updatedAt, new Date(clock.now()).toISOString().replace("Z", "000Z"));
  const recurrenced = await data.updateItem({ companyId, id: first!.id, currency: "EUR" });
  assert.is(recurrenced.item!.currency, "EUR");
  assert.is(recurrenced.item!.priceMinor, 999n);
  assert.is(await codeOf(data.updateItem({ companyId, id: second!.id, code: first!.code })), "db.duplicate");
  assert.is(await codeOf(data.updateItem({ companyId, id: 999_999_999_999n, name: "x" })), "db.not_found");
  const other = await seeded(0);
  assert.is(await codeOf(data.updateItem({ companyId: other.companyId, id: first!.id, name: "x" })), "db.not_found");
});

Data("categories: created, and a repeated name or code is db.duplicate", async () => {
  const { companyId } = await seeded(0);
  const data = client();
  const created = await data.createCategory({ companyId, name: "Chaat", code: "CHAAT" });
  assert.is(created.category!.name, "Chaat");
  assert.is(created.category!.code, "CHAAT");
  assert.is(await codeOf(data.createCategory({ companyId, name: "Chaat" })), "db.duplicate");
  assert.is(await codeOf(data.createCategory({ companyId, name: "Other", code: "CHAAT" })), "db.duplicate");
  const noCode = await data.createCategory({ companyId, name: "No code" });
  assert.is(noCode.category!.code, undefined);
});

Data("db.duplicate names the field that clashed in params.field", async () => {
  const { companyId } = await seeded(2);
  const data = client();
  const paramsOf = async (call: Promise<unknown>) => {
    try {
      await call;
    } catch (error) {
      return readServiceError(error);
    }
    throw new Error("the call succeeded");
  };
  const duplicate = (field: string) => ({ code: "db.duplicate", params: { field } });
  const pick = ({ code, params }: { code: string; params: unknown }) => ({ code, params });
  assert.equal(
    pick(await paramsOf(data.createItem({ companyId, name: "x", code: "ITEM0001", priceMinor: 1n }))),
    duplicate("code"),
  );
  const [first] = (await data.listItems({ companyId })).items;
  assert.equal(
    pick(
      await paramsOf(data.createItem({ companyId, name: "x", code: "NEW1", barcode: first!.barcode!, priceMinor: 1n })),
    ),
    duplicate("barcode"),
  );
  await data.createCategory({ companyId, name: "Once", code: "ONCE" });
  assert.equal(pick(await paramsOf(data.createCategory({ companyId, name: "Once" }))), duplicate("name"));
  assert.equal(
    pick(await paramsOf(data.createCategory({ companyId, name: "Twice", code: "ONCE" }))),
    duplicate("code"),
  );
});

Data("a merchant without an employee record cannot write: partner.acting_user_unavailable", async () => {
  const companyId = uniqueCompanyId();
  await createRegionSeedQueries(database().sql, "in").insertStores(companyId, ["Lonely store"]);
  const data = client();
  assert.is(
    await codeOf(data.createItem({ companyId: BigInt(companyId), name: "x", code: "x", priceMinor: 1n })),
    "partner.acting_user_unavailable",
  );
  assert.is(
    await codeOf(data.createCategory({ companyId: BigInt(companyId), name: "x" })),
    "partner.acting_user_unavailable",
  );
  assert.is(
    await codeOf(data.updateItem({ companyId: BigInt(companyId), id: 1n, name: "x" })),
    "partner.acting_user_unavailable",
  );
});

Data("an online order is found by id within its merchant only", async () => {
  const { companyId } = await seeded(5);
  const [row] = await database().sql<{ id: number; total_minor: number }[]>`
    select id, total_minor from region_in.online_orders where company_id = ${Number(companyId)} order by id limit 1`;
  const data = client();
  const { order } = await data.getOnlineOrder({ companyId, id: BigInt(row!.id) });
  assert.is(order!.id, BigInt(row!.id));
  assert.is(order!.totalMinor, BigInt(row!.total_minor));
  assert.is(order!.currency, "INR");
  assert.is(order!.lines.length, 1);
  const line = order!.lines[0]!;
  assert.is(line.totalMinor, line.unitPriceMinor * BigInt(line.quantity));
  assert.is(line.totalMinor, order!.totalMinor);
  const other = await seeded(0);
  assert.is(
    await codeOf(data.getOnlineOrder({ companyId: other.companyId, id: BigInt(row!.id) })),
    "partner.order_not_found",
  );
  assert.is(await codeOf(data.getOnlineOrder({ companyId, id: 999_999_999_999n })), "partner.order_not_found");
});

Data("daily sales: one row per UTC day of the window, totals equal to the rows summed", async () => {
  const { companyId } = await seeded(5);
  const data = client();
  const report = await data.getDailySalesReport({ companyId, from: "2026-11-10", to: "2026-11-21" });
  assert.is(report.currency, "INR");
  assert.is(report.from, "2026-11-10");
  assert.equal(
    report.days.map((day) => day.date),
    Array.from({ length: 12 }, (_, index) => `2026-11-${String(10 + index).padStart(2, "0")}`),
  );
  const [sums] = await database().sql<{ count: number; total: number; items: number }[]>`
    select count(*)::int as count, sum(total_minor)::bigint as total, sum(item_count)::bigint as items
    from region_in.sales where company_id = ${Number(companyId)}
      and sold_at >= '2026-11-10T00:00:00Z' and sold_at < '2026-11-22T00:00:00Z'`;
  assert.is(Number(report.days.reduce((sum, day) => sum + day.saleCount, 0n)), sums!.count);
  assert.is(Number(report.days.reduce((sum, day) => sum + day.totalMinor, 0n)), sums!.total);
  assert.is(Number(report.days.reduce((sum, day) => sum + day.itemCount, 0n)), sums!.items);
  assert.ok(report.days[5]!.saleCount > 0n);
  assert.is(report.days[0]!.saleCount, 0n, "the seeded sales cover the ten days before now only");
});

Data("sales by store: every store, totals matching the daily report over the same window", async () => {
  const { companyId, storeIds } = await seeded(5);
  const data = client();
  const byStore = await data.getSalesByStoreReport({ companyId, from: "2026-11-01", to: "2026-11-30" });
  assert.equal(
    byStore.stores.map((store) => [Number(store.storeId), store.storeName]),
    [
      [storeIds[0], "Store 1"],
      [storeIds[1], "Store 2"],
    ],
  );
  const daily = await data.getDailySalesReport({ companyId, from: "2026-11-01", to: "2026-11-30" });
  const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
  assert.is(sum(byStore.stores.map((store) => store.totalMinor)), sum(daily.days.map((day) => day.totalMinor)));
  assert.is(sum(byStore.stores.map((store) => store.saleCount)), sum(daily.days.map((day) => day.saleCount)));
  const empty = await data.getSalesByStoreReport({ companyId, from: "2025-01-01", to: "2025-01-31" });
  assert.equal(
    empty.stores.map((store) => store.totalMinor),
    [0n, 0n],
  );
});

Data("report windows: missing, malformed, reversed and too long", async () => {
  const { companyId } = await seeded(0);
  const data = client();
  for (const [from, to] of [
    ["", "2026-01-02"],
    ["2026-01-01", ""],
    ["2026-1-01", "2026-01-02"],
    ["2026-02-30", "2026-03-01"],
    ["2026-01-02", "2026-01-01"],
  ]) {
    assert.is(
      await codeOf(data.getDailySalesReport({ companyId, from: from!, to: to! })),
      "partner.invalid_window",
      `${from}..${to}`,
    );
    assert.is(
      await codeOf(data.getSalesByStoreReport({ companyId, from: from!, to: to! })),
      "partner.invalid_window",
      `${from}..${to}`,
    );
  }
  assert.is(
    await codeOf(data.getDailySalesReport({ companyId, from: "2026-01-01", to: "2026-02-01" })),
    "partner.window_too_large",
  );
  assert.is((await data.getDailySalesReport({ companyId, from: "2026-01-01", to: "2026-01-31" })).days.length, 31);
  assert.is((await data.getDailySalesReport({ companyId, from: "2026-01-01", to: "2026-01-01" })).days.length, 1);
});

Data.run();
