// The faults of bench:chaos, in the order it runs them, on the fleet of bench/support/chaos-fleet.ts. Each `act`
// starts at the fault and returns once the fault is over (a kill: at once; a partition: healed; restarts: every
// process back), with a note of what happened.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Fleet, FleetRole } from "./chaos-fleet.js";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (fromMs: number) => `${((performance.now() - fromMs) / 1000).toFixed(1)} s`;

export interface Fault {
  /** Its name in CHAOS_FAULTS. */
  id: string;
  name: string;
  act(fleet: Fleet): Promise<{ note: string }>;
}

/** Polls `check` every 100 ms up to `limitMs`; whether it held. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + limitMs;
  while (performance.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await sleep(100);
  }
  return false;
}

/** kill -9 of the primary's postmaster (its Patroni lives on and fails over on its next loop). */
function postgresPrimary(limitMs: number): Fault {
  return {
    id: "postgres",
    name: "kill -9 of the PostgreSQL primary",
    async act(fleet) {
      const old = await fleet.cluster.primary();
      if (!old) throw new Error("no PostgreSQL primary before the fault");
      const killedMs = performance.now();
      fleet.cluster.killPostgres(old);
      let promoted = "";
      await within(limitMs, async () => {
        const now = await fleet.cluster.primary();
        if (now && now.name !== old.name) promoted = now.name;
        return promoted !== "";
      });
      return {
        note: promoted
          ? `${old.name} killed, ${promoted} primary after ${seconds(killedMs)} (Patroni)`
          : "no new primary",
      };
    },
  };
}

/** kill -9 of the Redis server the sentinels call primary. */
function redisPrimary(limitMs: number): Fault {
  return {
    id: "redis",
    name: "kill -9 of the Redis primary",
    async act(fleet) {
      const { sentinel } = fleet;
      const port = await sentinel.primaryPort();
      const server = [sentinel.primary, sentinel.replica].find((candidate) => candidate.port === port);
      if (!server) throw new Error(`no Redis server on the primary's port ${port}`);
      const killedMs = performance.now();
      server.process.kill("SIGKILL");
      const promoted = await within(limitMs, async () => (await sentinel.primaryPort()) !== port);
      return { note: promoted ? `replica promoted after ${seconds(killedMs)} (Sentinel)` : "no promotion" };
    },
  };
}

/**
 * The data role cut off: in its namespace, a routing rule that drops every packet leaving it (answers included)
 * while its own addresses still reach themselves; the peers see silence, as across a lost link. Then healed.
 */
function partition(holdMs: number): Fault {
  return {
    id: "partition",
    name: "data role partitioned",
    async act(fleet) {
      const netns = fleet.data.host.netns!;
      await run("ip", ["-n", netns, "rule", "add", "pref", "100", "blackhole"], { timeout: 10_000 });
      try {
        await sleep(holdMs);
      } finally {
        await run("ip", ["-n", netns, "rule", "del", "pref", "100"], { timeout: 10_000 });
      }
      return { note: `all its traffic dropped for ${(holdMs / 1000).toFixed(0)} s, then healed` };
    },
  };
}

/** Every role stopped (SIGTERM: drain, then exit) and started again, one at a time: fronts, data role, worker. */
function rollingRestart(): Fault {
  return {
    id: "rolling",
    name: "rolling restart of every role",
    async act(fleet) {
      const took: string[] = [];
      for (const role of [...fleet.fronts, fleet.data, fleet.worker]) {
        const started = performance.now();
        await fleet.stop(role);
        await fleet.start(role);
        took.push(`${role.name} ${seconds(started)}`);
      }
      return { note: took.join(", ") };
    },
  };
}

/** kill -9 of front A and the worker together; both started again at once, as an orchestrator does. */
function frontAndWorker(): Fault {
  return {
    id: "kill",
    name: "kill -9 of a front and the worker",
    async act(fleet) {
      const killed: FleetRole[] = [fleet.fronts[0]!, fleet.worker];
      const started = performance.now();
      for (const role of killed) fleet.kill(role);
      await Promise.all(killed.map((role) => role.process!.exited));
      await Promise.all(killed.map((role) => fleet.start(role)));
      return { note: `both back after ${seconds(started)}` };
    },
  };
}

export function faults(options: { partitionMs: number; limitMs: number }): Fault[] {
  return [
    postgresPrimary(options.limitMs),
    redisPrimary(options.limitMs),
    partition(options.partitionMs),
    rollingRestart(),
    frontAndWorker(),
  ];
}
