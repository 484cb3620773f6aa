// `npm run bench:scale`: do the hot paths stay flat as the data grows? Issue 16: with 1,000,000 items in a region
// and 100,000 apps with credentials, the p99 of GET /v1/items, of a mint and of a refresh grows by at most 20% over
// 1,000 items and 10 apps.
//
// Two services run as `npm start -- --demo` runs them, each in its own process on its own database: the baseline,
// topped up to SCALE_BASELINE_ITEMS (1,000) items in the measured merchant's region and SCALE_BASELINE_APPS (10)
// apps, and the scaled one, topped up to SCALE_ITEMS (1,000,000) and SCALE_APPS (100,000)
// (bench/support/scale-seed.ts: merchants, items, apps with client ids, secrets, a grant and a refresh family each).
// Each is seeded with its service stopped (the embedded database has one owner) and started again on the data.
// Then SCALE_ROUNDS (3) rounds measure both, alternating which goes first, one at a time, so both sides see the
// same neighbours on a shared machine; each figure's p99 is the median of its rounds. Figures: the first page and
// a last page (a cursor five items before the merchant's end) of GET /v1/items?limit=10, a mint
// (POST /v1/token) and a refresh (grant_type=refresh_token). Moderate load (BENCH_CONNECTIONS, default 10), so p99
// measures the work and not a queue.
//
// On PostgreSQL (DATABASE_URL) the baseline uses SCALE_BASELINE_DATABASE_URL, by default the same server with
// `_baseline` appended to the database name, created when missing. Both should be empty (or pass the
// TOKEN_KEY_ENCRYPTION_KEY of the run that made them).
// Knobs: SCALE_ITEMS, SCALE_APPS, SCALE_BASELINE_ITEMS, SCALE_BASELINE_APPS, SCALE_ROUNDS, BENCH_SECONDS (10),
// BENCH_CONNECTIONS (10), DATABASE_URL / SCALE_BASELINE_DATABASE_URL / REDIS_URL.
import autocannon, { type Request as AutocannonRequest } from "autocannon";
import postgres from "postgres";
import { silentLogger } from "../src/runtime/logger.js";
import { openDatabase } from "../src/storage/postgres.js";
import { regionSchema } from "../src/storage/schemas.js";
import { isRegion } from "../src/config/regions.js";
import { encodeCursor } from "../src/data/cursor.js";
import { startDemoService, type DemoService } from "./support/demo-service.js";
import { fromAutocannon, machine, type Figure } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { seedApps, seedItems, seedMerchants, type SeededSample } from "./support/scale-seed.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 10);
const rounds = Number(process.env["SCALE_ROUNDS"] ?? 3);
const databaseUrl = process.env["DATABASE_URL"];

interface Side {
  label: string;
  items: number;
  apps: number;
  /** Seeded merchants the items and the apps' grants spread over. */
  companies: number;
  databaseUrl: string | undefined;
}

interface Prepared extends Side {
  running: DemoService;
  accessToken: string;
  refreshTokens: string[];
  /** A cursor five items before the end of the measured merchant's list. */
  lastPageCursor: string;
  seedSeconds: number;
  itemsInRegion: number;
  appsInControl: number;
}

const figureNames = [
  "GET /v1/items?limit=10",
  "the same, last page",
  "POST /v1/token (mint)",
  "POST /v1/oauth/token (refresh)",
] as const;
type Measured = Figure[];

/** The baseline's database on a PostgreSQL server: SCALE_BASELINE_DATABASE_URL, or `<name>_baseline`, made if missing. */
async function baselineDatabase(url: string): Promise<string> {
  const explicit = process.env["SCALE_BASELINE_DATABASE_URL"];
  if (explicit) return explicit;
  const parsed = new URL(url);
  const name = `${parsed.pathname.slice(1)}_baseline`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) await admin`create database ${admin(name)}`;
  } finally {
    await admin.end();
  }
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Starts a side's service, prepares its refresh families, seeds its data with the service stopped, starts it again. */
async function prepare(side: Side): Promise<Prepared> {
  const running = await startDemoService(side.databaseUrl ? { DATABASE_URL: side.databaseUrl } : {});
  try {
    return await seeded(side, running);
  } catch (error) {
    await running.stop();
    throw error;
  }
}

async function seeded(side: Side, running: DemoService): Promise<Prepared> {
  const { demo } = running;
  const live = demo.merchants.live[0]!;
  if (!isRegion(live.region)) throw new Error(`demo region ${live.region}`);
  // A run that ends with refreshes in flight loses their families (the answer is never read): each round runs the
  // refresh twice (warm-up and measure), so 2 x rounds x connections at most; one more round to spare.
  const families = await prepareRefreshFamilies({
    front: running.front,
    auth: running.auth,
    client: demo.apps.full.production,
    redirectUri: demo.redirectUri,
    owner: live.owner,
    count: connections * (2 * rounds + 1),
  });

  await running.service.stop();
  const seedStarted = performance.now();
  // A bulk load runs past the service's 5-second statement timeout: no timeout here.
  const database = await openDatabase({
    url: side.databaseUrl,
    dataDir: running.dataDir,
    logger: silentLogger,
    timeouts: { connectSeconds: 10, querySeconds: 0 },
  });
  let sample: SeededSample | undefined;
  let lastPageCursor: string;
  let itemsInRegion: number;
  let appsInControl: number;
  try {
    const { sql } = database;
    await seedMerchants(sql, live.region, side.companies);
    await seedItems(sql, live.region, {
      total: side.items,
      companies: side.companies,
      companyId: live.companyId,
      ownShare: 0.01,
    });
    sample = (await seedApps(sql, { total: side.apps, companies: side.companies })).sample;
    const items = sql(`${regionSchema(live.region)}.items`);
    const [last] = await sql<
      Array<{ id: number }>
    >`select id from ${items} where company_id = ${live.companyId} order by id desc offset 5 limit 1`;
    if (!last) throw new Error("the measured merchant has fewer than six items");
    lastPageCursor = encodeCursor(last.id);
    const count = async (table: postgres.Helper<string>) =>
      (await sql<Array<{ count: number }>>`select count(*)::int as count from ${table}`)[0]!.count;
    itemsInRegion = await count(items);
    appsInControl = await count(sql("control.apps"));
  } finally {
    await database.close();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  await running.restart();
  running.front = String(running.service.ready["front"]);
  if (sample) await proveSeededCredentials(running.front, sample);
  return {
    ...side,
    running,
    accessToken: families.at(-1)!.accessToken,
    refreshTokens: families.map((family) => family.refreshToken),
    lastPageCursor,
    seedSeconds,
    itemsInRegion,
    appsInControl,
  };
}

/** The seeded credentials are real: one seeded app's refresh token, with its client id and secret, refreshes. */
async function proveSeededCredentials(front: string, sample: SeededSample): Promise<void> {
  const answer = await fetch(`${front}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: sample.refreshToken,
      client_id: sample.clientId,
      client_secret: sample.clientSecret,
    }),
  });
  if (answer.status !== 200)
    throw new Error(`a seeded app's refresh answered ${answer.status}: ${await answer.text()}`);
}

async function measure(side: Prepared): Promise<Measured> {
  const { running, accessToken, refreshTokens } = side;
  const { demo, front } = running;
  const sandbox = demo.apps.full.sandbox;
  const production = demo.apps.full.production;
  const run = async (options: Parameters<typeof autocannon>[0]) => {
    await autocannon({ ...options, duration: 2 }); // warm-up
    return fromAutocannon(await autocannon({ ...options, duration: seconds }));
  };
  const authorization = { authorization: `Bearer ${accessToken}` };
  const firstPage = await run({ url: `${front}/v1/items?limit=10`, connections, headers: authorization });
  const lastPage = await run({
    url: `${front}/v1/items?limit=10&cursor=${side.lastPageCursor}`,
    connections,
    headers: authorization,
  });
  const mintBody = JSON.stringify({
    grant_type: "client_credentials",
    client_id: sandbox.clientId,
    client_secret: sandbox.clientSecret,
    merchant_id: demo.merchants.sandbox[0]!.companyId,
  });
  const mints = await run({
    url: `${front}/v1/token`,
    connections,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: mintBody,
  });
  const refresh: AutocannonRequest = {
    method: "POST",
    path: "/v1/oauth/token",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    setupRequest(request, context) {
      const token = refreshTokens.shift();
      if (!token) throw new Error("no refresh family left: more connections than families");
      context["token"] = token;
      return {
        ...request,
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: token,
          client_id: production.clientId,
          client_secret: production.clientSecret,
        }).toString(),
      };
    },
    onResponse(status, body, context) {
      refreshTokens.push(
        status === 200 ? (JSON.parse(body) as { refresh_token: string }).refresh_token : String(context["token"]),
      );
    },
  };
  const refreshes = await run({ url: front, connections, requests: [refresh] });
  return [firstPage, lastPage, mints, refreshes];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const baseline: Side = {
    label: "baseline",
    items: Number(process.env["SCALE_BASELINE_ITEMS"] ?? 1_000),
    apps: Number(process.env["SCALE_BASELINE_APPS"] ?? 10),
    companies: 10,
    databaseUrl: databaseUrl ? await baselineDatabase(databaseUrl) : undefined,
  };
  const scaled: Side = {
    label: "scale",
    items: Number(process.env["SCALE_ITEMS"] ?? 1_000_000),
    apps: Number(process.env["SCALE_APPS"] ?? 100_000),
    companies: 1_000,
    databaseUrl,
  };
  const started: Prepared[] = [];
  try {
    for (const side of [baseline, scaled]) started.push(await prepare(side));
    const [small, large] = started as [Prepared, Prepared];
    const results = new Map<Prepared, Measured[]>([
      [small, []],
      [large, []],
    ]);
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? [small, large] : [large, small])
        results.get(side)!.push(await measure(side));
    }

    const lines = [
      `scale: ${rounds} rounds, ${connections} connections, ${seconds} s per figure, ${databaseUrl ? "PostgreSQL" : "embedded PGlite"}, ${machine()}`,
      ...[small, large].map(
        (side) =>
          `${side.label.padEnd(8)} ${side.itemsInRegion} items in ${side.running.demo.merchants.live[0]!.region}, ${side.appsInControl} apps` +
          ` (seeded in ${side.seedSeconds.toFixed(0)} s)`,
      ),
    ];
    figureNames.forEach((name, index) => {
      const of = (side: Prepared) => results.get(side)!.map((measured) => measured[index]!);
      const [before, after] = [of(small), of(large)];
      const p99 = [median(before.map((figure) => figure.p99)), median(after.map((figure) => figure.p99))] as const;
      const p50 = [median(before.map((figure) => figure.p50)), median(after.map((figure) => figure.p50))] as const;
      const rate = [median(before.map((figure) => figure.rate)), median(after.map((figure) => figure.rate))] as const;
      const errors = [before, after].map((figures) => figures.reduce((sum, figure) => sum + figure.errors, 0));
      lines.push(
        `${name.padEnd(31)} p99 ${p99[0].toFixed(1).padStart(6)} ms -> ${p99[1].toFixed(1).padStart(6)} ms  growth ${((p99[1] / Math.max(p99[0], 1) - 1) * 100).toFixed(0).padStart(4)}% (goal <= 20%)` +
          `   p50 ${p50[0].toFixed(1)} -> ${p50[1].toFixed(1)} ms, ${rate[0].toFixed(0)} -> ${rate[1].toFixed(0)}/s, errors ${errors[0]} / ${errors[1]}` +
          `   rounds' p99 ${before.map((figure) => figure.p99).join(" ")} / ${after.map((figure) => figure.p99).join(" ")}`,
      );
    });
    process.stdout.write(lines.join("\n") + "\n");
    const errors = [...results.values()].flat(2).reduce((sum, figure) => sum + figure.errors, 0);
    if (errors > 0) {
      process.stderr.write(`${errors} errors\n`);
      process.exitCode = 1;
    }
  } finally {
    for (const side of started) await side.running.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
