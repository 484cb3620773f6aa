// `npm run bench`: an authenticated GET /v1/items?limit=10 through the service as `npm start -- --demo` runs it
// (its own process, default logging to a file: bench/support/service.ts), against, each in a process of its own:
// - a plain node:http process doing the same database read and JSON rendering (goal: ratio >= 0.8, p99 <= 1.5x);
// - a bare node:http process answering 1 KB (printed, to track).
// The load generator (autocannon) runs here, the third process. The token is a real one: the demo's FULL app,
// approved by the live merchant's owner on the consent site, its code exchanged at /v1/oauth/token.
// Each line also gives the CPU per call of what does the call's work (bench/support/cpu-meter.ts): the server's
// process tree, the PostgreSQL backends of its own connections to the database, redis-server; not autocannon.
//
// The front and the plain read are metered in turns (BENCH_TURNS, bench/support/measure.ts: meteredInTurns).
// Knobs: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), BENCH_TURNS (4), DATABASE_URL / REDIS_URL (default
// embedded, as npm start).
import { join } from "node:path";
import autocannon from "autocannon";
import type { CpuMeterOptions } from "./support/cpu-meter.js";
import { exitOnErrors, figureLine, machine, meteredInTurns, turns, type Figure, type Side } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { startDemoService } from "./support/demo-service.js";
import { startHelper } from "./support/service.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50);

async function main(): Promise<void> {
  const running = await startDemoService();
  const { service, demo, front, dataDir } = running;
  const databaseUrl = process.env["DATABASE_URL"];
  const helpers: Array<{ stop(): Promise<void> }> = [];
  try {
    const live = demo.merchants.live[0]!;
    const [connection] = await prepareRefreshFamilies({
      front,
      auth: running.auth,
      client: demo.apps.full.production,
      redirectUri: demo.redirectUri,
      owner: live.owner,
      count: 1,
    });
    const headers = { authorization: `Bearer ${connection!.accessToken}` };
    const frontUrl = `${front}/v1/items?limit=10`;
    const check = await fetch(frontUrl, { headers });
    if (check.status !== 200) throw new Error(`the front answered ${check.status}: ${await check.text()}`);

    const plainDir = join(dataDir, "plain");
    const redisUrl = process.env["REDIS_URL"];
    const plain = await startHelper("bench/support/plain-read.ts", {
      REGION: live.region,
      COMPANY_ID: String(live.companyId),
      DATA_DIR: plainDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    });
    helpers.push(plain);
    const bare = await startHelper("bench/support/bare-http.ts", {});
    helpers.push(bare);

    // What each server's calls cost besides its own process: the database (PostgreSQL only: the embedded PGlite is
    // in the service's process) and Redis (when the service counts its limits there; the plain read then does too).
    const database = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : undefined;
    const stores = { ...(database ? { database } : {}), redis: Boolean(redisUrl) };
    const side = (url: string, target: CpuMeterOptions, withHeaders: Record<string, string> = {}): Side => ({
      target,
      run: (duration) => autocannon({ url, connections, duration, headers: withHeaders }),
    });
    // The call and its floor in turns (BENCH_TURNS), the bare server after them: it is printed to track only.
    const [measured, plainRead] = (await meteredInTurns(
      [
        side(frontUrl, { root: service.child.pid!, ...stores }, headers),
        side(`http://127.0.0.1:${plain.port}/v1/items?limit=10`, { root: plain.pid, ...stores }),
      ],
      seconds,
    )) as [Figure, Figure];
    const [bare1k] = (await meteredInTurns([side(`http://127.0.0.1:${bare.port}/`, { root: bare.pid })], seconds)) as [
      Figure,
    ];
    process.stdout.write(
      [
        `GET /v1/items?limit=10: ${connections} connections, ${seconds} s each, ${service.ready["embeddedDatabase"] ? "embedded PGlite" : "PostgreSQL"}, ` +
          `${service.ready["sharedLimits"] ? "Redis" : "in-process limits"}, default logging, ${turns} turns, ${machine()}`,
        figureLine("front (bearer, checks, limit)", measured, "plain node:http, same read", plainRead),
        `front p99 / plain read p99: ${(measured.p99 / Math.max(plainRead.p99, 1)).toFixed(2)} (goal <= 1.5)`,
        figureLine("front (bearer, checks, limit)", measured, "bare node:http, 1 KB", bare1k),
      ].join("\n") + "\n",
    );
    exitOnErrors([
      ["front", measured],
      ["plain read", plainRead],
      ["bare 1 KB", bare1k],
    ]);
  } finally {
    for (const helper of helpers) await helper.stop();
    await running.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
