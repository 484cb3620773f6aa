// `npm run bench:scale`: do the hot paths stay flat as the data grows? p99 of GET /v1/items?limit=10, of a mint
// (POST /v1/token) and of a refresh, at the demo's scale (a few hundred items, a handful of apps), then again after
// seeding SCALE_ITEMS items into the measured merchant's region and SCALE_APPS apps with credentials (defaults:
// 1,000,000 and 100,000; the goal: p99 grows by at most 20%). Moderate load (BENCH_CONNECTIONS, default
// 10), so p99 measures the work and not a queue. The service runs as `npm start` does, in its own process; it is
// stopped while the seeding runs (the embedded database has one owner) and started again on the same data.
//
// Knobs: SCALE_ITEMS, SCALE_APPS, BENCH_SECONDS (default 10), BENCH_CONNECTIONS (10), DATABASE_URL / REDIS_URL.
import autocannon, { type Request as AutocannonRequest } from "autocannon";
import { silentLogger } from "../src/runtime/logger.js";
import { openDatabase } from "../src/storage/postgres.js";
import { isRegion } from "../src/config/regions.js";
import { startDemoService, type DemoService } from "./support/demo-service.js";
import { fromAutocannon, machine, type Figure } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { seedApps, seedItems } from "./support/scale-seed.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 10);
const itemCount = Number(process.env["SCALE_ITEMS"] ?? 1_000_000);
const appCount = Number(process.env["SCALE_APPS"] ?? 100_000);

interface Measured {
  items: Figure;
  mints: Figure;
  refreshes: Figure;
}

async function measure(running: DemoService, accessToken: string, refreshTokens: string[]): Promise<Measured> {
  const { demo, front } = running;
  const sandbox = demo.apps.full.sandbox;
  const production = demo.apps.full.production;
  const run = async (options: Parameters<typeof autocannon>[0]) => {
    await autocannon({ ...options, duration: 2 }); // warm-up
    return fromAutocannon(await autocannon({ ...options, duration: seconds }));
  };
  const items = await run({ url: `${front}/v1/items?limit=10`, connections, headers: { authorization: `Bearer ${accessToken}` } });
  const mintBody = JSON.stringify({ grant_type: "client_credentials", client_id: sandbox.clientId, client_secret: sandbox.clientSecret, merchant_id: demo.merchants.sandbox[0]!.companyId });
  const mints = await run({ url: `${front}/v1/token`, connections, method: "POST", headers: { "content-type": "application/json" }, body: mintBody });
  const refresh: AutocannonRequest = {
    method: "POST",
    path: "/v1/oauth/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    setupRequest(request, context) {
      const token = refreshTokens.shift();
      if (!token) throw new Error("no refresh family left: more connections than families");
      context["token"] = token;
      return { ...request, body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token, client_id: production.clientId, client_secret: production.clientSecret }).toString() };
    },
    onResponse(status, body, context) {
      refreshTokens.push(status === 200 ? (JSON.parse(body) as { refresh_token: string }).refresh_token : String(context["token"]));
    },
  };
  const refreshes = await run({ url: front, connections, requests: [refresh] });
  return { items, mints, refreshes };
}

async function main(): Promise<void> {
  const running = await startDemoService();
  try {
    const { demo } = running;
    const live = demo.merchants.live[0]!;
    // A run that ends with refreshes in flight loses their families (the answer is never read): four runs of
    // `connections` each need at most 4 x connections; one more round to spare.
    const families = await prepareRefreshFamilies({ front: running.front, auth: running.auth, client: demo.apps.full.production, redirectUri: demo.redirectUri, owner: live.owner, count: connections * 5 });
    const refreshTokens = families.map((family) => family.refreshToken);
    const accessToken = families[0]!.accessToken;
    const before = await measure(running, accessToken, refreshTokens);

    // Seed with the service stopped, then start it again on the same data.
    await running.service.stop();
    const seedStarted = performance.now();
    const database = await openDatabase({ url: process.env["DATABASE_URL"], dataDir: running.dataDir, logger: silentLogger });
    try {
      if (!isRegion(live.region)) throw new Error(`demo region ${live.region}`);
      await seedItems(database.sql, live.region, { count: itemCount, companies: 1_000, companyId: live.companyId, ownShare: 0.01 });
      await seedApps(database.sql, appCount);
    } finally {
      await database.close();
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await running.restart();
    running.front = String(running.service.ready["front"]);
    const after = await measure(running, accessToken, refreshTokens);

    const line = (name: string, small: Figure, large: Figure) =>
      `${name.padEnd(28)} p99 ${small.p99.toFixed(1).padStart(7)} ms -> ${large.p99.toFixed(1).padStart(7)} ms  growth ${((large.p99 / Math.max(small.p99, 1) - 1) * 100).toFixed(0).padStart(4)}% (goal <= 20%)` +
      `   p50 ${small.p50.toFixed(1)} -> ${large.p50.toFixed(1)} ms, ${small.rate.toFixed(0)} -> ${large.rate.toFixed(0)}/s, errors ${small.errors} / ${large.errors}`;
    process.stdout.write(
      [
        `scale: +${itemCount} items in ${live.region}, +${appCount} apps with credentials (seeded in ${seedSeconds.toFixed(0)} s), ${connections} connections, ${seconds} s each, ` +
          `${running.service.ready["embeddedDatabase"] ? "embedded PGlite" : "PostgreSQL"}, ${machine()}`,
        line("GET /v1/items?limit=10", before.items, after.items),
        line("POST /v1/token (mint)", before.mints, after.mints),
        line("POST /v1/oauth/token (refresh)", before.refreshes, after.refreshes),
      ].join("\n") + "\n",
    );
    const errors = [before, after].flatMap((run) => [run.items, run.mints, run.refreshes]).reduce((sum, figure) => sum + figure.errors, 0);
    if (errors > 0) {
      process.stderr.write(`${errors} errors\n`);
      process.exitCode = 1;
    }
  } finally {
    await running.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
