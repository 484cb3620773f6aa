// The change feed of online orders over real ports (GET /v1/online-orders?updatedFrom=...): (updatedAt, id) order,
// a nextCursor on every page (the last one included), and a poller that resumes from its cursor seeing every change
// exactly once while writers place and move orders in parallel. Also the automatic sandbox merchant, moved by the
// injected clock, whose moves the feed carries like any other.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { OnlineOrderReason } from "../../gen/partnerapi/v1/data_service_pb.js";
import {
  call,
  onlineOrderMerchant,
  place,
  startOrdersWorld,
  type Json,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Feed = suite<{ world: OrdersWorld }>("data/online-order-feed", {} as never);

Feed.before(async (context) => {
  context.world = await startOrdersWorld({ SANDBOX_ORDER_AUTOPILOT_SECONDS: "10", PARTNER_RATE_LIMIT: "100000" });
});

Feed.after(async ({ world }) => {
  await world.gw.stop();
});

/** One poll: every page from `cursor` (or updatedFrom) until an empty one; the orders seen and the cursor to keep. */
async function pollAll(
  world: OrdersWorld,
  merchant: Merchant,
  start: { cursor?: string; updatedFrom?: string },
  limit = 7,
) {
  const seen: Json[] = [];
  let query = start.cursor ? `cursor=${start.cursor}` : `updatedFrom=${encodeURIComponent(start.updatedFrom!)}`;
  for (;;) {
    const page = await call(world, merchant.token, "GET", `/v1/online-orders?${query}&limit=${limit}`);
    assert.is(page.status, 200, JSON.stringify(page.body));
    assert.type(page.body.nextCursor, "string", "every page answers a cursor");
    seen.push(...page.body.orders);
    if (page.body.orders.length === 0) return { seen, cursor: page.body.nextCursor as string };
    query = `cursor=${page.body.nextCursor}`;
  }
}

const key = (order: Json) => `${order.updatedAt}|${String(order.id).padStart(12, "0")}`;

Feed(
  "updatedFrom lists changes at or after it in (updatedAt, id) order; the last page has a cursor; later changes come once",
  async ({ world }) => {
    const merchant = await onlineOrderMerchant(world);
    const seeded = await call(
      world,
      merchant.token,
      "GET",
      "/v1/online-orders?updatedFrom=2000-01-01T00:00:00Z&limit=100",
    );
    assert.is(seeded.body.orders.length, 2, "the seeded orders, changed when they were placed");
    const first = await place(world, merchant);
    const second = await place(world, merchant);
    const fromFirst = await call(
      world,
      merchant.token,
      "GET",
      `/v1/online-orders?updatedFrom=${encodeURIComponent(first.updatedAt)}`,
    );
    assert.equal(
      fromFirst.body.orders.map((order: Json) => order.id),
      [first.id, second.id],
      "inclusive of updatedFrom",
    );
    const cursor = fromFirst.body.nextCursor;
    assert.type(cursor, "string", "the last page too");
    const nothingNew = await call(world, merchant.token, "GET", `/v1/online-orders?cursor=${cursor}`);
    assert.equal(nothingNew.body.orders, []);
    assert.is(nothingNew.body.nextCursor, cursor, "an empty page keeps the place");

    await world.pos.acceptOnlineOrder({
      companyId: BigInt(merchant.fixture.companyId),
      id: BigInt(first.id),
      promisedFor: "2030-01-01T00:00:00Z",
    });
    const changed = await call(world, merchant.token, "GET", `/v1/online-orders?cursor=${cursor}`);
    assert.equal(
      changed.body.orders.map((order: Json) => [order.id, order.status]),
      [[first.id, "ACCEPTED"]],
    );
    assert.ok(changed.body.orders[0].updatedAt > second.updatedAt);
    const after = await call(world, merchant.token, "GET", `/v1/online-orders?cursor=${changed.body.nextCursor}`);
    assert.equal(after.body.orders, [], "seen once");

    // An empty first page answers a cursor that still starts at updatedFrom.
    const future = await call(world, merchant.token, "GET", "/v1/online-orders?updatedFrom=2099-01-01T00:00:00Z");
    assert.equal(future.body.orders, []);
    assert.type(future.body.nextCursor, "string");

    const bad: Array<[string, string]> = [
      ["updatedFrom=yesterday", "updatedFrom"],
      ["updatedFrom=2026-02-30T00:00:00Z", "updatedFrom"],
      ["cursor=bm9wZQ", "cursor"],
    ];
    for (const [query, field] of bad) {
      const answer = await call(world, merchant.token, "GET", `/v1/online-orders?${query}`);
      assert.is(answer.status, 400, query);
      assert.is(answer.body.params.fields, field, query);
    }
    // A placed-at list cursor with updatedFrom is not a feed cursor.
    const placedList = await call(world, merchant.token, "GET", "/v1/online-orders?limit=1");
    const mixed = await call(
      world,
      merchant.token,
      "GET",
      `/v1/online-orders?updatedFrom=2026-01-01T00:00:00Z&cursor=${placedList.body.nextCursor}`,
    );
    assert.is(mixed.status, 400);
    assert.is(mixed.body.params.fields, "cursor");
  },
);

Feed(
  "a poller resuming from its cursor sees every change exactly once while writers place and move orders in parallel",
  async ({ world }) => {
    const merchant = await onlineOrderMerchant(world);
    const start = new Date(world.gw.clock.now()).toISOString();
    const companyId = BigInt(merchant.fixture.companyId);
    const pos = world.pos;
    // Eight writers, each placing orders and moving them through the lifecycle, all at once.
    let writing = true;
    const writers = Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let n = 0; n < 5; n++) {
          const order = await place(world, merchant, { externalReference: `w${writer}-${n}` });
          const id = BigInt(order.id);
          await pos.acceptOnlineOrder({ companyId, id, promisedFor: "2030-01-01T00:00:00Z" });
          if (n % 2 === 0) {
            await pos.markOnlineOrderReady({ companyId, id });
            await pos.completeOnlineOrder({ companyId, id });
          } else {
            await pos.cancelOnlineOrderAsMerchant({ companyId, id, reason: OnlineOrderReason.OTHER });
          }
        }
      }),
    ).finally(() => (writing = false));

    // The poller: keeps its cursor, polls while the writers run, then once more after they stopped.
    const versions: Json[] = [];
    let polled = await pollAll(world, merchant, { updatedFrom: start }, 3);
    versions.push(...polled.seen);
    let polls = 1;
    while (writing) {
      polled = await pollAll(world, merchant, { cursor: polled.cursor }, 3);
      versions.push(...polled.seen);
      polls += 1;
    }
    await writers;
    polled = await pollAll(world, merchant, { cursor: polled.cursor }, 3);
    versions.push(...polled.seen);

    // Exactly once: no version twice, and versions come in (updatedAt, id) order across every poll.
    const keys = versions.map(key);
    assert.is(new Set(keys).size, keys.length, "no change seen twice");
    assert.equal(keys, [...keys].sort(), "in (updatedAt, id) order across polls");
    // Never missed: the last version the poller saw of each order is the order as it is now, and every order is there.
    const latest = new Map<number, Json>();
    for (const version of versions) latest.set(version.id, version);
    const now = await call(
      world,
      merchant.token,
      "GET",
      `/v1/online-orders?updatedFrom=${encodeURIComponent(start)}&limit=100`,
    );
    assert.is(now.body.orders.length, 40);
    for (const order of now.body.orders) assert.equal(latest.get(order.id), order, `order ${order.id}`);
    // Each order's versions only move forward; a settled order's last version is final.
    const perOrder = new Map<number, string[]>();
    for (const version of versions) perOrder.set(version.id, [...(perOrder.get(version.id) ?? []), version.updatedAt]);
    for (const stamps of perOrder.values()) assert.equal(stamps, [...stamps].sort());
    assert.ok(polls >= 1);
    assert.ok(versions.length >= 40);
  },
);

Feed(
  "the automatic sandbox merchant accepts after a step, then READY and COMPLETED a step apart; REJECT is rejected; all in the feed",
  async ({ world }) => {
    const sandbox = await onlineOrderMerchant(world, { demo: true });
    const timers = world.gw.app.orderTimers.get("in")!;
    const served = await place(world, sandbox);
    const refused = await place(world, sandbox, { customer: { name: "REJECT" } });
    const live = await onlineOrderMerchant(world);
    const untouched = await place(world, live);
    const statusOf = async (merchant: Merchant, order: Json) =>
      (await call(world, world.gw.token(merchant.fixture), "GET", `/v1/online-orders/${order.id}`)).body.order;

    world.gw.clock.advance(9_000);
    await timers.runDue();
    assert.is((await statusOf(sandbox, served)).status, "PENDING");
    world.gw.clock.advance(1_000);
    await timers.runDue();
    const accepted = await statusOf(sandbox, served);
    assert.is(accepted.status, "ACCEPTED");
    assert.is(accepted.promisedFor, new Date(world.gw.clock.now() + 30_000).toISOString());
    const rejected = await statusOf(sandbox, refused);
    assert.equal([rejected.status, rejected.reason], ["REJECTED", "OTHER"]);
    world.gw.clock.advance(10_000);
    await timers.runDue();
    assert.is((await statusOf(sandbox, served)).status, "READY");
    world.gw.clock.advance(10_000);
    await timers.runDue();
    assert.is((await statusOf(sandbox, served)).status, "COMPLETED");
    world.gw.clock.advance(10_000);
    await timers.runDue();
    assert.is((await statusOf(sandbox, served)).status, "COMPLETED", "the story is over");
    assert.is(
      (await statusOf(live, untouched)).status,
      "PENDING",
      "a live merchant's order waits for its point of sale",
    );

    const { events } = await world.pos.listOnlineOrderEvents({
      companyId: BigInt(sandbox.fixture.companyId),
      id: BigInt(served.id),
    });
    assert.equal(
      events.map((event) => [event.fromStatus, event.toStatus, event.actor]),
      [
        ["", "PENDING", `app:${sandbox.fixture.appId}`],
        ["PENDING", "ACCEPTED", "sandbox"],
        ["ACCEPTED", "READY", "sandbox"],
        ["READY", "COMPLETED", "sandbox"],
      ],
    );
    sandbox.token = world.gw.token(sandbox.fixture);
    const feed = await pollAll(world, sandbox, { updatedFrom: served.placedAt });
    assert.equal(
      feed.seen.filter((order: Json) => order.id === served.id).map((order: Json) => order.status),
      ["COMPLETED"],
    );

    // A developer's move through the helper mid-way: the autopilot goes on from where the order is.
    const helped = await place(world, sandbox);
    const moved = await call(world, sandbox.token, "POST", `/v1/sandbox/online-orders/${helped.id}/status`, {
      status: "ACCEPTED",
    });
    assert.is(moved.status, 200);
    world.gw.clock.advance(10_000);
    await timers.runDue();
    assert.is((await statusOf(sandbox, helped)).status, "READY");
  },
);

Feed.run();
