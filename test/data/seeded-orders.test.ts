// Seeded online orders follow the API guide's table like placed ones (issue 42): a seeded PENDING order was placed
// within its decision window, carries decideBy = placedAt + ONLINE_ORDER_DECISION_SECONDS, and the platform's timers
// reject it (TIMED_OUT) once that passes; the other seeded states carry none.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { seedMerchantData, seedSandboxMerchant } from "../../src/data/sandbox-data.js";
import { createOrderTimers } from "../../src/data/order-timers.js";
import { createDataService } from "../../src/data/service.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { regionSchema } from "../../src/storage/schemas.js";
import { useTestDatabase } from "../support/storage.js";

const Seeded = suite("data/seeded-orders");
const database = useTestDatabase(Seeded);
const clock = createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
const decisionSeconds = 600;
const config = loadConfig({ ONLINE_ORDER_DECISION_SECONDS: String(decisionSeconds) });
const context = { config, clock, ids: cryptoIds, logger: silentLogger };

/** A company id no other test uses (the shared database is never assumed empty). */
const uniqueCompanyId = () => 100_000 + Math.floor(Math.random() * 800_000_000);

interface OrderRow {
  id: string;
  status: string;
  reason: string | null;
  placed_at: Date;
  decide_by: Date | null;
}

async function ordersOf(companyId: number): Promise<OrderRow[]> {
  const { sql } = database();
  return sql<OrderRow[]>`select id::text, status, reason, placed_at, decide_by
    from ${sql(regionSchema("in"))}.online_orders where company_id = ${companyId} order by id`;
}

Seeded(
  "a seeded PENDING order has decideBy = placedAt + the decision window, placed within it; the timers reject it (TIMED_OUT) once it passes",
  async () => {
    const companyId = uniqueCompanyId();
    const seededAt = clock.now();
    await seedMerchantData(database().sql, "in", companyId, {
      storeCount: 1,
      itemCount: 5,
      salesDays: 0,
      onlineOrderCount: 20,
      now: new Date(seededAt),
      decisionSeconds,
    });
    const orders = await ordersOf(companyId);
    const pending = orders.filter((order) => order.status === "PENDING");
    assert.is(pending.length, 4);
    for (const order of pending) {
      assert.is(order.decide_by!.getTime(), order.placed_at.getTime() + decisionSeconds * 1000, order.id);
      assert.ok(order.placed_at.getTime() <= seededAt, order.id);
      // At least a third of the window is left to decide in.
      assert.ok(order.decide_by!.getTime() >= seededAt + (decisionSeconds * 1000) / 3, order.id);
    }
    for (const order of orders.filter((row) => row.status !== "PENDING")) assert.is(order.decide_by, null, order.id);

    // The API shows decideBy as the guide says.
    const data = createClient(
      DataService,
      createRouterTransport(({ service }) =>
        service(DataService, createDataService(context, { region: "in", sql: database().sql })),
      ),
    );
    const shown = await data.getOnlineOrder({ companyId: BigInt(companyId), id: BigInt(pending[0]!.id) });
    assert.is(shown.order!.decideBy, pending[0]!.decide_by!.toISOString());

    const timers = createOrderTimers(context, { region: "in", sql: database().sql });
    clock.advance(decisionSeconds * 1000);
    await timers.runDue();
    const after = await ordersOf(companyId);
    for (const order of pending) {
      const now = after.find((row) => row.id === order.id)!;
      assert.equal([now.status, now.reason, now.decide_by], ["REJECTED", "TIMED_OUT", null], order.id);
    }
    assert.equal(
      after.filter((row) => !pending.some((order) => order.id === row.id)).map((row) => row.status),
      orders.filter((row) => row.status !== "PENDING").map((row) => row.status),
      "the other seeded orders are untouched",
    );
  },
);

Seeded("a sandbox merchant's seed takes the configured decision window", async () => {
  const companyId = uniqueCompanyId();
  await seedSandboxMerchant(database().sql, "in", companyId, { now: new Date(clock.now()), decisionSeconds: 3600 });
  const pending = (await ordersOf(companyId)).filter((order) => order.status === "PENDING");
  assert.is(pending.length, 12);
  for (const order of pending) assert.is(order.decide_by!.getTime() - order.placed_at.getTime(), 3_600_000, order.id);
});

Seeded("the database refuses a PENDING order without decideBy", async () => {
  const { sql } = database();
  const refused = await sql`insert into ${sql(regionSchema("in"))}.online_orders
      (company_id, store_id, status, total_minor, currency, placed_at, updated_at, lines)
      values (${uniqueCompanyId()}, 1, 'PENDING', 100, 'INR', now(), now(), '[]')`.then(
    () => "inserted",
    (error: { message: string }) => error.message,
  );
  assert.match(refused, "online_orders__pending_decide_by__check");
});

Seeded.run();
