// The baseline of the front's GET /v1/items?limit=10: a plain node:http process doing the same database read (the
// DataService's query module) and an equivalent JSON rendering, nothing else. With DATABASE_URL it reads the
// service's own database (the merchant COMPANY_ID in REGION); without, a PGlite of its own under DATA_DIR, seeded
// with as many items as the demo's merchants have (the service's embedded database has a single owner).
// With REDIS_URL it first counts the call in the app's minute as the service's rate limit does: one script (INCR,
// and PEXPIRE on the window's first hit; EVALSHA) on a key named by the window, through the service's own store
// (src/storage/key-value.ts, under a prefix of its own), then reads; it refuses nothing (the bench's limits are
// out of the way). Prints {"port": n} when it listens.
import http from "node:http";
import { regionSchema } from "../../src/storage/schemas.js";
import { createItemQueries } from "../../src/data/queries/item-queries.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { createRedisStore } from "../../src/storage/key-value.js";
import { rateWindowMs } from "../../src/gateway/rate-limiter.js";
import { isRegion } from "../../src/config/regions.js";

const region = process.env["REGION"] ?? "uk";
if (!isRegion(region)) throw new Error(`REGION ${region} is not a region`);
let companyId = Number(process.env["COMPANY_ID"] ?? 0);
const url = process.env["DATABASE_URL"] || undefined;
const database = await openDatabase({ url, dataDir: process.env["DATA_DIR"] ?? ".", logger: silentLogger });
if (!url) {
  companyId = 900_000_123;
  await migrateRegion(database.sql, region, silentLogger);
  await seedMerchantData(database.sql, region, companyId, {
    storeCount: 2,
    itemCount: 300,
    salesDays: 0,
    onlineOrderCount: 0,
    now: new Date(),
  });
}
const items = createItemQueries(database.sql, regionSchema(region));
const redisUrl = process.env["REDIS_URL"] || undefined;
const limits = redisUrl
  ? await createRedisStore({ url: redisUrl, logger: silentLogger, prefix: `bench-plain-${process.pid}:` })
  : undefined;
/** The app's minute counted as src/storage/fixed-window.ts counts it: the window's index in the key, kept a window longer. */
const countCall = async () => {
  if (!limits) return;
  const index = Math.floor(Date.now() / rateWindowMs);
  await limits.hit(`partner-rate:bench-app:${index}`, (index + 2) * rateWindowMs);
};
const server = http.createServer((_request, response) => {
  countCall()
    .then(() => items.list(companyId, 0, 11))
    .then(
      (rows) => {
        const page = rows.slice(0, 10).map((row) => ({
          id: String(row.id),
          name: row.name,
          code: row.code,
          barcode: row.barcode ?? undefined,
          categoryId: row.category_id === null ? undefined : String(row.category_id),
          priceMinor: String(row.price_minor),
          currency: row.currency,
          createdAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
        }));
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ items: page, nextCursor: rows.length > 10 ? "x" : undefined }));
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(JSON.stringify({ port: (server.address() as { port: number }).port }) + "\n"),
);
process.on("SIGTERM", () =>
  server.close(() => void Promise.all([database.close(), limits?.close()]).then(() => process.exit(0))),
);
