// What the online-order suites share: a running app with an ONLINE_ORDER app and its merchant, the merchant's
// catalogue as the region holds it, a valid order body, partner calls, and the point of sale on the internal port
// (a `pos` service credential over gRPC).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Client } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { Region } from "../../src/config/regions.js";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import { startGatewayApp, type Fixture, type FixtureOptions, type GatewayApp } from "./gateway.js";
import { grpcTransport, writeInternalCredentials, type InternalCredentials } from "./internal.js";

// biome-ignore lint/suspicious/noExplicitAny: the answers are read field by field, as the wire spells them.
export type Json = any;

export interface OrdersWorld {
  gw: GatewayApp;
  credentials: InternalCredentials;
  /** The DataService of the internal port as the point of sale calls it (role `pos`). */
  pos: Client<typeof DataService>;
  /** The same port as a front presents itself (role `front`), and as an operator. */
  front: Client<typeof DataService>;
  operator: Client<typeof DataService>;
}

/** Starts an app whose internal port accepts one credential per role (pos included), with `env` on top. */
export async function startOrdersWorld(env: Record<string, string> = {}): Promise<OrdersWorld> {
  const dir = await mkdtemp(join(tmpdir(), "partner-api-orders-"));
  const credentials = await writeInternalCredentials(dir, "accepted-credentials");
  const gw = await startGatewayApp({
    GRPC_CREDENTIALS_FILE: credentials.file,
    SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
    ...env,
  });
  const port = gw.app.grpc.port;
  return {
    gw,
    credentials,
    pos: createClient(DataService, grpcTransport(port, credentials.pos)),
    front: createClient(DataService, grpcTransport(port, credentials.front)),
    operator: createClient(DataService, grpcTransport(port, credentials.operator)),
  };
}

export interface Merchant {
  fixture: Fixture;
  token: string;
  storeIds: number[];
  /** The catalogue's items: id, code, name, price. */
  items: Array<{ id: number; code: string; name: string; price: number }>;
}

/** An ONLINE_ORDER app connected to a fresh merchant (live unless `demo`), with its stores and items. */
export async function onlineOrderMerchant(world: OrdersWorld, options: FixtureOptions = {}): Promise<Merchant> {
  const region: Region = options.region ?? "in";
  const fixture = await world.gw.fixture({ product: "ONLINE_ORDER", region, ...options });
  const sql = world.gw.app.regionDatabases.get(region)!.sql;
  const storeIds = (
    await sql<
      { id: number }[]
    >`select id from ${sql(`region_${region}.stores`)} where company_id = ${fixture.companyId} order by id`
  ).map((row) => Number(row.id));
  const items = (
    await sql<{ id: number; code: string; name: string; price_minor: number }[]>`
      select id, code, name, price_minor from ${sql(`region_${region}.items`)} where company_id = ${fixture.companyId} order by id`
  ).map((row) => ({ id: Number(row.id), code: row.code, name: row.name, price: Number(row.price_minor) }));
  return { fixture, token: world.gw.token(fixture), storeIds, items };
}

/** Another app of another organization connected to the same merchant (as an ONLINE_ORDER app of its own). */
export async function secondApp(world: OrdersWorld, merchant: Merchant): Promise<{ fixture: Fixture; token: string }> {
  const { gw } = world;
  const fixture = await gw.fixture({
    product: "ONLINE_ORDER",
    region: merchant.fixture.region,
    seed: false,
    demo: merchant.fixture.env === "SANDBOX",
  });
  // Point the second app at the first merchant: a grant of its own, a token naming that merchant.
  await createGrantQueries(gw.app.control.sql).ensureLive(
    fixture.appId,
    merchant.fixture.companyId,
    merchant.fixture.env,
    new Date(gw.clock.now()),
  );
  const other = { ...fixture, companyId: merchant.fixture.companyId };
  return { fixture: other, token: gw.token(other) };
}

/** A valid order body for the merchant: two lines of its first items, pickup. */
export function orderBody(merchant: Merchant, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    storeId: merchant.storeIds[0],
    lines: [
      { itemId: merchant.items[0]!.id, quantity: 2, note: "no sugar" },
      { itemId: merchant.items[1]!.id, quantity: 1 },
    ],
    fulfilment: { type: "PICKUP" },
    customer: { name: "Asha Rao", phone: "+91 98765 43210" },
    externalReference: `shop-${Math.random().toString(36).slice(2, 10)}`,
    ...overrides,
  };
}

/** A partner call with the merchant's token; the status and the parsed body. */
export async function call(
  world: OrdersWorld,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${world.gw.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Places an order (expects 201/200) and returns it. */
export async function place(
  world: OrdersWorld,
  merchant: Merchant,
  overrides: Record<string, unknown> = {},
  token = merchant.token,
): Promise<Json> {
  const answer = await call(world, token, "POST", "/v1/online-orders", orderBody(merchant, overrides));
  if (answer.status !== 200) throw new Error(`placing failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.order;
}

/** How many orders the merchant has in the region's database (what a refused placement must leave unchanged). */
export async function orderCount(world: OrdersWorld, merchant: Merchant): Promise<{ orders: number; events: number }> {
  const sql = world.gw.app.regionDatabases.get(merchant.fixture.region)!.sql;
  const schema = `region_${merchant.fixture.region}`;
  const [orders] = await sql<
    { count: number }[]
  >`select count(*)::int as count from ${sql(`${schema}.online_orders`)} where company_id = ${merchant.fixture.companyId}`;
  const [events] = await sql<
    { count: number }[]
  >`select count(*)::int as count from ${sql(`${schema}.online_order_events`)} where company_id = ${merchant.fixture.companyId}`;
  return { orders: orders!.count, events: events!.count };
}
