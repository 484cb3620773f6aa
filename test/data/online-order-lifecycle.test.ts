// Online orders end to end over real ports (issue 25): placing priced from the catalogue, every move of the lifecycle
// table (allowed and refused), two racing moves, the decision timeout on the injected clock, bad input and refusals
// that store nothing, scopes and store scope, who may cancel, the point of sale's RPCs on the internal port and their
// refusal for other roles, the sandbox helper, and reconciling by externalReference.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Code, type ConnectError } from "@connectrpc/connect";
import { OnlineOrderReason } from "../../gen/partnerapi/v1/data_service_pb.js";
import { messageFor, readServiceError } from "../../src/errors/index.js";
import {
  call,
  onlineOrderMerchant,
  orderBody,
  orderCount,
  place,
  secondApp,
  startOrdersWorld,
  type Json,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Lifecycle = suite<{ world: OrdersWorld; merchant: Merchant }>("data/online-order-lifecycle", {} as never);

Lifecycle.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
});

Lifecycle.after(async ({ world }) => {
  await world.gw.stop();
});

/** The code, params and gRPC code a call on the internal port failed with. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ grpc: Code; code: string; params: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    const { code, params } = readServiceError(error);
    return { grpc: (error as ConnectError).code, code, params };
  }
  throw new Error("the call succeeded");
}

const ids = (merchant: Merchant, order: Json) => ({
  companyId: BigInt(merchant.fixture.companyId),
  id: BigInt(order.id),
});

/** The point of sale's moves, by name, on one order. */
function posMoves(world: OrdersWorld, merchant: Merchant) {
  return {
    accept: (order: Json) =>
      world.pos.acceptOnlineOrder({ ...ids(merchant, order), promisedFor: "2030-01-01T12:30:00Z" }),
    reject: (order: Json) =>
      world.pos.rejectOnlineOrder({ ...ids(merchant, order), reason: OnlineOrderReason.TOO_BUSY }),
    markReady: (order: Json) => world.pos.markOnlineOrderReady(ids(merchant, order)),
    complete: (order: Json) => world.pos.completeOnlineOrder(ids(merchant, order)),
    cancelAsMerchant: (order: Json) =>
      world.pos.cancelOnlineOrderAsMerchant({ ...ids(merchant, order), reason: OnlineOrderReason.CUSTOMER_NO_SHOW }),
  };
}

/** The history of an order as (from, to, actor, reason) rows. */
async function history(world: OrdersWorld, merchant: Merchant, order: Json) {
  const { events } = await world.pos.listOnlineOrderEvents(ids(merchant, order));
  return events.map((event) => [
    event.type,
    event.fromStatus,
    event.toStatus,
    event.actor,
    OnlineOrderReason[event.reason],
  ]);
}

Lifecycle(
  "placing prices the order from the catalogue at that moment and answers the full order; its creation is recorded",
  async ({ world, merchant }) => {
    // The outbox rows are read below: the relay, which fans them out and deletes them, stops first (it had taken
    // one before this test read it, in a CI run on a slow host). No later test of this file reads a delivery.
    await world.gw.app.webhooks.relay?.stop();
    const [first, second] = merchant.items;
    const body = orderBody(merchant, {
      note: "Leave at the counter",
      requestedFor: new Date(world.gw.clock.now() + 3_600_000).toISOString(),
    });
    const placed = await call(world, merchant.token, "POST", "/v1/online-orders", body);
    assert.is(placed.status, 200);
    assert.is(placed.headers.get("x-ratelimit-limit"), "300");
    const order = placed.body.order;
    const now = new Date(world.gw.clock.now());
    assert.equal(order, {
      id: order.id,
      storeId: merchant.storeIds[0],
      status: "PENDING",
      totalMinor: first!.price * 2 + second!.price,
      currency: "INR",
      placedAt: now.toISOString(),
      updatedAt: order.updatedAt,
      lines: [
        {
          name: first!.name,
          quantity: 2,
          totalMinor: first!.price * 2,
          itemCode: first!.code,
          unitPriceMinor: first!.price,
          note: "no sugar",
          modifiers: [],
        },
        {
          name: second!.name,
          quantity: 1,
          totalMinor: second!.price,
          itemCode: second!.code,
          unitPriceMinor: second!.price,
          modifiers: [],
        },
      ],
      fulfilment: { type: "PICKUP" },
      customer: { name: "Asha Rao", phone: "+91 98765 43210" },
      externalReference: body["externalReference"],
      note: "Leave at the counter",
      requestedFor: body["requestedFor"],
      decideBy: new Date(now.getTime() + 900_000).toISOString(),
    });
    assert.match(order.updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    assert.ok(Date.parse(order.updatedAt) >= now.getTime());

    // Its online_order.created event, written in the same statement, carries the order as answered: the id, the
    // stamp and the times as stored (an offset and microseconds in requestedFor come back as UTC milliseconds).
    const sql = world.gw.app.regionDatabases.get("in")!.sql;
    const eventOf = async (id: number) => {
      const [row] = await sql<{ data: Json }[]>`
        select data from region_in.webhook_outbox
        where type = 'online_order.created' and (data -> 'order' ->> 'id')::bigint = ${id}`;
      return row?.data;
    };
    assert.equal(await eventOf(order.id), { companyId: merchant.fixture.companyId, order });
    const inOneHour = new Date(world.gw.clock.now() + 3_600_000 + 19_800_000).toISOString().slice(0, 23);
    const delivered = await call(world, merchant.token, "POST", "/v1/online-orders", {
      ...orderBody(merchant, { requestedFor: `${inOneHour}456+05:30` }),
      fulfilment: { type: "DELIVERY", deliveryAddress: { line1: "12 MG Road", city: "Bengaluru", postcode: "560001" } },
    });
    assert.is(delivered.status, 200, JSON.stringify(delivered.body));
    assert.is(delivered.body.order.requestedFor, new Date(world.gw.clock.now() + 3_600_000).toISOString());
    assert.equal(await eventOf(delivered.body.order.id), {
      companyId: merchant.fixture.companyId,
      order: delivered.body.order,
    });

    // The catalogue changing later does not change the order: names and prices were copied.
    await sql`update region_in.items set price_minor = price_minor + 1000, name = 'Renamed' where id = ${first!.id}`;
    const read = await call(world, merchant.token, "GET", `/v1/online-orders/${order.id}`);
    assert.is(read.status, 200);
    assert.equal(read.body.order, order);
    await sql`update region_in.items set price_minor = ${first!.price}, name = ${first!.name} where id = ${first!.id}`;

    assert.equal(await history(world, merchant, order), [
      ["online_order.created", "", "PENDING", `app:${merchant.fixture.appId}`, "UNSPECIFIED"],
    ]);

    // Delivery carries its address.
    const address = { line1: "12 MG Road", city: "Bengaluru", postcode: "560001", instructions: "Ring twice" };
    const delivery = await place(world, merchant, { fulfilment: { type: "DELIVERY", deliveryAddress: address } });
    assert.equal(delivery.fulfilment, { type: "DELIVERY", deliveryAddress: address });
  },
);

Lifecycle(
  "every move of the table, by whom the table says: status, reason, promised time and history",
  async ({ world, merchant }) => {
    const pos = posMoves(world, merchant);
    const app = `app:${merchant.fixture.appId}`;

    const served = await place(world, merchant);
    assert.is((await pos.accept(served)).order?.status, "ACCEPTED");
    assert.is((await pos.markReady(served)).order?.status, "READY");
    const completed = await pos.complete(served);
    assert.is(completed.order?.status, "COMPLETED");
    assert.is(completed.order?.promisedFor, "2030-01-01T12:30:00.000Z");
    assert.is(completed.order?.decideBy, undefined, "no deadline once decided");
    assert.equal(await history(world, merchant, served), [
      ["online_order.created", "", "PENDING", app, "UNSPECIFIED"],
      ["online_order.updated", "PENDING", "ACCEPTED", "pos", "UNSPECIFIED"],
      ["online_order.updated", "ACCEPTED", "READY", "pos", "UNSPECIFIED"],
      ["online_order.updated", "READY", "COMPLETED", "pos", "UNSPECIFIED"],
    ]);

    const rejected = await place(world, merchant);
    const rejection = await pos.reject(rejected);
    assert.is(rejection.order?.status, "REJECTED");
    assert.is(rejection.order?.reason, OnlineOrderReason.TOO_BUSY);
    const read = await call(world, merchant.token, "GET", `/v1/online-orders/${rejected.id}`);
    assert.is(read.body.order.reason, "TOO_BUSY");
    assert.is(read.body.order.status, "REJECTED");

    const cancelled = await place(world, merchant);
    const cancel = await call(world, merchant.token, "POST", `/v1/online-orders/${cancelled.id}/cancel`, {});
    assert.is(cancel.status, 200);
    assert.is(cancel.body.order.status, "CANCELLED");
    assert.is(cancel.body.order.reason, "PARTNER_CANCELLED");
    assert.ok(cancel.body.order.updatedAt > cancelled.updatedAt, "updatedAt moves with every move");
    assert.equal((await history(world, merchant, cancelled)).at(-1), [
      "online_order.updated",
      "PENDING",
      "CANCELLED",
      app,
      "PARTNER_CANCELLED",
    ]);

    for (const readyFirst of [false, true]) {
      const order = await place(world, merchant);
      await pos.accept(order);
      if (readyFirst) await pos.markReady(order);
      const merchantCancel = await pos.cancelAsMerchant(order);
      assert.is(merchantCancel.order?.status, "CANCELLED");
      assert.is(merchantCancel.order?.reason, OnlineOrderReason.CUSTOMER_NO_SHOW);
      assert.equal((await history(world, merchant, order)).at(-1), [
        "online_order.updated",
        readyFirst ? "READY" : "ACCEPTED",
        "CANCELLED",
        "pos",
        "CUSTOMER_NO_SHOW",
      ]);
    }
  },
);

Lifecycle(
  "every move the table does not allow, from every status: 409 partner.order_status_conflict naming the current status",
  async ({ world, merchant }) => {
    const pos = posMoves(world, merchant);
    // One order in each status.
    const inStatus: Record<string, Json> = {};
    inStatus["PENDING"] = await place(world, merchant);
    inStatus["ACCEPTED"] = await place(world, merchant);
    await pos.accept(inStatus["ACCEPTED"]);
    inStatus["READY"] = await place(world, merchant);
    await pos.accept(inStatus["READY"]);
    await pos.markReady(inStatus["READY"]);
    inStatus["COMPLETED"] = await place(world, merchant);
    await pos.accept(inStatus["COMPLETED"]);
    await pos.markReady(inStatus["COMPLETED"]);
    await pos.complete(inStatus["COMPLETED"]);
    inStatus["REJECTED"] = await place(world, merchant);
    await pos.reject(inStatus["REJECTED"]);
    inStatus["CANCELLED"] = await place(world, merchant);
    await call(world, merchant.token, "POST", `/v1/online-orders/${inStatus["CANCELLED"].id}/cancel`, {});

    const allowed: Record<string, { target: string; from: string[] }> = {
      accept: { target: "ACCEPTED", from: ["PENDING"] },
      reject: { target: "REJECTED", from: ["PENDING"] },
      markReady: { target: "READY", from: ["ACCEPTED"] },
      complete: { target: "COMPLETED", from: ["READY"] },
      cancelAsMerchant: { target: "CANCELLED", from: ["ACCEPTED", "READY"] },
      cancelByPartner: { target: "CANCELLED", from: ["PENDING"] },
    };
    let refused = 0;
    for (const [status, order] of Object.entries(inStatus)) {
      for (const [move, { target, from }] of Object.entries(allowed)) {
        if (from.includes(status)) continue;
        if (move === "cancelByPartner") {
          const answer = await call(world, merchant.token, "POST", `/v1/online-orders/${order.id}/cancel`, {});
          assert.is(answer.status, 409, `${move} from ${status}`);
          assert.equal(answer.body.code, "partner.order_status_conflict");
          assert.equal(answer.body.params, { status, target });
          assert.is(answer.body.message, `The online order is ${status}; it cannot become ${target}.`);
        } else {
          const failure = await refusal(pos[move as keyof typeof pos](order));
          assert.equal(
            failure,
            { grpc: Code.FailedPrecondition, code: "partner.order_status_conflict", params: { status, target } },
            `${move} from ${status}`,
          );
        }
        refused += 1;
      }
      // Nothing moved: the order is as it was, and its history has no row for a refused move.
      const read = await call(world, merchant.token, "GET", `/v1/online-orders/${order.id}`);
      assert.is(read.body.order.status, status);
    }
    assert.is(refused, 6 * 6 - 7);
    assert.is((await history(world, merchant, inStatus["PENDING"])).length, 1);

    const missing = await refusal(pos.accept({ id: 987_654_321 }));
    assert.equal(missing, { grpc: Code.NotFound, code: "partner.order_not_found", params: {} });
  },
);

Lifecycle(
  "two racing moves: exactly one wins, the other gets 409 naming the winner's status; one history row per move",
  async ({ world, merchant }) => {
    const pos = posMoves(world, merchant);
    const orders = await Promise.all(Array.from({ length: 6 }, () => place(world, merchant)));
    const outcomes = await Promise.all(
      orders.map(async (order) => {
        const [accepted, cancelled] = await Promise.all([
          pos.accept(order).then(
            () => "won",
            (error: unknown) => readServiceError(error),
          ),
          call(world, merchant.token, "POST", `/v1/online-orders/${order.id}/cancel`, {}).then((answer) =>
            answer.status === 200 ? "won" : answer.body,
          ),
        ]);
        return { order, accepted, cancelled };
      }),
    );
    for (const { order, accepted, cancelled } of outcomes) {
      const winners = [accepted, cancelled].filter((outcome) => outcome === "won");
      assert.is(winners.length, 1, JSON.stringify({ accepted, cancelled }));
      const final = (await call(world, merchant.token, "GET", `/v1/online-orders/${order.id}`)).body.order.status;
      if (accepted === "won") {
        assert.is(final, "ACCEPTED");
        assert.equal(
          { statusCode: cancelled.statusCode, code: cancelled.code, params: cancelled.params },
          {
            statusCode: 409,
            code: "partner.order_status_conflict",
            params: { status: "ACCEPTED", target: "CANCELLED" },
          },
        );
      } else {
        assert.is(final, "CANCELLED");
        assert.equal(accepted, {
          code: "partner.order_status_conflict",
          params: { status: "CANCELLED", target: "ACCEPTED" },
        });
      }
      assert.is((await history(world, merchant, order)).length, 2);
    }
  },
);

Lifecycle(
  "a PENDING order with no decision in 15 minutes is REJECTED with TIMED_OUT by the platform; a decided one is not",
  async ({ world, merchant }) => {
    const timers = world.gw.app.orderTimers.get("in")!;
    const waiting = await place(world, merchant);
    const decided = await place(world, merchant);
    await posMoves(world, merchant).accept(decided);
    world.gw.clock.advance(899_000);
    await timers.runDue();
    const token = world.gw.token(merchant.fixture);
    assert.is((await call(world, token, "GET", `/v1/online-orders/${waiting.id}`)).body.order.status, "PENDING");
    world.gw.clock.advance(1_000);
    await timers.runDue();
    const timedOut = (await call(world, token, "GET", `/v1/online-orders/${waiting.id}`)).body.order;
    assert.is(timedOut.status, "REJECTED");
    assert.is(timedOut.reason, "TIMED_OUT");
    assert.is(timedOut.decideBy, undefined);
    assert.equal((await history(world, merchant, waiting)).at(-1), [
      "online_order.updated",
      "PENDING",
      "REJECTED",
      "platform",
      "TIMED_OUT",
    ]);
    assert.is((await call(world, token, "GET", `/v1/online-orders/${decided.id}`)).body.order.status, "ACCEPTED");
    // Too late for the merchant now.
    const late = await refusal(posMoves(world, merchant).accept(waiting));
    assert.equal(late.params, { status: "REJECTED", target: "ACCEPTED" });
    merchant.token = token;
  },
);

Lifecycle("bad input of each kind: 400 naming the field, no code, nothing stored", async ({ world, merchant }) => {
  const item = merchant.items[0]!.id;
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["an empty order", { lines: [] }, "lines"],
    ["too many lines", { lines: Array.from({ length: 51 }, () => ({ itemId: item, quantity: 1 })) }, "lines"],
    ["a quantity of 0", { lines: [{ itemId: item, quantity: 0 }] }, "lines.0.quantity"],
    ["a quantity of 100", { lines: [{ itemId: item, quantity: 100 }] }, "lines.0.quantity"],
    ["a fractional quantity", { lines: [{ itemId: item, quantity: 1.5 }] }, "lines.0.quantity"],
    ["no item id", { lines: [{ quantity: 1 }] }, "lines.0.itemId"],
    ["an unknown field", { coupon: "FREE" }, "coupon"],
    ["no customer", { customer: undefined }, "customer"],
    ["no customer name", { customer: { phone: "+44 20 7946 0000" } }, "customer.name"],
    ["a phone that is not one", { customer: { name: "A", phone: "call me" } }, "customer.phone"],
    ["no externalReference", { externalReference: undefined }, "externalReference"],
    ["an unknown fulfilment", { fulfilment: { type: "DRONE" } }, "fulfilment.type"],
    ["delivery without an address", { fulfilment: { type: "DELIVERY" } }, "fulfilment.deliveryAddress"],
    [
      "pickup with an address",
      { fulfilment: { type: "PICKUP", deliveryAddress: { line1: "1 A St", city: "X", postcode: "1" } } },
      "fulfilment.deliveryAddress",
    ],
    ["a requestedFor that is no date-time", { requestedFor: "tomorrow" }, "requestedFor"],
    ["a store id of 0", { storeId: 0 }, "storeId"],
  ];
  const before = await orderCount(world, merchant);
  for (const [name, overrides, field] of cases) {
    const answer = await call(world, merchant.token, "POST", "/v1/online-orders", orderBody(merchant, overrides));
    assert.is(answer.status, 400, name);
    assert.is(answer.body.code, undefined, `${name}: validation failures carry no code`);
    assert.equal(answer.body.params.fields, field, name);
  }
  assert.equal(await orderCount(world, merchant), before, "nothing stored");
});

Lifecycle(
  "requestedFor before now or beyond 7 days, a DELIVERY without the customer's phone: 400 with a code each naming the field; nothing stored",
  async ({ world, merchant }) => {
    const now = world.gw.clock.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const week = 7 * 86_400_000;
    const address = { line1: "12 MG Road", city: "Bengaluru", postcode: "560001" };
    const outOfRange = {
      code: "partner.order_requested_for_out_of_range",
      params: { field: "requestedFor", maxDays: 7 },
    };
    const noPhone = { code: "partner.order_customer_phone_required", params: { field: "customer.phone" } };
    const cases: Array<[string, Record<string, unknown>, { code: string; params: Record<string, string | number> }]> = [
      ["a second in the past", { requestedFor: at(now - 1_000) }, outOfRange],
      ["in 2020", { requestedFor: "2020-01-01T00:00:00Z" }, outOfRange],
      ["a second beyond 7 days", { requestedFor: at(now + week + 1_000) }, outOfRange],
      ["in year 9999", { requestedFor: "9999-12-31T23:59:59+05:30" }, outOfRange],
      [
        "delivery, no phone",
        { fulfilment: { type: "DELIVERY", deliveryAddress: address }, customer: { name: "A" } },
        noPhone,
      ],
    ];
    const before = await orderCount(world, merchant);
    for (const [name, overrides, expected] of cases) {
      const path = "/v1/online-orders";
      const answer = await call(world, merchant.token, "POST", path, orderBody(merchant, overrides));
      assert.is(answer.status, 400, name);
      assert.equal(
        answer.body,
        {
          status: "error",
          statusCode: 400,
          timestamp: new Date(world.gw.clock.now()).toISOString(),
          path,
          message: messageFor(expected.code as never, expected.params as never),
          code: expected.code,
          params: expected.params,
          correlationId: answer.headers.get("x-correlation-id"),
        },
        name,
      );
    }
    assert.equal(await orderCount(world, merchant), before, "nothing stored");
    // The bounds themselves are accepted: now, and exactly 7 days ahead; a delivery with a phone.
    assert.is((await place(world, merchant, { requestedFor: at(now) })).status, "PENDING");
    assert.is((await place(world, merchant, { requestedFor: at(now + week) })).requestedFor, at(now + week));
    const delivery = { fulfilment: { type: "DELIVERY", deliveryAddress: address } };
    assert.is((await place(world, merchant, delivery)).customer.phone, "+91 98765 43210");
  },
);

Lifecycle(
  "an unknown store or item, another merchant's store or item, an item in another currency: a code each and the field; nothing stored",
  async ({ world, merchant }) => {
    const other = await onlineOrderMerchant(world);
    const sql = world.gw.app.regionDatabases.get("in")!.sql;
    const [dollars] = await sql<{ id: number }[]>`
    insert into region_in.items (company_id, name, code, price_minor, currency) values (${merchant.fixture.companyId}, 'Imported', 'USD1', 500, 'USD') returning id`;
    const second = (itemId: number) => [
      { itemId: merchant.items[0]!.id, quantity: 1 },
      { itemId, quantity: 1 },
    ];
    const cases: Array<[string, Record<string, unknown>, number, string, string]> = [
      ["an unknown store", { storeId: 987_654_321 }, 404, "partner.store_not_found", "storeId"],
      ["another merchant's store", { storeId: other.storeIds[0] }, 404, "partner.store_not_found", "storeId"],
      ["an unknown item", { lines: second(987_654_321) }, 404, "partner.item_not_found", "lines.1.itemId"],
      [
        "another merchant's item",
        { lines: second(other.items[0]!.id) },
        404,
        "partner.item_not_found",
        "lines.1.itemId",
      ],
      [
        "an item in dollars",
        { lines: second(Number(dollars!.id)) },
        409,
        "partner.item_currency_mismatch",
        "lines.1.itemId",
      ],
    ];
    const before = await orderCount(world, merchant);
    for (const [name, overrides, status, code, field] of cases) {
      const answer = await call(world, merchant.token, "POST", "/v1/online-orders", orderBody(merchant, overrides));
      assert.is(answer.status, status, name);
      assert.equal(
        { code: answer.body.code, params: answer.body.params, message: answer.body.message },
        { code, params: { field }, message: messageFor(code as never, { field }) },
        name,
      );
    }
    assert.equal(await orderCount(world, merchant), before, "nothing stored");
    await sql`delete from region_in.items where id = ${dollars!.id}`;
  },
);

Lifecycle(
  "scopes: a FULL app reads orders but cannot place or cancel (orders.write); the sandbox helper needs a sandbox token",
  async ({ world, merchant }) => {
    const order = await place(world, merchant);
    const full = await world.gw.fixture({ product: "FULL", region: "in", seed: false });
    const fullToken = world.gw.token({ ...full, companyId: merchant.fixture.companyId });
    await (await import("../../src/grant/queries/grant-queries.js"))
      .createGrantQueries(world.gw.app.control.sql)
      .ensureLive(full.appId, merchant.fixture.companyId, "PRODUCTION", new Date(world.gw.clock.now()));
    assert.is((await call(world, fullToken, "GET", `/v1/online-orders/${order.id}`)).status, 200);
    for (const [method, path] of [
      ["POST", "/v1/online-orders"],
      ["POST", `/v1/online-orders/${order.id}/cancel`],
    ] as const) {
      const answer = await call(world, fullToken, method, path, orderBody(merchant));
      assert.is(answer.status, 403, path);
      assert.is(answer.body.code, "partner.scope_denied");
    }
    const helper = await call(world, merchant.token, "POST", `/v1/sandbox/online-orders/${order.id}/status`, {
      status: "ACCEPTED",
    });
    assert.is(helper.status, 403);
    assert.is(helper.body.code, "partner.env_mismatch");
    assert.is(helper.body.message, messageFor("partner.env_mismatch"));
    assert.is(helper.headers.get("x-ratelimit-limit"), "300");
    assert.is(
      (await call(world, merchant.token, "GET", `/v1/online-orders/${order.id}`)).body.order.status,
      "PENDING",
      "nothing moved",
    );
  },
);

Lifecycle(
  "another app of the merchant sees the order but may not cancel it: 403 partner.order_not_owned",
  async ({ world, merchant }) => {
    const order = await place(world, merchant);
    const other = await secondApp(world, merchant);
    const read = await call(world, other.token, "GET", `/v1/online-orders/${order.id}`);
    assert.is(read.status, 200);
    assert.is(read.body.order.externalReference, order.externalReference);
    const cancel = await call(world, other.token, "POST", `/v1/online-orders/${order.id}/cancel`, {});
    assert.is(cancel.status, 403);
    assert.is(cancel.body.code, "partner.order_not_owned");
    assert.is((await call(world, merchant.token, "GET", `/v1/online-orders/${order.id}`)).body.order.status, "PENDING");
    const unknown = await call(world, other.token, "POST", "/v1/online-orders/987654321/cancel", {});
    assert.is(unknown.status, 404);
    assert.is(unknown.body.code, "partner.order_not_found");
  },
);

Lifecycle(
  "after a network error a partner finds its order by externalReference (its own orders only)",
  async ({ world, merchant }) => {
    const reference = `lost-${Date.now()}`;
    const order = await place(world, merchant, { externalReference: reference });
    const found = await call(world, merchant.token, "GET", `/v1/online-orders?externalReference=${reference}`);
    assert.is(found.status, 200);
    assert.equal(
      found.body.orders.map((row: Json) => row.id),
      [order.id],
    );
    const other = await secondApp(world, merchant);
    const theirs = await call(world, other.token, "GET", `/v1/online-orders?externalReference=${reference}`);
    assert.equal(theirs.body.orders, [], "another app's reference space is its own");
    const none = await call(world, merchant.token, "GET", "/v1/online-orders?externalReference=never-sent");
    assert.equal(none.body.orders, []);
  },
);

Lifecycle(
  "store scope: a call limited to some stores cannot place for another store (partner.store_not_in_scope), and lists only its stores",
  async ({ world, merchant }) => {
    const [inScope, outOfScope] = merchant.storeIds;
    const headers = {
      "x-partner-store-scope": String(inScope),
      "x-partner-app-id": merchant.fixture.appId,
      "x-partner-environment": "PRODUCTION",
    };
    const base = orderBody(merchant);
    const request = {
      companyId: BigInt(merchant.fixture.companyId),
      lines: (base["lines"] as Json[]).map((line) => ({ itemId: BigInt(line.itemId), quantity: line.quantity })),
      fulfilment: { type: 1 },
      customer: { name: "Scoped" },
      externalReference: "scoped",
    };
    const before = await orderCount(world, merchant);
    const refused = await refusal(
      world.front.placeOnlineOrder({ ...request, storeId: BigInt(outOfScope!) }, { headers }),
    );
    assert.equal(refused, {
      grpc: Code.PermissionDenied,
      code: "partner.store_not_in_scope",
      params: { field: "storeId" },
    });
    assert.equal(await orderCount(world, merchant), before);
    const placed = await world.front.placeOnlineOrder({ ...request, storeId: BigInt(inScope!) }, { headers });
    assert.is(placed.order?.storeId, BigInt(inScope!));
    const listed = await world.front.listOnlineOrders(
      { companyId: BigInt(merchant.fixture.companyId), limit: 100 },
      { headers },
    );
    assert.ok(listed.orders.length > 0 && listed.orders.every((order) => order.storeId === BigInt(inScope!)));
  },
);

Lifecycle(
  "the pos role's RPCs: refused for front, operator and staff; pos cannot place, nor give the platform's reasons",
  async ({ world, merchant }) => {
    const order = await place(world, merchant);
    const request = { ...ids(merchant, order), promisedFor: "2030-01-01T12:30:00Z" };
    for (const client of [world.front, world.operator]) {
      assert.equal(await refusal(client.acceptOnlineOrder(request)), {
        grpc: Code.PermissionDenied,
        code: "internal.permission_denied",
        params: {},
      });
      assert.equal(await refusal(client.markOnlineOrderReady(ids(merchant, order))), {
        grpc: Code.PermissionDenied,
        code: "internal.permission_denied",
        params: {},
      });
    }
    const placing = await refusal(
      world.pos.placeOnlineOrder({ companyId: BigInt(merchant.fixture.companyId), storeId: 1n }),
    );
    assert.equal(placing, { grpc: Code.PermissionDenied, code: "internal.permission_denied", params: {} });
    const platformReason = await refusal(
      world.pos.rejectOnlineOrder({ ...ids(merchant, order), reason: OnlineOrderReason.TIMED_OUT }),
    );
    assert.equal(
      { grpc: platformReason.grpc, code: platformReason.code, fields: platformReason.params["fields"] },
      { grpc: Code.InvalidArgument, code: "request.invalid_fields", fields: "reason" },
    );
    const badTime = await refusal(world.pos.acceptOnlineOrder({ ...ids(merchant, order), promisedFor: "soon" }));
    assert.equal(
      { code: badTime.code, fields: badTime.params["fields"] },
      { code: "request.invalid_fields", fields: "promisedFor" },
    );
    const noReason = await refusal(world.pos.rejectOnlineOrder(ids(merchant, order)));
    assert.equal(
      { code: noReason.code, fields: noReason.params["fields"] },
      { code: "request.invalid_fields", fields: "reason" },
    );
    // The point of sale reads orders too, and the order is untouched by all of the above.
    const read = await world.pos.getOnlineOrder(ids(merchant, order));
    assert.is(read.order?.status, "PENDING");
  },
);

Lifecycle(
  "the sandbox helper makes the point of sale's moves on a sandbox merchant, with the same rules and history",
  async ({ world }) => {
    const sandbox = await onlineOrderMerchant(world, { demo: true });
    const order = await place(world, sandbox);
    const move = (id: number, body: unknown) =>
      call(world, sandbox.token, "POST", `/v1/sandbox/online-orders/${id}/status`, body);

    const accepted = await move(order.id, { status: "ACCEPTED" });
    assert.is(accepted.status, 200);
    assert.is(accepted.body.order.status, "ACCEPTED");
    assert.is(
      accepted.body.order.promisedFor,
      new Date(world.gw.clock.now() + 20 * 60_000).toISOString(),
      "default promise: twenty minutes",
    );
    const wrong = await move(order.id, { status: "COMPLETED" });
    assert.is(wrong.status, 409);
    assert.equal(wrong.body.params, { status: "ACCEPTED", target: "COMPLETED" });
    assert.is((await move(order.id, { status: "READY" })).body.order.status, "READY");
    assert.is((await move(order.id, { status: "COMPLETED" })).body.order.status, "COMPLETED");
    assert.equal(await history(world, sandbox, order), [
      ["online_order.created", "", "PENDING", `app:${sandbox.fixture.appId}`, "UNSPECIFIED"],
      ["online_order.updated", "PENDING", "ACCEPTED", "sandbox", "UNSPECIFIED"],
      ["online_order.updated", "ACCEPTED", "READY", "sandbox", "UNSPECIFIED"],
      ["online_order.updated", "READY", "COMPLETED", "sandbox", "UNSPECIFIED"],
    ]);

    const rejected = await place(world, sandbox);
    const rejection = await move(rejected.id, { status: "REJECTED" });
    assert.equal([rejection.body.order.status, rejection.body.order.reason], ["REJECTED", "OTHER"]);
    const promised = await place(world, sandbox);
    const withTime = await move(promised.id, { status: "ACCEPTED", promisedFor: "2030-05-01T10:00:00+01:00" });
    assert.is(withTime.body.order.promisedFor, "2030-05-01T09:00:00.000Z");
    const cancelled = await move(promised.id, { status: "CANCELLED", reason: "STORE_CLOSED" });
    assert.equal([cancelled.body.order.status, cancelled.body.order.reason], ["CANCELLED", "STORE_CLOSED"]);

    const bad: Array<[unknown, string]> = [
      [{ status: "PENDING" }, "status"],
      [{ status: "SHIPPED" }, "status"],
      [{ status: "READY", reason: "OTHER" }, "reason"],
      [{ status: "REJECTED", reason: "TIMED_OUT" }, "reason"],
      [{ status: "READY", promisedFor: "2030-01-01T00:00:00Z" }, "promisedFor"],
      [{}, "status"],
    ];
    const fresh = await place(world, sandbox);
    for (const [body, field] of bad) {
      const answer = await move(fresh.id, body);
      assert.is(answer.status, 400, JSON.stringify(body));
      assert.is(answer.body.params.fields, field, JSON.stringify(body));
    }
    assert.is((await call(world, sandbox.token, "GET", `/v1/online-orders/${fresh.id}`)).body.order.status, "PENDING");
    const missing = await move(987_654_321, { status: "ACCEPTED" });
    assert.is(missing.status, 404);
  },
);

Lifecycle(
  "buf curl: the point of sale accepts an order over gRPC with its pos credential, the schema from reflection",
  async ({ world, merchant }) => {
    const order = await place(world, merchant);
    const bufBin = fileURLToPath(new URL("../../node_modules/.bin/buf", import.meta.url));
    const body = JSON.stringify({
      companyId: String(merchant.fixture.companyId),
      id: String(order.id),
      promisedFor: "2030-02-01T09:00:00Z",
    });
    const curl = (credential: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          bufBin,
          [
            "curl",
            "--protocol",
            "grpc",
            "--http2-prior-knowledge",
            "-H",
            `x-service-credential: ${credential}`,
            "-d",
            body,
            `http://127.0.0.1:${world.gw.app.grpc.port}/partnerapi.v1.DataService/AcceptOnlineOrder`,
          ],
          { timeout: 30_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
        ),
      );
    const asFront = await curl(world.credentials.front);
    assert.is.not(asFront.code, 0);
    assert.match(asFront.stderr, "permission_denied");
    const asPos = await curl(world.credentials.pos);
    assert.is(asPos.code, 0, asPos.stderr);
    const answer = JSON.parse(asPos.stdout) as Json;
    assert.equal(
      [answer.order.id, answer.order.status, answer.order.promisedFor],
      [String(order.id), "ACCEPTED", "2030-02-01T09:00:00.000Z"],
    );
  },
);

Lifecycle.run();
