// `npm run bench`: authenticated GET /v1/items?limit=10 through the full front (token verification, checks, rate
// limit, routing, validation, DataService, rendering) against a plain node:http server that does only the same
// database read and JSON rendering, both measured in the same run with the same tool (autocannon).
//
// Knobs (environment): BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 10), DATABASE_URL and REDIS_URL (default:
// embedded PGlite and the in-process store, as `npm start`).
import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { startApp } from "../src/app.js";
import { loadConfig } from "../src/config/config.js";
import { createItemQueries } from "../src/data/queries/item-queries.js";
import { seedMerchantData } from "../src/data/sandbox-data.js";
import { systemClock, createManualClock } from "../src/runtime/clock.js";
import { silentLogger } from "../src/runtime/logger.js";
import { regionSchema } from "../src/storage/schemas.js";
import { appSigningKey, createFixture, testKek, tokenFor } from "../test/support/gateway.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 10);

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-bench-"));
  const config = loadConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    AUTH_PORT: "0",
    CONSOLE_PORT: "0",
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: process.env["DATABASE_URL"],
    REDIS_URL: process.env["REDIS_URL"],
    TOKEN_KEY_ENCRYPTION_KEY: testKek,
    PARTNER_RATE_LIMIT: "1000000000",
    LOG_LEVEL: "warn",
    // Nothing balances onto this instance: stop without the readiness drain.
    SHUTDOWN_DRAIN_SECONDS: "0",
  });
  const app = await startApp({ config, logger: silentLogger });
  const plain = http.createServer();
  try {
    const clock = createManualClock(systemClock.now());
    const fixture = await createFixture(app.control.sql, () => undefined, clock, { region: "uk", seed: false });
    const regionSql = app.regionDatabases.get("uk")!.sql;
    await seedMerchantData(regionSql, "uk", fixture.companyId, { storeCount: 2, itemCount: 300, salesDays: 0, onlineOrderCount: 0, now: new Date() });
    const token = tokenFor(await appSigningKey(app.control.sql, dataDir, clock), config, clock, fixture);

    // The baseline: the same query module and an equivalent JSON shape, nothing else.
    const items = createItemQueries(regionSql, regionSchema("uk"));
    plain.on("request", (_request, response) => {
      items.list(fixture.companyId, 0, 11).then(
        (rows) => {
          const page = rows.slice(0, 10).map((row) => ({
            id: row.id,
            name: row.name,
            code: row.code,
            barcode: row.barcode ?? undefined,
            categoryId: row.category_id ?? undefined,
            priceMinor: row.price_minor,
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
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const plainPort = (plain.address() as { port: number }).port;

    const frontUrl = `http://127.0.0.1:${app.front.port}/v1/items?limit=10`;
    const check = await fetch(frontUrl, { headers: { authorization: `Bearer ${token}` } });
    if (check.status !== 200) throw new Error(`the front answered ${check.status}: ${await check.text()}`);

    const run = async (url: string, headers: Record<string, string> = {}) => {
      await autocannon({ url, connections, duration: 2, headers }); // warm-up
      return autocannon({ url, connections, duration: seconds, headers });
    };
    const front = await run(frontUrl, { authorization: `Bearer ${token}` });
    const baseline = await run(`http://127.0.0.1:${plainPort}/v1/items?limit=10`);
    for (const [name, result] of [["front", front], ["plain", baseline]] as const) {
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    }
    const line = (name: string, result: typeof front) =>
      `${name.padEnd(36)} ${result.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms`;
    process.stdout.write(
      [
        `GET /v1/items?limit=10, ${connections} connections, ${seconds} s each, ${app.control.embedded ? "embedded PGlite" : "PostgreSQL"}, ` +
          `${app.keyValue.shared ? "Redis" : "in-process limits"}, Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}`,
        line("full front (bearer, checks, limit)", front),
        line("plain node:http (same read + JSON)", baseline),
        `front / plain throughput: ${(front.requests.average / baseline.requests.average).toFixed(2)}`,
      ].join("\n") + "\n",
    );
  } finally {
    plain.close();
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
