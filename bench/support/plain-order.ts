// The floor of POST /v1/online-orders (issue 43): a plain node:http process that reads and parses the JSON body,
// counts the call in the app's minute with the same one Redis script as the service's rate limit (REDIS_URL), reads
// the order's items in one statement (the DataService's own query: src/data/queries/item-queries.ts `findMany`),
// prices the lines, and commits one transaction that inserts the order (its lines in the row, as the service
// stores them) and one outbox row, answering the order as JSON. Its two tables are scratch copies of the region's
// online_orders and webhook_outbox (`like ... including all`: the same columns, defaults and indexes), made in the
// benchmark's database (DATABASE_URL, PostgreSQL only) and dropped on SIGTERM. Prints {"port": n} when it listens.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { regionSchema } from "../../src/storage/schemas.js";
import { createItemQueries } from "../../src/data/queries/item-queries.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { createRedisStore } from "../../src/storage/key-value.js";
import { rateWindowMs } from "../../src/gateway/rate-limiter.js";
import { isRegion } from "../../src/config/regions.js";

const region = process.env["REGION"] ?? "uk";
if (!isRegion(region)) throw new Error(`REGION ${region} is not a region`);
const companyId = Number(process.env["COMPANY_ID"] ?? 0);
/** ONLINE_ORDER_DECISION_SECONDS' default: the plain placement writes the deadline the service writes. */
const decisionSeconds = 900;
const url = process.env["DATABASE_URL"];
if (!url) throw new Error("DATABASE_URL: the plain order placement writes PostgreSQL");
const database = await openDatabase({ url, dataDir: ".", logger: silentLogger });
const { sql } = database;
const schema = regionSchema(region);
const orders = `bench_plain_orders_${process.pid}`;
const outbox = `bench_plain_outbox_${process.pid}`;
await sql`create table ${sql(orders)} (like ${sql(`${schema}.online_orders`)} including all)`;
await sql`create table ${sql(outbox)} (like ${sql(`${schema}.webhook_outbox`)} including all)`;
const items = createItemQueries(sql, schema);
const redisUrl = process.env["REDIS_URL"] || undefined;
const limits = redisUrl
  ? await createRedisStore({ url: redisUrl, logger: silentLogger, prefix: `bench-plain-order-${process.pid}:` })
  : undefined;
const countCall = async () => {
  if (!limits) return;
  const index = Math.floor(Date.now() / rateWindowMs);
  await limits.hit(`partner-rate:bench-app:${index}`, (index + 2) * rateWindowMs);
};

interface Placement {
  storeId: number;
  lines: Array<{ itemId: number; quantity: number }>;
  customer: { name: string };
  externalReference?: string;
}

async function place(body: string): Promise<string> {
  const request = JSON.parse(body) as Placement;
  await countCall();
  const found = new Map(
    (
      await items.findMany(
        companyId,
        request.lines.map((line) => Number(line.itemId)),
      )
    ).map((row) => [row.id, row]),
  );
  let totalMinor = 0;
  const lines = request.lines.map((line) => {
    const item = found.get(Number(line.itemId));
    if (!item) throw new Error("no such item");
    totalMinor += Number(item.price_minor) * line.quantity;
    return {
      itemId: item.id,
      itemCode: item.code ?? "",
      name: item.name,
      quantity: line.quantity,
      priceMinor: Number(item.price_minor),
    };
  });
  const now = new Date();
  // A PENDING order carries its decision deadline (region migration 0011's check), as the service's does.
  const decideBy = new Date(now.getTime() + decisionSeconds * 1000);
  const order = await sql.begin(async (tx) => {
    const [row] = await tx<Array<{ id: number; placed_at: Date }>>`
      insert into ${tx(orders)} (company_id, store_id, status, total_minor, currency, placed_at, updated_at, decide_by,
        lines, app_id, external_reference, fulfilment_type, customer_name)
      values (${companyId}, ${request.storeId}, 'PENDING', ${totalMinor}, ${found.values().next().value!.currency}, ${now},
        ${now}, ${decideBy}, ${tx.json(lines as never)}, 'bench-app', ${request.externalReference ?? null}, 'PICKUP',
        ${request.customer.name})
      returning id, placed_at`;
    const json = { id: String(row!.id), storeId: String(request.storeId), status: "PENDING", totalMinor, lines };
    await tx`
      insert into ${tx(outbox)} (event_id, type, company_id, store_id, data, occurred_at)
      values (${randomUUID()}, 'online_order.created', ${companyId}, ${request.storeId}, ${tx.json({ companyId, order: json } as never)}, ${now})`;
    return { ...json, placedAt: row!.placed_at.toISOString() };
  });
  return JSON.stringify({ order });
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    place(Buffer.concat(chunks).toString("utf8")).then(
      (text) => {
        response.writeHead(200, {
          "Content-Type": "application/json",
          "Content-Length": String(Buffer.byteLength(text)),
        });
        response.end(text);
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
  });
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + "\n"),
);
process.on("SIGTERM", () =>
  server.close(
    () =>
      void sql`drop table if exists ${sql(orders)}, ${sql(outbox)}`
        .then(() => Promise.all([database.close(), limits?.close()]))
        .finally(() => process.exit(0)),
  ),
);
