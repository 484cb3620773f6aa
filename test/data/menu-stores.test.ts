// Stores a partner sells from (issue 39), over real ports: the seeded details on GET /v1/stores and
// GET /v1/stores/{id}, the point of sale's writes of details and pauses on the internal port (role `pos`, refused for
// the others), every refusal with its code and nothing written, a pause that ends by itself on the injected clock,
// and the sandbox helper that pauses as the point of sale would.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Code, type ConnectError } from "@connectrpc/connect";
import { OnlineOrderingStatus, Weekday } from "../../gen/partnerapi/v1/data_service_pb.js";
import { messageFor, readServiceError } from "../../src/errors/index.js";
import { partnerEnvironmentHeader } from "../../src/data/index.js";
import {
  call,
  onlineOrderMerchant,
  startOrdersWorld,
  type Merchant,
  type OrdersWorld,
} from "../support/online-orders.js";

const Stores = suite<{ world: OrdersWorld; merchant: Merchant }>("data/menu-stores", {} as never);

Stores.before(async (context) => {
  context.world = await startOrdersWorld();
  context.merchant = await onlineOrderMerchant(context.world);
});

Stores.after(async ({ world }) => {
  await world.gw.stop();
});

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

/** A token minted now: the pause test moves the clock past a token's lifetime. */
const fresh = (world: OrdersWorld, merchant: Merchant) => world.gw.token(merchant.fixture);

const range = (open: string, close: string) => ({ open, close });

Stores(
  "seeded stores have an address, their region's time zone and hours; GET /v1/stores/{id} answers one",
  async ({ world, merchant }) => {
    const listed = await call(world, fresh(world, merchant), "GET", "/v1/stores");
    assert.is(listed.status, 200);
    const [first, second] = listed.body.stores;
    assert.equal(first, {
      id: merchant.storeIds[0],
      name: "Store 1",
      address: { line1: "1 MG Road", city: "Bengaluru", region: "Karnataka", postcode: "560001", country: "IN" },
      timeZone: "Asia/Kolkata",
      openingHours: {
        weekly: ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"].map((day) => ({
          day,
          ranges: [range("00:00", "24:00")],
        })),
        exceptions: [],
      },
      onlineOrdering: { status: "ACCEPTING" },
      updatedAt: first.updatedAt,
    });
    assert.equal(second.openingHours.weekly[3], { day: "FRIDAY", ranges: [range("08:00", "02:00")] });
    assert.equal(second.openingHours.exceptions[0].note, "Christmas Day");
    assert.ok(!second.openingHours.weekly.some((day: { day: string }) => day.day === "MONDAY"), "closed on Mondays");
    const one = await call(world, fresh(world, merchant), "GET", `/v1/stores/${merchant.storeIds[1]}`);
    assert.is(one.status, 200);
    assert.equal(one.body, { store: second });
  },
);

Stores(
  "GET /v1/stores/{id}: an unknown store and another merchant's store are partner.store_not_found naming id",
  async ({ world, merchant }) => {
    const other = await onlineOrderMerchant(world);
    for (const id of [987_654_321, other.storeIds[0]]) {
      const answer = await call(world, fresh(world, merchant), "GET", `/v1/stores/${id}`);
      assert.is(answer.status, 404);
      assert.equal(
        { code: answer.body.code, params: answer.body.params, message: answer.body.message },
        {
          code: "partner.store_not_found",
          params: { field: "id" },
          message: messageFor("partner.store_not_found", { field: "id" }),
        },
      );
    }
    const scoped = await refusal(
      world.front.getStore(
        { companyId: BigInt(merchant.fixture.companyId), id: BigInt(merchant.storeIds[1]!) },
        { headers: { "x-partner-store-scope": String(merchant.storeIds[0]) } },
      ),
    );
    assert.equal(scoped, { grpc: Code.PermissionDenied, code: "partner.store_not_in_scope", params: { field: "id" } });
  },
);

Stores(
  "the point of sale sets address, time zone and hours (overnight and dated); the partner reads them",
  async ({ world, merchant }) => {
    const storeId = BigInt(merchant.storeIds[1]!);
    const companyId = BigInt(merchant.fixture.companyId);
    const updated = await world.pos.updateStoreDetails({
      companyId,
      id: storeId,
      address: { line1: "5 Brigade Road", city: "Bengaluru", country: "IN" },
      timeZone: "Asia/Calcutta",
      openingHours: {
        weekly: [
          { day: Weekday.SUNDAY, ranges: [range("22:00", "01:00")] },
          { day: Weekday.MONDAY, ranges: [range("01:00", "03:00"), range("18:00", "23:00")] },
        ],
        exceptions: [{ date: "2026-12-31", ranges: [range("18:00", "04:00")], note: "New Year's Eve" }],
      },
    });
    assert.is(updated.store?.timeZone, "Asia/Calcutta");
    const read = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    assert.equal(read.body.store.address, { line1: "5 Brigade Road", city: "Bengaluru", country: "IN" });
    assert.equal(read.body.store.openingHours, {
      weekly: [
        { day: "MONDAY", ranges: [range("01:00", "03:00"), range("18:00", "23:00")] },
        { day: "SUNDAY", ranges: [range("22:00", "01:00")] },
      ],
      exceptions: [{ date: "2026-12-31", ranges: [range("18:00", "04:00")], note: "New Year's Eve" }],
    });
    // The change's stamp, to the microsecond: now, or just after a change made at the same instant.
    assert.is(Date.parse(read.body.store.updatedAt), world.gw.clock.now());
    // Only what is sent changes: the time zone alone leaves the hours and the address.
    const zoneOnly = await world.pos.updateStoreDetails({ companyId, id: storeId, timeZone: "Europe/London" });
    assert.is(zoneOnly.store?.address?.line1, "5 Brigade Road");
    assert.is(zoneOnly.store?.openingHours?.weekly.length, 2);
  },
);

Stores(
  "bad time zones and bad hours are refused with a code naming the field, and nothing is written",
  async ({ world, merchant }) => {
    const storeId = BigInt(merchant.storeIds[0]!);
    const companyId = BigInt(merchant.fixture.companyId);
    const before = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    for (const timeZone of ["europe/london", "EST", "Mars/Olympus_Mons", "+05:30", "UTC+1"]) {
      assert.equal(
        await refusal(
          world.pos.updateStoreDetails({
            companyId,
            id: storeId,
            timeZone,
            address: { line1: "x", city: "y", country: "IN" },
          }),
        ),
        { grpc: Code.InvalidArgument, code: "partner.invalid_time_zone", params: { field: "timeZone" } },
        timeZone,
      );
    }
    const hours: Array<[string, Parameters<typeof world.pos.updateStoreDetails>[0]["openingHours"], string]> = [
      [
        "overlapping ranges",
        { weekly: [{ day: Weekday.TUESDAY, ranges: [range("08:00", "12:00"), range("11:00", "14:00")] }] },
        "openingHours.weekly[0].ranges[1]",
      ],
      [
        "a weekday twice",
        {
          weekly: [
            { day: Weekday.TUESDAY, ranges: [] },
            { day: Weekday.TUESDAY, ranges: [] },
          ],
        },
        "openingHours.weekly[1].day",
      ],
      [
        "Friday's night running into Saturday's opening",
        {
          weekly: [
            { day: Weekday.FRIDAY, ranges: [range("20:00", "03:00")] },
            { day: Weekday.SATURDAY, ranges: [range("02:00", "10:00")] },
          ],
        },
        "openingHours.weekly[1].ranges[0]",
      ],
      [
        "Sunday's night running into Monday's opening",
        {
          weekly: [
            { day: Weekday.MONDAY, ranges: [range("00:30", "10:00")] },
            { day: Weekday.SUNDAY, ranges: [range("20:00", "01:00")] },
          ],
        },
        "openingHours.weekly[1].ranges[0]",
      ],
      [
        "an empty range",
        { weekly: [{ day: Weekday.MONDAY, ranges: [range("09:00", "09:00")] }] },
        "openingHours.weekly[0].ranges[0]",
      ],
      [
        "a date that does not exist",
        { exceptions: [{ date: "2026-02-30", ranges: [] }] },
        "openingHours.exceptions[0].date",
      ],
      [
        "a date twice",
        {
          exceptions: [
            { date: "2026-12-25", ranges: [] },
            { date: "2026-12-25", ranges: [] },
          ],
        },
        "openingHours.exceptions[1].date",
      ],
    ];
    for (const [name, openingHours, field] of hours) {
      assert.equal(
        await refusal(world.pos.updateStoreDetails({ companyId, id: storeId, openingHours })),
        { grpc: Code.InvalidArgument, code: "partner.opening_hours_invalid", params: { field } },
        name,
      );
    }
    const badShape = await refusal(
      world.pos.updateStoreDetails({
        companyId,
        id: storeId,
        openingHours: { weekly: [{ day: Weekday.MONDAY, ranges: [range("9:00", "25:00")] }] },
      }),
    );
    assert.equal(
      [badShape.code, badShape.params["fields"]],
      ["request.invalid_fields", "openingHours.weekly.0.ranges.0.open, openingHours.weekly.0.ranges.0.close"],
    );
    const unknown = await refusal(world.pos.updateStoreDetails({ companyId, id: 987_654_321n, timeZone: "UTC" }));
    assert.equal(unknown, { grpc: Code.NotFound, code: "partner.store_not_found", params: { field: "id" } });
    const after = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    assert.equal(after.body, before.body, "no refused write changed the store");
  },
);

Stores(
  "a pause until a time reads PAUSED with its reason, then ACCEPTING once the time passes; a resume ends it",
  async ({ world, merchant }) => {
    const storeId = BigInt(merchant.storeIds[0]!);
    const companyId = BigInt(merchant.fixture.companyId);
    const until = new Date(world.gw.clock.now() + 30 * 60_000).toISOString();
    const paused = await world.pos.setStoreOnlineOrdering({
      companyId,
      id: storeId,
      change: { status: OnlineOrderingStatus.PAUSED, pausedUntil: until, reason: "Kitchen at capacity" },
    });
    assert.equal(paused.store?.onlineOrdering?.status, OnlineOrderingStatus.PAUSED);
    const read = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    assert.equal(read.body.store.onlineOrdering, {
      status: "PAUSED",
      pausedUntil: until,
      reason: "Kitchen at capacity",
    });
    world.gw.clock.advance(30 * 60_000);
    const over = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    assert.equal(over.body.store.onlineOrdering, { status: "ACCEPTING" });
    await world.pos.setStoreOnlineOrdering({ companyId, id: storeId, change: { status: OnlineOrderingStatus.PAUSED } });
    const indefinite = await call(world, fresh(world, merchant), "GET", "/v1/stores");
    assert.equal(indefinite.body.stores[0].onlineOrdering, { status: "PAUSED" });
    await world.pos.setStoreOnlineOrdering({
      companyId,
      id: storeId,
      change: { status: OnlineOrderingStatus.ACCEPTING },
    });
    const resumed = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    assert.equal(resumed.body.store.onlineOrdering, { status: "ACCEPTING" });
  },
);

Stores(
  "a pause's refusals: an end in the past, an end or a reason with ACCEPTING, no status",
  async ({ world, merchant }) => {
    const storeId = BigInt(merchant.storeIds[0]!);
    const companyId = BigInt(merchant.fixture.companyId);
    const past = new Date(world.gw.clock.now() - 1000).toISOString();
    const cases: Array<[Parameters<typeof world.pos.setStoreOnlineOrdering>[0]["change"], string]> = [
      [{ status: OnlineOrderingStatus.PAUSED, pausedUntil: past }, "change.pausedUntil"],
      [{ status: OnlineOrderingStatus.PAUSED, pausedUntil: "tomorrow" }, "change.pausedUntil"],
      [
        { status: OnlineOrderingStatus.ACCEPTING, pausedUntil: new Date(world.gw.clock.now() + 60_000).toISOString() },
        "change.pausedUntil",
      ],
      [{ status: OnlineOrderingStatus.ACCEPTING, reason: "busy" }, "change.reason"],
      [{ status: OnlineOrderingStatus.UNSPECIFIED }, "change.status"],
    ];
    for (const [change, field] of cases) {
      const refused = await refusal(world.pos.setStoreOnlineOrdering({ companyId, id: storeId, change }));
      assert.equal(
        [refused.grpc, refused.code, refused.params["fields"]],
        [Code.InvalidArgument, "request.invalid_fields", field],
        field,
      );
    }
    const read = await call(world, fresh(world, merchant), "GET", `/v1/stores/${storeId}`);
    assert.equal(read.body.store.onlineOrdering, { status: "ACCEPTING" });
  },
);

Stores("the store RPCs of the point of sale are refused for front and operator", async ({ world, merchant }) => {
  const request = { companyId: BigInt(merchant.fixture.companyId), id: BigInt(merchant.storeIds[0]!) };
  for (const client of [world.front, world.operator]) {
    assert.equal(await refusal(client.updateStoreDetails({ ...request, timeZone: "UTC" })), {
      grpc: Code.PermissionDenied,
      code: "internal.permission_denied",
      params: {},
    });
    assert.equal(
      await refusal(client.setStoreOnlineOrdering({ ...request, change: { status: OnlineOrderingStatus.PAUSED } })),
      { grpc: Code.PermissionDenied, code: "internal.permission_denied", params: {} },
    );
  }
  assert.is((await world.pos.getStore(request)).store?.id, request.id, "the point of sale reads its stores");
});

Stores(
  "the sandbox helper pauses and resumes a sandbox store; production tokens and unknown stores are refused",
  async ({ world, merchant }) => {
    const sandbox = await onlineOrderMerchant(world, { demo: true });
    const path = `/v1/sandbox/stores/${sandbox.storeIds[0]}/online-ordering`;
    const paused = await call(world, fresh(world, sandbox), "POST", path, {
      status: "PAUSED",
      reason: "Testing a pause",
    });
    assert.is(paused.status, 200);
    assert.equal(paused.body.store.onlineOrdering, { status: "PAUSED", reason: "Testing a pause" });
    const resumed = await call(world, fresh(world, sandbox), "POST", path, { status: "ACCEPTING" });
    assert.equal(resumed.body.store.onlineOrdering, { status: "ACCEPTING" });
    const live = await call(
      world,
      fresh(world, merchant),
      "POST",
      `/v1/sandbox/stores/${merchant.storeIds[0]}/online-ordering`,
      {
        status: "PAUSED",
      },
    );
    assert.equal([live.status, live.body.code], [403, "partner.env_mismatch"]);
    const unknown = await call(world, fresh(world, sandbox), "POST", "/v1/sandbox/stores/987654321/online-ordering", {
      status: "PAUSED",
    });
    assert.equal(
      [unknown.status, unknown.body.code, unknown.body.params],
      [404, "partner.store_not_found", { field: "id" }],
    );
    const bad = await call(world, fresh(world, sandbox), "POST", path, { status: "CLOSED" });
    assert.equal([bad.status, bad.body.code, bad.body.params], [400, undefined, { fields: "status" }]);
  },
);

Stores(
  "the console's sandbox hours helper (front role, sandbox calls only) replaces a sandbox store's hours; a production call, the point of sale and an operator are refused",
  async ({ world, merchant }) => {
    const sandbox = await onlineOrderMerchant(world, { demo: true });
    const hours = {
      weekly: [{ day: Weekday.TUESDAY, ranges: [range("07:30", "11:00"), range("17:00", "00:30")] }],
      exceptions: [],
    };
    const request = {
      companyId: BigInt(sandbox.fixture.companyId),
      id: BigInt(sandbox.storeIds[0]!),
      openingHours: hours,
    };
    const as = (environment: string) => ({ headers: { [partnerEnvironmentHeader]: environment } });
    const set = await world.front.setSandboxStoreOpeningHours(request, as("SANDBOX"));
    assert.is(set.store?.id, request.id);
    const read = await call(world, fresh(world, sandbox), "GET", `/v1/stores/${request.id}`);
    assert.equal(read.body.store.openingHours, {
      weekly: [{ day: "TUESDAY", ranges: [range("07:30", "11:00"), range("17:00", "00:30")] }],
      exceptions: [],
    });
    const live = { ...request, companyId: BigInt(merchant.fixture.companyId), id: BigInt(merchant.storeIds[0]!) };
    assert.equal(await refusal(world.front.setSandboxStoreOpeningHours(live, as("PRODUCTION"))), {
      grpc: Code.PermissionDenied,
      code: "partner.env_mismatch",
      params: {},
    });
    const overlapping = {
      ...request,
      openingHours: {
        weekly: [{ day: Weekday.TUESDAY, ranges: [range("07:00", "12:00"), range("11:00", "13:00")] }],
        exceptions: [],
      },
    };
    assert.is(
      (await refusal(world.front.setSandboxStoreOpeningHours(overlapping, as("SANDBOX")))).code,
      "partner.opening_hours_invalid",
    );
    for (const client of [world.pos, world.operator])
      assert.equal(await refusal(client.setSandboxStoreOpeningHours(request, as("SANDBOX"))), {
        grpc: Code.PermissionDenied,
        code: "internal.permission_denied",
        params: {},
      });
    const after = await call(world, fresh(world, sandbox), "GET", `/v1/stores/${request.id}`);
    assert.equal(after.body.store.openingHours, read.body.store.openingHours, "a refused change writes nothing");
  },
);

Stores.run();
