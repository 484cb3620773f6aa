// `npm run bench:webhooks`: webhook deliveries a second and the time from an event's commit to its receipt by a
// partner's receiver, with one `--role worker` process and with several (BENCH_WORKERS, 3), in the same run, against
// bare signed POSTs to the same receivers. PostgreSQL only (DATABASE_URL, an empty database): several processes
// share it, and the embedded PGlite belongs to one process.
// - The world: the service as `npm start -- --demo` runs it provisions the demo; the demo FULL app's sandbox
//   credentials register BENCH_ENDPOINTS (4) sandbox webhook endpoints (POST /v1/webhook-endpoints), a receiver
//   each, so every event of the app's sandbox merchants is BENCH_ENDPOINTS deliveries (an endpoint holds at most
//   WEBHOOK_ENDPOINT_CONCURRENCY attempts in flight, whatever the workers). That all-roles process delivers too,
//   so it is stopped before measuring: only the workers deliver.
// - The events: real order changes, written here through the one write path of every order change
//   (src/data/order-changes.ts: the order, its history and its outbox row in one transaction of the region's
//   database), alternating between the demo's two sandbox merchants: each order is placed (online_order.created)
//   and accepted as the point of sale does (online_order.updated). Commit time: when the change's transaction
//   returned.
// - The receivers: a process of their own (bench/support/webhook-receiver.ts), verifying every delivery with the
//   `standardwebhooks` npm package; receipt time: when a delivery's body had arrived.
// - Two phases per worker count: steady (BENCH_RATE, 2, events/s offered for BENCH_SECONDS, 20: the latency under
//   load) and burst (BENCH_BURST, 250, events committed by 8 writers as fast as they go: the delivery capacity,
//   deliveries / (last receipt - first commit)). CPU per delivery read from /proc for the worker processes and the
//   database's backends (every connection to the bench's database: the commits' and the delivery's); Redis is not
//   on the path (the worker role never opens it).
// - Baseline: each of BENCH_BURST event bodies POSTed bare and signed to every receiver at once, from this process,
//   a new connection each (as the sender makes them): the receivers' and the loopback's ceiling.
// - The floor of one delivery (issue 43): bench/support/plain-delivery.ts, in a process of its own, reads an outbox
//   row, signs it, POSTs it kept-alive to the same receivers and marks it delivered; its CPU per delivery (its
//   process and its backends) against the one worker's in the burst (its process tree and its own backends).
import { spawn } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import http from "node:http";
import { createInterface } from "node:readline";
import { createOrderChanges } from "../src/data/order-changes.js";
import { eventBody } from "../src/events/index.js";
import { silentLogger } from "../src/runtime/logger.js";
import { regionSchema } from "../src/storage/schemas.js";
import { openDatabase } from "../src/storage/postgres.js";
import { secretPrefix, signedHeaders } from "../src/webhook/signing.js";
import type { Region } from "../src/config/regions.js";
import { startDemoService } from "./support/demo-service.js";
import { exitOnErrors, figureLine, machine, perCall, type Figure } from "./support/measure.js";
import { freePort, startService, type RunningService } from "./support/service.js";
import { startCpuMeter } from "./support/cpu-meter.js";
import { plainDeliveries } from "./support/plain-delivery-run.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 20);
const rate = Number(process.env["BENCH_RATE"] ?? 2);
const burst = Number(process.env["BENCH_BURST"] ?? 250);
const manyWorkers = Number(process.env["BENCH_WORKERS"] ?? 3);
const endpoints = Number(process.env["BENCH_ENDPOINTS"] ?? 4);
const writers = 8;
/** How long the last events of a phase may take to arrive before they count as lost. */
const drainMs = 120_000;

/** epoch milliseconds, sub-millisecond, as the receiver stamps its receipts. */
const now = () => performance.timeOrigin + performance.now();

interface Receipt {
  receiver: number;
  webhookId: string;
  companyId?: number;
  type: string;
  orderId?: string;
  status?: string;
  at: number;
  verified: boolean;
}

/** The receivers' process: their URLs, every receipt so far by `receiver|companyId:orderId:status`, the secrets. */
async function startReceiverProcess() {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/support/webhook-receiver.ts"], {
    env: { PATH: process.env["PATH"] ?? "", RECEIVERS: String(endpoints) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const receipts = new Map<string, Receipt>();
  const stats = { total: 0, duplicates: 0, unverified: 0 };
  const urls = await new Promise<string[]>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the receiver exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const parsed = JSON.parse(line) as Partial<Receipt> & { urls?: string[] };
      if (parsed.urls) return resolve(parsed.urls);
      const receipt = parsed as Receipt;
      stats.total += 1;
      if (!receipt.verified) stats.unverified += 1;
      const key = `${receipt.receiver}|${receipt.companyId}:${receipt.orderId}:${receipt.status}`;
      if (receipts.has(key)) stats.duplicates += 1;
      else receipts.set(key, receipt);
    });
  });
  return {
    urls,
    receipts,
    stats,
    addSecret: (index: number, secret: string) => child.stdin!.write(`${index} ${secret}\n`),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
type ReceiverProcess = Awaited<ReturnType<typeof startReceiverProcess>>;

/** CPU seconds (user + system) of each process of `pids` (Linux: /proc/<pid>/stat, fields 14 and 15). */
async function cpuSeconds(pids: readonly number[]): Promise<Map<number, number>> {
  const ticksPerSecond = 100; // USER_HZ on Linux
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      used.set(pid, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
    } catch {
      // gone
    }
  }
  return used;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Waits until each event of `commits` (by `companyId:orderId:status`) has a receipt at each of `receivers` or `drainMs`
 * passed; the figure of those deliveries (deliveries a second from the first commit to the last receipt).
 */
async function figureOf(
  receiver: ReceiverProcess,
  commits: Map<string, number>,
  errors: number,
  receivers: readonly number[],
): Promise<Figure> {
  const deadline = Date.now() + drainMs;
  const keys = [...commits.keys()].flatMap((key) => receivers.map((index) => `${index}|${key}`));
  const missing = () => keys.filter((key) => !receiver.receipts.has(key)).length;
  while (missing() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const latencies: number[] = [];
  let first = Infinity;
  let last = 0;
  for (const [key, committedAt] of commits) {
    first = Math.min(first, committedAt);
    for (const index of receivers) {
      const receipt = receiver.receipts.get(`${index}|${key}`);
      if (!receipt) continue;
      latencies.push(receipt.at - committedAt);
      last = Math.max(last, receipt.at);
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / ((last - first) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: errors + missing(),
  };
}

async function main(): Promise<void> {
  const databaseUrl = process.env["DATABASE_URL"];
  if (!databaseUrl) {
    process.stderr.write(
      "bench:webhooks needs DATABASE_URL (an empty PostgreSQL database): several worker processes share it\n",
    );
    process.exit(2);
  }
  const databaseName = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const receiver = await startReceiverProcess();
  // A service that fails to start must not leave the receivers' process behind.
  const running = await startDemoService({ WEBHOOK_ALLOW_LOOPBACK: "1" }).catch(async (error: unknown) => {
    await receiver.stop();
    throw error;
  });
  const { demo, front, dataDir, env } = running;
  const workers: RunningService[] = [];
  // The writers' statements get 30 s rather than the service's 5 s: on a machine shared with other work, a
  // merchant's changes (one at a time) can queue past 5 s, and a failed write would measure nothing.
  const database = await openDatabase({
    url: databaseUrl,
    dataDir,
    logger: silentLogger,
    poolSize: writers + 2,
    timeouts: { connectSeconds: 10, querySeconds: 30 },
  });
  const figures: Array<[string, Figure]> = [];
  try {
    // The world: sandbox endpoints on the receivers, for the app's sandbox merchants (their automatic grants).
    const client = demo.apps.full.sandbox;
    const secrets: string[] = [];
    for (const [index, url] of receiver.urls.entries()) {
      const created = await fetch(`${front}/v1/webhook-endpoints`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ url, events: ["online_order.created", "online_order.updated"] }),
      });
      if (created.status !== 200)
        throw new Error(`POST /v1/webhook-endpoints answered ${created.status}: ${await created.text()}`);
      const { secret } = (await created.json()) as { secret: string };
      receiver.addSecret(index, secret);
      secrets.push(secret);
    }
    const everyEndpoint = receiver.urls.map((_, index) => index);
    // Only the workers deliver from here on.
    await running.service.stop();

    // Orders alternate between the demo's sandbox merchants (each has the app's automatic sandbox grant): a
    // merchant's changes commit one at a time (its feed stamp), so two merchants halve that queue.
    const sql = database.sql;
    const shops = await Promise.all(
      (demo.merchants.sandbox as Array<{ companyId: number; region: Region }>).map(async (shop) => {
        const schema = regionSchema(shop.region);
        const [store] = await sql<{ id: number }[]>`
          select id from ${sql(`${schema}.stores`)} where company_id = ${shop.companyId} order by id limit 1`;
        if (!store) throw new Error(`no store of the sandbox merchant ${shop.companyId}`);
        return { companyId: shop.companyId, storeId: Number(store.id), changes: createOrderChanges(sql, schema) };
      }),
    );
    let serial = 0;
    /** One order placed and accepted: two events, each commit stamped under its receipt key. */
    const order = async (commits: Map<string, number>) => {
      const at = new Date();
      const shop = shops[++serial % shops.length]!;
      const placed = await shop.changes.place(
        {
          companyId: shop.companyId,
          storeId: shop.storeId,
          totalMinor: 1250,
          currency: "GBP",
          lines: [{ itemCode: "BENCH-1", name: "Flat white", quantity: 2, priceMinor: 625 }],
          appId: client.clientId,
          externalReference: `bench-${process.pid}-${serial}`,
          fulfilmentType: "PICKUP",
          deliveryAddress: null,
          customerName: "Bench Customer",
          customerPhone: null,
          note: null,
          requestedFor: null,
          decideBy: new Date(at.getTime() + 600_000).toISOString(),
          autopilotAt: null,
        },
        "sandbox",
        at,
      );
      // Order ids are per region: the key names the merchant too.
      commits.set(`${shop.companyId}:${placed.id}:PENDING`, now());
      const accepted = await shop.changes.move(shop.companyId, placed.id, "accept", {}, "pos", new Date());
      commits.set(`${shop.companyId}:${accepted.id}:ACCEPTED`, now());
    };

    /** A failed order: its first error is printed; both its events count as errors. */
    let reportedFailure = false;
    const failed = (error: unknown) => {
      if (!reportedFailure) process.stderr.write(`an order failed: ${String(error)}\n`);
      reportedFailure = true;
      return 2;
    };
    const backendPids = async () =>
      (await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`).map((row) =>
        Number(row.pid),
      );
    /** Runs `load`; its figure and the CPU per event of the workers and the database's backends. */
    const measure = async (load: (commits: Map<string, number>) => Promise<number>) => {
      const commits = new Map<string, number>();
      const workerPids = workers.map((worker) => worker.child.pid!);
      // One worker: its own CPU as the benchmarks read a server's (its tree, the backends of its own connections).
      const own =
        workers.length === 1 ? await startCpuMeter({ root: workerPids[0]!, database: databaseName }) : undefined;
      const backendsBefore = await backendPids();
      const before = await cpuSeconds([...workerPids, ...backendsBefore]);
      const errors = await load(commits);
      const figure = await figureOf(receiver, commits, errors, everyEndpoint);
      const backends = [...new Set([...backendsBefore, ...(await backendPids())])];
      const after = await cpuSeconds([...workerPids, ...backends]);
      const used = (pids: readonly number[]) =>
        pids.reduce((sum, pid) => sum + (after.get(pid) ?? 0) - (before.get(pid) ?? 0), 0);
      const deliveries = commits.size * endpoints;
      const ownUsed = await own?.stop();
      return {
        figure: ownUsed ? { ...figure, cpu: perCall(ownUsed, deliveries) } : figure,
        deliveries,
        workerMs: (used(workerPids) * 1000) / deliveries,
        backendMs: (used(backends) * 1000) / deliveries,
      };
    };
    const steady = (commits: Map<string, number>) =>
      new Promise<number>((resolve) => {
        const started = Date.now();
        let launched = 0;
        let finished = 0;
        let errors = 0;
        const orders = Math.round((rate / 2) * seconds);
        const timer = setInterval(() => {
          const due = Math.min(orders, Math.floor(((Date.now() - started) / 1000) * (rate / 2)));
          for (; launched < due; launched++)
            order(commits)
              .catch((error: unknown) => (errors += failed(error)))
              .finally(() => {
                if (++finished === orders) resolve(errors);
              });
          if (launched === orders) clearInterval(timer);
        }, 10);
      });
    const flood = async (commits: Map<string, number>) => {
      let errors = 0;
      let left = Math.ceil(burst / 2);
      await Promise.all(
        Array.from({ length: writers }, async () => {
          while (left-- > 0) await order(commits).catch((error: unknown) => (errors += failed(error)));
        }),
      );
      return errors;
    };

    const results: Array<{
      count: number;
      steady: Awaited<ReturnType<typeof measure>>;
      burst: Awaited<ReturnType<typeof measure>>;
    }> = [];
    for (const count of [1, manyWorkers]) {
      for (let i = 0; i < count; i++) {
        const worker = await startService({
          args: ["--role", "worker"],
          readyMessage: "webhook worker ready",
          dataDir,
          env: {
            ...env,
            PORT: String(await freePort()),
            AUTH_PORT: String(await freePort()),
            CONSOLE_PORT: String(await freePort()),
            GRPC_PORT: "0",
          },
        });
        workers.push(worker);
      }
      // Warm-up: a few orders through the workers before anything is measured.
      await measure(async (commits) => {
        for (let i = 0; i < 10; i++) await order(commits);
        return 0;
      });
      const steadyResult = await measure(steady);
      const burstResult = await measure(flood);
      results.push({ count, steady: steadyResult, burst: burstResult });
      for (const worker of workers.splice(0)) await worker.stop();
    }

    // The baseline: each of BENCH_BURST order-event bodies POSTed bare, signed, to every receiver at once (the
    // fan-out without the service), a new connection each, 4 events (16 POSTs with 4 endpoints) in flight.
    const keys = secrets.map((secret) => Buffer.from(secret.slice(secretPrefix.length), "base64"));
    const bareCommits = new Map<string, number>();
    let bareErrors = 0;
    const post = (target: URL, key: Buffer, index: number) =>
      new Promise<void>((resolve) => {
        const body = eventBody("online_order.created", new Date(), {
          companyId: 0,
          order: { id: `bare-${index}`, status: "SENT" },
        });
        const headers = signedHeaders(`msg_bare${index}`, Math.floor(Date.now() / 1000), body, [key]);
        const request = http.request(target, {
          method: "POST",
          agent: false,
          headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        });
        request.on("response", (response) => {
          if (response.statusCode !== 204) bareErrors += 1;
          response.resume().on("end", resolve);
        });
        request.on("error", () => {
          bareErrors += 1;
          resolve();
        });
        request.end(body);
      });
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let index = next++; index < burst; index = next++) {
          bareCommits.set(`0:bare-${index}:SENT`, now());
          await Promise.all(receiver.urls.map((url, at) => post(new URL(url), keys[at]!, index)));
        }
      }),
    );
    const bare = await figureOf(receiver, bareCommits, bareErrors, everyEndpoint);
    // The floor of one delivery (bench/support/plain-delivery.ts), to the same receivers, in a process of its own.
    const plain = await plainDeliveries(databaseUrl, receiver.urls, secrets, burst * endpoints);
    const unverifiedDeliveries = receiver.stats.unverified;

    const [one, many] = results as [(typeof results)[0], (typeof results)[0]];
    const cpu = (result: Awaited<ReturnType<typeof measure>>) =>
      `workers ${result.workerMs.toFixed(2)} ms, database backends ${result.backendMs.toFixed(2)} ms`;
    process.stdout.write(
      [
        `webhooks: PostgreSQL, order events (placed + accepted) written through src/data/order-changes.ts, each to ${endpoints} sandbox endpoints ` +
          `(a receiver each, verifying with standardwebhooks); deliveries/s and commit-to-receipt p50/p99; steady ${rate} events/s for ${seconds} s, ` +
          `burst ${burst} events by ${writers} writers; ${machine()}`,
        figureLine(`steady, ${manyWorkers} workers`, many.steady.figure, "1 worker", one.steady.figure),
        figureLine(`burst, ${manyWorkers} workers`, many.burst.figure, "1 worker", one.burst.figure),
        figureLine(`burst, ${manyWorkers} workers`, many.burst.figure, "bare signed POST", bare),
        figureLine("burst, 1 worker", one.burst.figure, "bare signed POST", bare),
        figureLine("one delivery, 1 worker (burst)", one.burst.figure, "plain delivery", plain),
        `CPU per delivery, steady: 1 worker: ${cpu(one.steady)}   ${manyWorkers} workers: ${cpu(many.steady)}`,
        `CPU per delivery, burst:  1 worker: ${cpu(one.burst)}   ${manyWorkers} workers: ${cpu(many.burst)}`,
        `receipts: ${receiver.stats.total} (bare POSTs included), duplicates ${receiver.stats.duplicates}, not verified ${unverifiedDeliveries}`,
      ].join("\n") + "\n",
    );
    figures.push(
      ["steady, 1 worker", one.steady.figure],
      [`steady, ${manyWorkers} workers`, many.steady.figure],
      ["burst, 1 worker", one.burst.figure],
      [`burst, ${manyWorkers} workers`, many.burst.figure],
      ["bare signed POST", bare],
      ["plain delivery", plain],
      ["receipts not verified", { rate: 0, p50: 0, p99: 0, errors: unverifiedDeliveries }],
    );
    exitOnErrors(figures);
  } finally {
    for (const worker of workers) await worker.stop();
    await database.close();
    await receiver.stop();
    await running.service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
