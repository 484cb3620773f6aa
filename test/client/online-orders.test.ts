// The partner client's online orders against the real app: orders.place, orders.cancel, orders.findByReference and
// the orders.changes iterator over the feed (resumable from the cursor it yields), with an ONLINE_ORDER app's sandbox
// connection. The automatic sandbox merchant is off: the test moves orders with the sandbox helper.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import type { OrderChange, PartnerApiError } from "../../src/client/index.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { clientFor, newSeededWorld } from "../support/client.js";

const Orders = suite("client/online-orders");
const clock = createManualClock(Date.now());
let test: TestApp;

Orders.before(async () => {
  test = await startTestApp({
    clock,
    redis: false,
    env: { GATEWAY_CACHE_SECONDS: "0", SANDBOX_ORDER_AUTOPILOT_SECONDS: "0" },
  });
});
Orders.after(async () => {
  await test.stop();
});

Orders("orders.place, findByReference, cancel, and orders.changes resuming from its cursor", async () => {
  const w = await newSeededWorld(test, clock, "http://127.0.0.1:9/orders/1", Product.ONLINE_ORDER);
  const { client } = clientFor(test, w, clock);
  await client.connectSandbox(w.companyId);
  const merchant = client.merchant(w.companyId);
  const [store] = (await merchant.stores.list()).stores;
  const [first, second] = (await merchant.items.list({ limit: 2 })).items;
  const start = new Date(clock.now()).toISOString();

  const order = await merchant.orders.place({
    storeId: store!.id,
    lines: [
      { itemId: first!.id, quantity: 2 },
      { itemId: second!.id, quantity: 1, note: "warm" },
    ],
    fulfilment: { type: "PICKUP" },
    customer: { name: "Client test" },
    externalReference: "client-1",
  });
  assert.is(order.status, "PENDING");
  assert.is(order.totalMinor, first!.priceMinor * 2 + second!.priceMinor);
  assert.equal(
    (await merchant.orders.findByReference("client-1")).map((found) => found.id),
    [order.id],
  );
  assert.equal(await merchant.onlineOrders.findByReference("client-2"), []);

  const other = await merchant.orders.place({
    storeId: store!.id,
    lines: [{ itemId: first!.id, quantity: 1 }],
    fulfilment: { type: "PICKUP" },
    customer: { name: "B" },
    externalReference: "client-2",
  });
  const cancelled = await merchant.orders.cancel(other.id);
  assert.equal([cancelled.status, cancelled.reason], ["CANCELLED", "PARTNER_CANCELLED"]);
  const again = await merchant.orders.cancel(other.id).then(
    () => undefined,
    (error: unknown) => error as PartnerApiError,
  );
  assert.equal([again?.code, again?.status], ["partner.order_status_conflict", 409]);

  // The feed from `start`: both orders once, then it ends at the first empty page with a cursor to keep.
  const seen: OrderChange[] = [];
  for await (const change of merchant.orders.changes({ updatedFrom: start }, { limit: 1 })) seen.push(change);
  assert.equal(
    seen.map((change) => [change.order.id, change.order.status]),
    [
      [order.id, "PENDING"],
      [other.id, "CANCELLED"],
    ],
  );
  const cursor = seen.at(-1)!.cursor!;
  assert.type(cursor, "string");

  // A change later: resuming from the kept cursor gives it, and only it.
  const token = await merchant.accessToken();
  const moved = await fetch(`${test.base}/v1/sandbox/online-orders/${order.id}/status`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ status: "ACCEPTED" }),
  });
  assert.is(moved.status, 200);
  const resumed: OrderChange[] = [];
  for await (const change of merchant.orders.changes({ cursor })) resumed.push(change);
  assert.equal(
    resumed.map((change) => [change.order.id, change.order.status]),
    [[order.id, "ACCEPTED"]],
  );

  // follow: polls again after an empty page until the signal aborts; an order placed meanwhile comes through.
  const abort = new AbortController();
  const placing = merchant.orders.place({
    storeId: store!.id,
    lines: [{ itemId: first!.id, quantity: 1 }],
    fulfilment: { type: "PICKUP" },
    customer: { name: "C" },
    externalReference: "client-3",
  });
  const followed: string[] = [];
  for await (const change of merchant.orders.changes(
    { cursor: resumed.at(-1)!.cursor! },
    { follow: { intervalMs: 5 }, signal: abort.signal },
  )) {
    followed.push(change.order.externalReference!);
    abort.abort();
  }
  assert.equal(followed, ["client-3"]);
  assert.is((await placing).externalReference, "client-3");
});

Orders.run();
