// `npm run bench:orders`: POST /v1/online-orders (3 lines, PICKUP) through the service as `npm start -- --demo`
// runs it (its own process, default logging to a file), against its floor measured in the same run, in a process
// of its own: the plain order placement (bench/support/plain-order.ts: node:http, the same one Redis count, one
// read of the 3 items, one committed transaction inserting the order with its lines and one outbox row). The token
// is a real one: the demo's ONLINE_ORDER app approved by the live merchant's owner on the consent site, its code exchanged.
// Each line gives throughput, p50 / p99 and the CPU per call (bench/support/cpu-meter.ts) of both, and the CPU
// ratio floor ÷ call (goal >= 0.6). PostgreSQL only (DATABASE_URL; REDIS_URL for the shared limits).
//
// Knobs: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), BENCH_TURNS (4).
import autocannon from "autocannon";
import { exitOnErrors, figureLine, machine, meteredInTurns, turns, type Figure, type Side } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { startDemoService } from "./support/demo-service.js";
import { startHelper } from "./support/service.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50);
const databaseUrl = process.env["DATABASE_URL"];
const redisUrl = process.env["REDIS_URL"];

async function main(): Promise<void> {
  if (!databaseUrl) throw new Error("bench:orders compares with a plain placement on PostgreSQL: set DATABASE_URL");
  const running = await startDemoService();
  const { service, demo, front } = running;
  const helpers: Array<{ stop(): Promise<void> }> = [];
  try {
    const live = demo.merchants.live[0]!;
    const [connection] = await prepareRefreshFamilies({
      front,
      auth: running.auth,
      client: demo.apps.onlineOrder.production,
      redirectUri: demo.redirectUri,
      owner: live.owner,
      count: 1,
    });
    const headers = { authorization: `Bearer ${connection!.accessToken}`, "content-type": "application/json" };
    const read = async (path: string) => {
      const response = await fetch(`${front}${path}`, { headers });
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as Record<string, Array<{ id: string; currency?: string }>>;
    };
    const [store] = (await read("/v1/stores")).stores!;
    const lines = (await read("/v1/items?limit=3")).items!.map((item, index) => ({
      itemId: Number(item.id),
      quantity: index + 1,
    }));
    const body = JSON.stringify({
      storeId: Number(store!.id),
      lines,
      fulfilment: { type: "PICKUP" },
      customer: { name: "Bench" },
      externalReference: "bench",
    });
    const check = await fetch(`${front}/v1/online-orders`, { method: "POST", headers, body });
    if (check.status !== 200) throw new Error(`POST /v1/online-orders answered ${check.status}: ${await check.text()}`);

    const plain = await startHelper("bench/support/plain-order.ts", {
      REGION: live.region,
      COMPANY_ID: String(live.companyId),
      DATABASE_URL: databaseUrl,
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    });
    helpers.push(plain);
    const stores = { database: decodeURIComponent(new URL(databaseUrl).pathname.slice(1)), redis: Boolean(redisUrl) };
    const run = (url: string, duration: number) =>
      autocannon({ url, connections, duration, method: "POST", headers, body });
    const side = (url: string, root: number): Side => ({
      target: { root, ...stores },
      run: (duration) => run(url, duration),
    });
    // The call and its floor in turns (BENCH_TURNS, bench/support/measure.ts: meteredInTurns).
    const [measured, floor] = (await meteredInTurns(
      [
        side(`${front}/v1/online-orders`, service.child.pid!),
        side(`http://127.0.0.1:${plain.port}/v1/online-orders`, plain.pid),
      ],
      seconds,
    )) as [Figure, Figure];
    process.stdout.write(
      [
        `POST /v1/online-orders (3 lines): ${connections} connections, ${seconds} s each, PostgreSQL, ` +
          `${service.ready["sharedLimits"] ? "Redis" : "in-process limits"}, default logging, ${turns} turns, ${machine()}`,
        figureLine("front (bearer, checks, placement)", measured, "plain placement", floor),
      ].join("\n") + "\n",
    );
    exitOnErrors([
      ["front", measured],
      ["plain placement", floor],
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
