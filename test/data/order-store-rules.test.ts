// Orders that respect the menu (issue 39), over real ports: placing is refused, with its code and field and nothing
// written, for a paused store (a pause that has ended is none), an item sold out in that store (only there, and not
// once its unavailableUntil has passed), and a time outside the store's opening hours in its time zone: overnight
// ranges, dated exceptions, ASAP orders judged at now, and both daylight-saving changes of America/New_York.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { OnlineOrderingStatus, Weekday } from "../../gen/partnerapi/v1/data_service_pb.js";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import {
  call,
  onlineOrderMerchant,
  orderBody,
  orderCount,
  startOrdersWorld,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Rules = suite<{ world: OrdersWorld; merchant: Merchant }>("data/order-store-rules", {} as never);

Rules.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
});

Rules.after(async ({ world }) => {
  await world.gw.stop();
});

const minute = 60_000;
const day = 86_400_000;
const range = (open: string, close: string) => ({ open, close });
const allWeek = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ day: weekday, ranges: [range("00:00", "24:00")] }));

/** Places an order (a token minted now: tests move the clock); the status and the code and params of a refusal. */
async function placeAt(world: OrdersWorld, merchant: Merchant, overrides: Record<string, unknown>) {
  const answer = await call(world, world.gw.token(merchant.fixture), "POST", "/v1/online-orders", {
    ...orderBody(merchant, overrides),
  });
  return answer.status === 200
    ? { status: 200 }
    : { status: answer.status, code: answer.body.code, params: answer.body.params };
}

const refused = (code: string, field: string) => ({ status: 409, code, params: { field } });

function setHours(world: OrdersWorld, merchant: Merchant, store: number, openingHours: object) {
  return world.pos.updateStoreDetails({
    companyId: BigInt(merchant.fixture.companyId),
    id: BigInt(merchant.storeIds[store]!),
    openingHours: openingHours as never,
  });
}

Rules(
  "a paused store refuses orders, ASAP and scheduled; its pause ends at pausedUntil",
  async ({ world, merchant }) => {
    const { gw, pos } = world;
    const companyId = BigInt(merchant.fixture.companyId);
    const id = BigInt(merchant.storeIds[0]!);
    const until = new Date(gw.clock.now() + 30 * minute).toISOString();
    await pos.setStoreOnlineOrdering({
      companyId,
      id,
      change: { status: OnlineOrderingStatus.PAUSED, pausedUntil: until, reason: "Kitchen busy" },
    });
    const before = await orderCount(world, merchant);
    assert.equal(await placeAt(world, merchant, {}), refused("partner.store_paused", "storeId"));
    const later = new Date(gw.clock.now() + 2 * 60 * minute).toISOString();
    assert.equal(
      await placeAt(world, merchant, { requestedFor: later }),
      refused("partner.store_paused", "storeId"),
      "a scheduled order while paused",
    );
    assert.equal(await orderCount(world, merchant), before, "nothing written");
    gw.clock.advance(30 * minute);
    assert.equal(await placeAt(world, merchant, {}), { status: 200 }, "the pause has ended by itself");
    await pos.setStoreOnlineOrdering({ companyId, id, change: { status: OnlineOrderingStatus.PAUSED } });
    assert.equal(await placeAt(world, merchant, {}), refused("partner.store_paused", "storeId"), "a pause with no end");
    await pos.setStoreOnlineOrdering({ companyId, id, change: { status: OnlineOrderingStatus.ACCEPTING } });
    assert.equal(await placeAt(world, merchant, {}), { status: 200 }, "resumed");
  },
);

Rules(
  "an item sold out in one store is refused there only, until its unavailableUntil",
  async ({ world, merchant }) => {
    const { gw } = world;
    await setHours(world, merchant, 1, { weekly: allWeek });
    // The seeded menu has the third item sold out in store 2.
    const soldOut = merchant.items[2]!.id;
    const lines = (itemId: number) => [
      { itemId: merchant.items[0]!.id, quantity: 1 },
      { itemId, quantity: 2 },
    ];
    const before = await orderCount(world, merchant);
    assert.equal(
      await placeAt(world, merchant, { storeId: merchant.storeIds[1], lines: lines(soldOut) }),
      refused("partner.item_sold_out", "lines.1.itemId"),
    );
    assert.equal(await orderCount(world, merchant), before, "nothing written");
    assert.equal(await placeAt(world, merchant, { storeId: merchant.storeIds[0], lines: lines(soldOut) }), {
      status: 200,
    });
    // A FULL app sells the first item out in store 1 for ten minutes.
    const full = await gw.fixture({ product: "FULL", region: merchant.fixture.region, seed: false });
    await createGrantQueries(gw.app.control.sql).ensureLive(
      full.appId,
      merchant.fixture.companyId,
      merchant.fixture.env,
      new Date(gw.clock.now()),
    );
    const until = new Date(gw.clock.now() + 10 * minute).toISOString();
    const sellOut = await call(
      world,
      gw.token({ ...full, companyId: merchant.fixture.companyId }),
      "PUT",
      `/v1/stores/${merchant.storeIds[0]}/items/${merchant.items[0]!.id}/availability`,
      { available: false, unavailableUntil: until },
    );
    assert.is(sellOut.status, 200);
    assert.equal(await placeAt(world, merchant, {}), refused("partner.item_sold_out", "lines.0.itemId"));
    gw.clock.advance(10 * minute);
    assert.equal(await placeAt(world, merchant, {}), { status: 200 }, "back on sale at unavailableUntil");
  },
);

Rules("opening hours in the store's zone: overnight ranges, dated exceptions, ASAP at now", async ({ world }) => {
  const { gw } = world;
  const merchant = await onlineOrderMerchant(world); // Asia/Kolkata, UTC+05:30 all year
  const offset = 330 * minute;
  // Thursday 00:00 local, at most a week ahead: Friday, Saturday and Monday are then within the 7 days allowed.
  const local = gw.clock.now() + offset;
  const thursday = Math.floor(local / day) * day + ((4 - new Date(local).getUTCDay() + 7) % 7 || 7) * day;
  gw.clock.set(thursday - offset);
  const date = (days: number) => new Date(thursday + days * day).toISOString().slice(0, 10);
  await setHours(world, merchant, 0, {
    weekly: [
      { day: Weekday.FRIDAY, ranges: [range("18:00", "02:00")] },
      { day: Weekday.SATURDAY, ranges: [range("10:00", "14:00")] },
    ],
    exceptions: [
      { date: date(2), ranges: [], note: "Closed for a wedding" },
      { date: date(4), ranges: [range("10:00", "12:00")], note: "Open this Monday" },
    ],
  });
  const at = (days: number, time: string) =>
    new Date(thursday + days * day + (Number(time.slice(0, 2)) * 60 + Number(time.slice(3))) * minute - offset);
  const closed = refused("partner.store_closed", "requestedFor");
  const cases: Array<[number, string, boolean]> = [
    [1, "17:59", false],
    [1, "18:00", true],
    [2, "01:59", true], // Friday's range runs into Saturday, whose exception closes Saturday's own hours only
    [2, "02:00", false],
    [2, "12:00", false], // the exception replaces Saturday 10:00-14:00
    [3, "12:00", false], // Sunday: not listed, closed
    [4, "11:59", true], // Monday: closed weekly, open by its exception
    [4, "12:00", false],
  ];
  const before = await orderCount(world, merchant);
  for (const [days, time, open] of cases) {
    const requestedFor = at(days, time).toISOString();
    assert.equal(await placeAt(world, merchant, { requestedFor }), open ? { status: 200 } : closed, requestedFor);
  }
  assert.equal((await orderCount(world, merchant)).orders, before.orders + 3, "only the open ones written");
  assert.equal(await placeAt(world, merchant, {}), closed, "ASAP on Thursday, closed");
  gw.clock.set(at(1, "19:00").getTime());
  assert.equal(await placeAt(world, merchant, {}), { status: 200 }, "ASAP on Friday evening");
});

/** The next instant after `from` at which America/New_York's offset changes, to the minute. */
function nextTransition(from: number): number {
  const offset = (at: number) => {
    const text = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", timeZoneName: "longOffset" })
      .formatToParts(new Date(at))
      .find((part) => part.type === "timeZoneName")!.value;
    return text;
  };
  let low = from;
  while (offset(low + day) === offset(from)) low += day;
  let high = low + day;
  while (high - low > minute) {
    const middle = low + Math.floor((high - low) / 2 / minute) * minute;
    if (offset(middle) === offset(from)) low = middle;
    else high = middle;
  }
  return high;
}

/** Each instant (minutes from the change `change`) as ordered for, in store 1 or 2: open or not. */
async function checkAround(
  world: OrdersWorld,
  merchant: Merchant,
  change: number,
  cases: Array<[0 | 1, number, boolean]>,
) {
  world.gw.clock.set(change - 2 * day);
  for (const [store, minutes, open] of cases) {
    const requestedFor = new Date(change + minutes * minute).toISOString();
    const answer = await placeAt(world, merchant, { storeId: merchant.storeIds[store], requestedFor });
    assert.equal(answer, open ? { status: 200 } : refused("partner.store_closed", "requestedFor"), requestedFor);
  }
}

Rules("daylight saving, America/New_York: a range closing or opening in the spring-forward gap", async ({ world }) => {
  const merchant = await onlineOrderMerchant(world, { region: "us" });
  // The second Sunday of March, 02:00 EST (07:00Z) becomes 03:00 EDT.
  let change = nextTransition(world.gw.clock.now());
  if (new Date(change).getUTCMonth() !== 2) change = nextTransition(change + day);
  assert.equal([new Date(change).getUTCDay(), new Date(change).toISOString().slice(11, 16)], [0, "07:00"]);
  await setHours(world, merchant, 0, { weekly: [{ day: Weekday.SATURDAY, ranges: [range("20:00", "02:30")] }] });
  await setHours(world, merchant, 1, { weekly: [{ day: Weekday.SUNDAY, ranges: [range("02:30", "03:30")] }] });
  await checkAround(world, merchant, change, [
    [0, -1, true], // 01:59 EST
    [0, 0, false], // 03:00 EDT: 02:30 never comes, the range closed at the jump
    [1, -1, false],
    [1, 0, true], // opens at the jump
    [1, 29, true], // 03:29 EDT
    [1, 30, false], // 03:30 EDT: thirty minutes of real time
  ]);
});

Rules("daylight saving, America/New_York: the repeated hour of the fall-back night", async ({ world }) => {
  const merchant = await onlineOrderMerchant(world, { region: "us" });
  // The first Sunday of November, 02:00 EDT (06:00Z) becomes 01:00 EST: 01:00 to 02:00 happens twice.
  let change = nextTransition(world.gw.clock.now());
  if (new Date(change).getUTCMonth() !== 10) change = nextTransition(change + day);
  assert.equal([new Date(change).getUTCDay(), new Date(change).toISOString().slice(11, 16)], [0, "06:00"]);
  await setHours(world, merchant, 0, { weekly: [{ day: Weekday.SATURDAY, ranges: [range("20:00", "01:30")] }] });
  await setHours(world, merchant, 1, { weekly: [{ day: Weekday.SUNDAY, ranges: [range("01:30", "03:00")] }] });
  await checkAround(world, merchant, change, [
    [0, -15, true], // 01:45 EDT: past 01:30 once, but the range closes at the second 01:30
    [0, 15, true], // 01:15 EST
    [0, 29, true],
    [0, 30, false], // 01:30 EST
    [1, -31, false], // 01:29 EDT
    [1, -30, true], // 01:30 EDT: opens at the first 01:30
    [1, 5, true], // 01:05 EST: the clock went back, the store stays open
    [1, 119, true], // 02:59 EST
    [1, 120, false],
  ]);
  world.gw.clock.set(change + 15 * minute);
  assert.equal(await placeAt(world, merchant, {}), { status: 200 }, "ASAP at 01:15 EST");
  world.gw.clock.set(change + 30 * minute);
  assert.equal(
    await placeAt(world, merchant, {}),
    refused("partner.store_closed", "requestedFor"),
    "ASAP at 01:30 EST",
  );
});

Rules.run();
