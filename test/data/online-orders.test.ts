// DataService.ListOnlineOrders (GET /v1/online-orders) against a real database: keyset paging on (placed_at, id)
// that neither repeats nor skips an order while orders are added (ties of placed_at included, to the microsecond),
// the status and placed-between filters, the store scope of an ADSR key, and bad input as request.invalid_fields.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { readServiceError } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createDataService } from "../../src/data/service.js";
import { encodeCursor, encodeTimeCursor } from "../../src/data/cursor.js";
import { storeScopeHeader } from "../../src/data/store-scope.js";
import { createRegionSeedQueries } from "../../src/data/queries/region-seed-queries.js";
import { useTestDatabase } from "../support/storage.js";

const Orders = suite("data/online-orders");
const database = useTestDatabase(Orders);
const clock = createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));

const uniqueCompanyId = () => 100_000 + Math.floor(Math.random() * 800_000_000);

function client(): Client<typeof DataService> {
  const impl = createDataService(
    { config: loadConfig({}), clock, ids: cryptoIds, logger: silentLogger },
    { region: "in", sql: database().sql },
  );
  return createClient(
    DataService,
    createRouterTransport(({ service }) => service(DataService, impl)),
  );
}

/** The code and params a call failed with. */
async function failureOf(call: Promise<unknown>): Promise<{ code: string; params: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    const { code, params } = readServiceError(error);
    return { code, params };
  }
  throw new Error("the call succeeded");
}

/** A company with two stores and `placed.length` orders placed at those instants (ISO text, microseconds allowed). */
async function company(placed: { at: string; status?: string; store?: 0 | 1 }[]) {
  const companyId = uniqueCompanyId();
  const sql = database().sql;
  const storeIds = await createRegionSeedQueries(sql, "in").insertStores(companyId, ["North", "South"]);
  const ids: number[] = [];
  for (const order of placed) {
    // A PENDING order has its decideBy, 15 minutes after placing (the database refuses one without).
    const status = order.status ?? "COMPLETED";
    const [row] = await sql<{ id: number }[]>`
      insert into region_in.online_orders (company_id, store_id, status, total_minor, currency, placed_at, decide_by, lines)
      values (${companyId}, ${storeIds[order.store ?? 0]!}, ${status}, 100, 'INR', ${order.at}::text::timestamptz,
              ${status === "PENDING" ? sql`${order.at}::text::timestamptz + interval '900 seconds'` : null}, '[]')
      returning id`;
    ids.push(Number(row!.id));
  }
  return { companyId: BigInt(companyId), storeIds, ids };
}

/** Every order id of a listing, page by page with `limit`, and the page sizes. */
async function walk(
  data: Client<typeof DataService>,
  request: Parameters<Client<typeof DataService>["listOnlineOrders"]>[0],
  options: { headers?: Record<string, string>; between?: () => Promise<void> } = {},
) {
  const ids: number[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await data.listOnlineOrders({ ...request, cursor }, { headers: options.headers });
    ids.push(...page.orders.map((order) => Number(order.id)));
    sizes.push(page.orders.length);
    cursor = page.nextCursor;
    await options.between?.();
  } while (cursor);
  return { ids, sizes };
}

Orders(
  "oldest placed first, ties broken by id, ten by default; the cursor walks every order exactly once",
  async () => {
    // Three orders share one instant to the microsecond, two differ from it by one microsecond only.
    const same = "2026-11-20T10:00:00.123456Z";
    const placed = [
      { at: "2026-11-20T11:00:00Z" },
      { at: same },
      { at: "2026-11-20T10:00:00.123457Z" },
      { at: same },
      { at: "2026-11-20T10:00:00.123455Z" },
      { at: same },
      ...Array.from({ length: 8 }, (_, index) => ({ at: `2026-11-1${index}T08:00:00Z` })),
    ];
    const { companyId, ids } = await company(placed);
    const expected = [...ids.slice(6), ids[4]!, ids[1]!, ids[3]!, ids[5]!, ids[2]!, ids[0]!];
    const data = client();
    const first = await data.listOnlineOrders({ companyId });
    assert.is(first.orders.length, 10);
    assert.ok(first.nextCursor);
    assert.is(first.orders[0]!.placedAt, "2026-11-10T08:00:00.000Z");
    assert.equal((await walk(data, { companyId, limit: 3 })).ids, expected);
    assert.equal((await walk(data, { companyId, limit: 3 })).sizes, [3, 3, 3, 3, 2]);
    // A page that ends inside the tie continues inside it (the cursor holds placed_at to the microsecond and the id).
    assert.equal((await walk(data, { companyId, limit: 9 })).ids, expected);
    const exact = await data.listOnlineOrders({ companyId, limit: 14 });
    assert.is(exact.nextCursor, undefined, "no cursor when the page holds the last order");
  },
);

Orders(
  "paging is stable while orders are added: none repeated or skipped, later ones after the cursor appear",
  async () => {
    const { companyId, storeIds } = await company(
      Array.from({ length: 6 }, (_, index) => ({ at: `2026-11-0${index + 1}T12:00:00Z` })),
    );
    const sql = database().sql;
    let added = 0;
    // Between pages: one order placed before everything read so far (never shown: it sorts before the cursor), and
    // one placed after everything (shown at the end).
    const between = async () => {
      added++;
      for (const at of [`2026-10-0${added}T00:00:00Z`, `2026-12-0${added}T00:00:00Z`]) {
        await sql`insert into region_in.online_orders (company_id, store_id, status, total_minor, currency, placed_at, decide_by, lines)
        values (${Number(companyId)}, ${storeIds[0]!}, 'PENDING', 1, 'INR', ${at}::text::timestamptz,
                ${at}::text::timestamptz + interval '900 seconds', '[]')`;
      }
    };
    const { ids } = await walk(client(), { companyId, limit: 2 }, { between });
    assert.is(new Set(ids).size, ids.length, "no order twice");
    const rows = await sql<{ id: number; placed_at: Date }[]>`
    select id, placed_at from region_in.online_orders where company_id = ${Number(companyId)} order by placed_at, id`;
    // Every order of the first six, then every December order added after its page was read, in order.
    const december = rows.filter((row) => row.placed_at.getUTCMonth() === 11).map((row) => Number(row.id));
    const november = rows.filter((row) => row.placed_at.getUTCMonth() === 10).map((row) => Number(row.id));
    assert.equal(ids.slice(0, 6), november);
    assert.equal(ids.slice(6), december.slice(0, ids.length - 6));
    assert.ok(
      ids.every((id) => !rows.some((row) => Number(row.id) === id && row.placed_at.getUTCMonth() === 9)),
      "no October order",
    );
  },
);

Orders("filters: status, placed from (inclusive) and to (exclusive), any offset, together with paging", async () => {
  const { companyId, ids } = await company([
    { at: "2026-11-01T00:00:00Z", status: "PENDING" },
    { at: "2026-11-02T00:00:00Z" },
    { at: "2026-11-03T00:00:00Z", status: "PENDING" },
    { at: "2026-11-04T00:00:00Z", status: "PENDING" },
    { at: "2026-11-05T00:00:00Z" },
  ]);
  const data = client();
  const list = async (request: { status?: string; placedFrom?: string; placedTo?: string; limit?: number }) =>
    (await walk(data, { companyId, ...request })).ids;
  assert.equal(await list({ status: "PENDING" }), [ids[0], ids[2], ids[3]]);
  assert.equal(await list({ status: "COMPLETED" }), [ids[1], ids[4]]);
  assert.equal(await list({ status: "CANCELLED" }), []);
  assert.equal(await list({ placedFrom: "2026-11-02T00:00:00Z", placedTo: "2026-11-04T00:00:00Z" }), [ids[1], ids[2]]);
  assert.equal(await list({ placedFrom: "2026-11-02T05:30:00+05:30", placedTo: "2026-11-04T00:00:00.000001Z" }), [
    ids[1],
    ids[2],
    ids[3],
  ]);
  assert.equal(
    await list({ placedFrom: "2026-11-04T00:00:00Z", placedTo: "2026-11-04T00:00:00Z" }),
    [],
    "an empty window is allowed",
  );
  assert.equal(await list({ placedTo: "2026-11-02T00:00:00Z" }), [ids[0]]);
  assert.equal(await list({ status: "PENDING", placedFrom: "2026-11-02T00:00:00Z", limit: 1 }), [ids[2], ids[3]]);
  // Another company's orders never appear.
  const other = await company([{ at: "2026-11-02T00:00:00Z" }]);
  assert.equal((await walk(data, { companyId: other.companyId })).ids, other.ids);
});

Orders("an ADSR key's store scope: only orders of the approved stores; an unreadable scope shows none", async () => {
  const { companyId, storeIds, ids } = await company([
    { at: "2026-11-01T00:00:00Z", store: 0 },
    { at: "2026-11-02T00:00:00Z", store: 1 },
    { at: "2026-11-03T00:00:00Z", store: 1 },
  ]);
  const data = client();
  assert.equal(
    (await walk(data, { companyId, limit: 1 }, { headers: { [storeScopeHeader]: String(storeIds[1]) } })).ids,
    [ids[1], ids[2]],
  );
  assert.equal((await walk(data, { companyId }, { headers: { [storeScopeHeader]: String(storeIds[0]) } })).ids, [
    ids[0],
  ]);
  assert.equal((await walk(data, { companyId }, { headers: { [storeScopeHeader]: "nonsense" } })).ids, []);
  assert.equal((await walk(data, { companyId })).ids, ids);
});

Orders(
  "bad input: a cursor we did not issue, date-times that are not RFC 3339, to before from -> request.invalid_fields",
  async () => {
    const { companyId } = await company([{ at: "2026-11-01T00:00:00Z" }]);
    const data = client();
    const invalid = (fields: string) => ({ code: "request.invalid_fields", params: { fields } });
    for (const cursor of [
      "nope!",
      encodeCursor(5),
      Buffer.from("v1t:2026-11-01T00:00:00Z:5").toString("base64url"),
      Buffer.from("v1t:2026-13-01T00:00:00.000000Z:5").toString("base64url"),
    ]) {
      assert.equal(await failureOf(data.listOnlineOrders({ companyId, cursor })), invalid("cursor"), cursor);
    }
    for (const placedFrom of [
      "2026-11-01",
      "2026-11-01T00:00:00",
      "2026-02-30T00:00:00Z",
      "2026-11-01T24:00:00Z",
      "0000-01-01T00:00:00Z",
      "2026-11-01T00:00:00.1234567Z",
      "2026-11-01T00:00:00+24:00",
      "yesterday",
      "",
    ]) {
      assert.equal(
        await failureOf(data.listOnlineOrders({ companyId, placedFrom })),
        invalid("placedFrom"),
        placedFrom,
      );
    }
    assert.equal(
      await failureOf(data.listOnlineOrders({ companyId, placedTo: "2026-11-01T00:00:00z " })),
      invalid("placedTo"),
    );
    assert.equal(
      await failureOf(
        data.listOnlineOrders({ companyId, placedFrom: "2026-11-02T00:00:00Z", placedTo: "2026-11-01T23:59:59Z" }),
      ),
      invalid("placedFrom, placedTo"),
    );
    assert.equal(
      await failureOf(data.listOnlineOrders({ companyId, placedFrom: "x", cursor: "!" })),
      invalid("cursor, placedFrom"),
    );
    // A cursor we issued stays good even for a year the filters could not name.
    const early = encodeTimeCursor({ time: "0001-01-01T00:00:00.000000Z", id: 1 });
    assert.is((await data.listOnlineOrders({ companyId, cursor: early })).orders.length, 1);
  },
);

Orders.run();
