// The automatic sandbox merchant's menu (issue 39, SANDBOX_MENU_AUTOPILOT_SECONDS), against a running app and its
// database: a sandbox merchant's second store is paused, resumed and paused again a step apart on the injected
// clock, through the sandbox pause's write (reason and updatedAt as the point of sale reads them); its first store
// and a live merchant's stores are never turned; the setting is off by default and refused out of range at start.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { menuAutopilotReason } from "../../src/data/menu-autopilot.js";
import { seedSandboxMerchant } from "../../src/data/sandbox-data.js";
import { onlineOrderMerchant, startOrdersWorld, type OrdersWorld } from "../support/online-orders.js";

const Autopilot = suite<{ world: OrdersWorld }>("data/menu-autopilot", {} as never);

Autopilot.before(async (context) => {
  context.world = await startOrdersWorld({ SANDBOX_MENU_AUTOPILOT_SECONDS: "60" });
});

Autopilot.after(async ({ world }) => {
  await world.gw.stop();
});

Autopilot("off by default; 0 to 86400, anything else stops the start", () => {
  assert.is(loadConfig({}).onlineOrders.menuAutopilotSeconds, 0);
  assert.is(loadConfig({ SANDBOX_MENU_AUTOPILOT_SECONDS: "300" }).onlineOrders.menuAutopilotSeconds, 300);
  for (const value of ["-1", "86401", "1.5", "soon"])
    assert.throws(
      () => loadConfig({ SANDBOX_MENU_AUTOPILOT_SECONDS: value }),
      (error: Error) => error instanceof ConfigError,
    );
});

Autopilot(
  "a sandbox merchant's second store is paused and resumed a step apart; nothing else turns",
  async ({ world }) => {
    const { gw } = world;
    const sql = gw.app.regionDatabases.get("us")!.sql;
    const companyId = 900_000_000 + Math.floor(Math.random() * 90_000_000);
    const [first, second] = await seedSandboxMerchant(sql as never, "us", companyId, {
      now: new Date(gw.clock.now()),
      decisionSeconds: 900,
    });
    const live = await onlineOrderMerchant(world, { region: "us" });
    const timers = gw.app.orderTimers.get("us")!;
    // Read as stored: the merchant has no control-database row, so the region's store reads are the witness.
    const state = async (company: number, id: number) => {
      const [row] = await sql<{ status: string; reason: string | null; updated_at: Date }[]>`
        select online_ordering_status as status, pause_reason as reason, updated_at from region_us.stores
        where company_id = ${company} and id = ${id}`;
      return { ordering: { status: row!.status, reason: row!.reason }, updatedAt: row!.updated_at.toISOString() };
    };
    const paused = { status: "PAUSED", reason: menuAutopilotReason };
    const accepting = { status: "ACCEPTING", reason: null };

    await timers.runDue();
    const start = new Date(gw.clock.now()).toISOString();
    assert.equal(await state(companyId, second!), { ordering: paused, updatedAt: start }, "its first turn: paused");
    assert.equal((await state(companyId, first!)).ordering, accepting, "the first store is never turned");
    gw.clock.advance(59_000);
    await timers.runDue();
    assert.equal(await state(companyId, second!), { ordering: paused, updatedAt: start }, "not before its step");
    gw.clock.advance(1_000);
    await timers.runDue();
    assert.equal(
      await state(companyId, second!),
      { ordering: accepting, updatedAt: new Date(gw.clock.now()).toISOString() },
      "resumed a step later",
    );
    gw.clock.advance(60_000);
    await timers.runDue();
    assert.equal((await state(companyId, second!)).ordering, paused, "paused again");
    for (const id of live.storeIds)
      assert.equal((await state(live.fixture.companyId, id)).ordering, accepting, "a live merchant's stores stay");
  },
);

Autopilot.run();
