// `npm run bench:chaos` (issue 37): what a fleet's own parts failing costs a partner. The fleet runs as an operator
// runs it, each role in a network namespace of its own (bench/support/chaos-fleet.ts): two fronts behind a
// balancer, the uk data role (one region: a second adds two processes and a database and tells nothing new about
// failover), a webhook worker, PostgreSQL as a Patroni cluster with synchronous replication behind HAProxy, Redis
// with Sentinel, and a partner's receiver verifying every webhook. Under a steady mixed load (bench/support/
// chaos-load.ts: item reads, token mints, refresh rotations, order placements, and the order events' webhooks), in
// turn (bench/support/chaos-faults.ts): kill -9 of the PostgreSQL primary; kill -9 of the Redis primary; the data
// role partitioned (every packet leaving its namespace dropped) and healed; a rolling restart of every role; kill -9
// of a front and the worker. Per fault it prints (bench/support/chaos-report.ts) the seconds until writes succeed
// again, the answers by status and code until then, acknowledged writes missing and writes stored twice (both must
// be 0: the exit status is 1 otherwise), webhook events expected / delivered / duplicated webhook-ids at the
// receiver, and the p99 of every call before, during and after. Root only (namespaces); Debian's patroni, etcd,
// haproxy, redis-server and redis-sentinel installed (test/support/patroni-cluster.ts installs the first three when
// absent). Everything it starts is removed on exit, on a failure and on SIGINT/SIGTERM.
//
// Knobs: CHAOS_FAULTS (postgres,redis,partition,rolling,kill: which, in that order), CHAOS_BEFORE_SECONDS (5) and
// CHAOS_AFTER_SECONDS (5) of load around each fault, CHAOS_PARTITION_SECONDS (8), CHAOS_RECOVERY_LIMIT_SECONDS (60:
// the most a fault may take before the run moves on), CHAOS_LANES (2 per kind of call), CHAOS_PAUSE_MS (100 between
// a lane's calls), CHAOS_CALL_TIMEOUT_SECONDS (15), CHAOS_DELIVERY_WAIT_SECONDS (90: for the last events, which a
// killed worker's jobs reach only once pg-boss expires them, 60 s), CHAOS_RUN_LIMIT_SECONDS (600: past it,
// everything is torn down and the run fails).
import { createWriter, prepareTickets } from "../test/support/inflight-writes.js";
import { startFleet, type Fleet } from "./support/chaos-fleet.js";
import { faults, type Fault } from "./support/chaos-faults.js";
import { startLoad, writeKinds, type Load } from "./support/chaos-load.js";
import { loadAverage, rowOf, table, type Arrival, type Phase, type StoredOrders } from "./support/chaos-report.js";
import { machine } from "./support/measure.js";

const knob = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const beforeMs = knob("CHAOS_BEFORE_SECONDS", 5) * 1000;
const afterMs = knob("CHAOS_AFTER_SECONDS", 5) * 1000;
const limitMs = knob("CHAOS_RECOVERY_LIMIT_SECONDS", 60) * 1000;
const deliveryWaitMs = knob("CHAOS_DELIVERY_WAIT_SECONDS", 90) * 1000;
const lanes = knob("CHAOS_LANES", 2);
const selected = (process.env["CHAOS_FAULTS"] ?? "postgres,redis,partition,rolling,kill").split(",");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let fleet: Fleet | undefined;
let closing: Promise<void> | undefined;
const close = () => (closing ??= fleet?.close() ?? Promise.resolve());
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => {
    console.error(`bench:chaos: ${signal}; removing the fleet`);
    void close().finally(() => process.exit(130));
  });
}
const runLimit = setTimeout(() => {
  console.error("bench:chaos: over CHAOS_RUN_LIMIT_SECONDS; removing the fleet");
  void close().finally(() => process.exit(1));
}, knob("CHAOS_RUN_LIMIT_SECONDS", 600) * 1000);

/** Until each write kind's last three calls started after `sinceMs` succeeded (at most `limitMs`). */
async function writesSteady(load: Load, sinceMs: number): Promise<void> {
  const deadline = performance.now() + limitMs;
  const steady = () =>
    writeKinds.every((kind) => {
      const last = load.records.filter((record) => record.kind === kind && record.startedMs > sinceMs).slice(-3);
      return last.length === 3 && last.every((record) => record.ok);
    });
  while (!steady() && performance.now() < deadline) await sleep(100);
}

async function runPhase(fault: Fault, running: Fleet, load: Load): Promise<Phase> {
  const startMs = performance.now();
  const crashed = running.crashes.length;
  await sleep(beforeMs);
  const faultMs = performance.now();
  const loadNow = loadAverage();
  console.log(`  ${fault.name}...`);
  const { note } = await fault.act(running);
  const clearedMs = performance.now();
  await writesSteady(load, clearedMs);
  await sleep(afterMs);
  // A role that died of the fault (and was started again) is part of what it cost.
  const crashes = running.crashes
    .slice(crashed)
    .map(
      (crash) =>
        `**${crash.name} exited (${crash.code}) ${((crash.atMs - faultMs) / 1000).toFixed(1)} s in**, restarted`,
    );
  const what = [note, ...crashes].join("; ");
  return { name: fault.name, startMs, faultMs, clearedMs, endMs: performance.now(), note: what, load: loadNow };
}

/** Every order of the merchant in the region's database by external reference (asked again while it fails over). */
async function storedOrders(running: Fleet): Promise<StoredOrders> {
  const { sql } = running.region;
  for (let attempt = 1; ; attempt++) {
    try {
      const rows = await sql<{ reference: string; id: string }[]>`
        select external_reference as reference, id::text as id from region_uk.online_orders
        where company_id = ${running.world.companyId}`;
      const byReference = new Map<string, { ids: string[] }>();
      for (const row of rows) {
        const entry = byReference.get(row.reference) ?? { ids: [] };
        entry.ids.push(row.id);
        byReference.set(row.reference, entry);
      }
      return { byReference };
    } catch (error) {
      if (attempt >= 10) throw error;
      await sleep(1000);
    }
  }
}

function arrivals(running: Fleet): Arrival[] {
  return running.receiver
    .entries()
    .filter((entry) => entry["msg"] === "webhook received")
    .map((entry) => ({
      webhookId: String(entry["webhookId"] ?? ""),
      type: typeof entry["type"] === "string" ? entry["type"] : undefined,
      verified: entry["verified"] === true,
      orderId: entry["orderId"] === undefined ? undefined : String(entry["orderId"]),
    }));
}

/** Waits (at most CHAOS_DELIVERY_WAIT_SECONDS) until every stored order's event has reached the receiver. */
async function deliveries(running: Fleet, stored: StoredOrders): Promise<Arrival[]> {
  const expected = new Set([...stored.byReference.values()].flatMap((entry) => entry.ids));
  const deadline = performance.now() + deliveryWaitMs;
  for (;;) {
    const seen = arrivals(running);
    const delivered = new Set(seen.filter((arrival) => arrival.verified).map((arrival) => arrival.orderId));
    if ([...expected].every((id) => delivered.has(id)) || performance.now() > deadline) return seen;
    await sleep(500);
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  console.log(`bench:chaos — ${machine()}`);
  fleet = await startFleet((line) => console.log(line));
  const { world } = fleet;
  const writer = await createWriter(
    { api: fleet.api.url, auth: fleet.consent.url },
    { ...world.full, redirectUri: world.redirectUri, owner: world.owner },
    { token: world.orders.token, storeId: world.storeId, itemId: world.itemId },
  );
  const families = await prepareTickets(writer, "refresh", lanes * 4);
  const load = startLoad(writer, { ...world.full, companyId: world.companyId }, families, {
    api: fleet.api.url,
    lanes,
    pauseMs: knob("CHAOS_PAUSE_MS", 100),
    callTimeoutMs: knob("CHAOS_CALL_TIMEOUT_SECONDS", 15) * 1000,
  });
  const phases: Phase[] = [];
  try {
    for (const fault of faults({ partitionMs: knob("CHAOS_PARTITION_SECONDS", 8) * 1000, limitMs })) {
      if (selected.includes(fault.id)) phases.push(await runPhase(fault, fleet, load));
    }
  } finally {
    await load.stop();
  }
  const stored = await storedOrders(fleet);
  const seen = await deliveries(fleet, stored);
  const rows = phases.map((phase) => rowOf(phase, load.records, load.lost, stored, seen));
  console.log(
    `\n${load.records.length} calls in ${((performance.now() - started) / 1000).toFixed(0)} s (${lanes} lanes per kind), load average at the end ${loadAverage().toFixed(2)}\n`,
  );
  console.log(table(rows));
  const broken = rows.filter((row) => row.missing > 0 || row.duplicated > 0);
  for (const row of broken)
    console.error(`${row.name}: ${row.missing} acknowledged writes missing, ${row.duplicated} stored twice`);
  for (const rotation of load.lost)
    console.error(`acknowledged refresh refused later: ${rotation.refusal.status} ${rotation.refusal.code}`);
  return broken.length > 0 ? 1 : 0;
}

void main()
  .then(
    (code) => code,
    (error: unknown) => {
      console.error("bench:chaos failed:", error);
      return 1;
    },
  )
  .then(async (code) => {
    clearTimeout(runLimit);
    await close();
    process.exit(code);
  });
