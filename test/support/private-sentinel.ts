// A Redis primary, a replica and three sentinels of a test's own, on free ports (never the machine's shared Redis),
// for the failover tests: started from Debian's binaries (`redis-sentinel`, or `redis-server --sentinel`, the same
// program), without persistence, with the Sentinel timings docs/deployment.md documents (deploy/redis-sentinel/).
// Ready once every sentinel sees the replica and the two other sentinels: before that a failover cannot happen.
// Install on Debian (as root, once; the tests install nothing): apt-get install -y redis-server redis-sentinel
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { startPrivateRedis, stopProcess } from "./private-redis.js";
import { freePort } from "./test-app.js";

/** The primary's name the sentinels watch. */
export const sentinelName = "mymaster";
/** How long the sentinels wait for a silent primary before they call it down (down-after-milliseconds). */
export const downAfterMs = 1000;
/** Sentinel's failover-timeout: a stalled failover is tried again after twice this. */
export const failoverTimeoutMs = 5000;

export interface SentinelCluster {
  primary: { port: number; process: ChildProcess };
  replica: { port: number; process: ChildProcess };
  sentinels: { port: number; process: ChildProcess }[];
  /** The port of the server the sentinels name as primary now. */
  primaryPort(): Promise<number>;
  /** Resolves once the replica has everything the primary wrote (their replication offsets are equal). */
  replicated(): Promise<void>;
  destroy(): Promise<void>;
}

/** How to start a sentinel here, or undefined when neither redis-sentinel nor redis-server is installed. */
export function sentinelCommand(): { command: string; args: string[] } | undefined {
  if (spawnSync("redis-sentinel", ["--version"]).status === 0) return { command: "redis-sentinel", args: [] };
  if (spawnSync("redis-server", ["--version"]).status === 0) return { command: "redis-server", args: ["--sentinel"] };
  return undefined;
}

/**
 * Starts the cluster; undefined when the binaries are missing. Throws when it does not become ready. Everything
 * listens on `host` (127.0.0.1 unless given), the address the sentinels also hand out for the primary.
 */
export async function startSentinelCluster(host = "127.0.0.1"): Promise<SentinelCluster | undefined> {
  const how = sentinelCommand();
  if (!how) return undefined;
  const dir = await mkdtemp(join(tmpdir(), "pa-sentinel-"));
  const started: ChildProcess[] = [];
  const destroy = async () => {
    await Promise.all(started.map((child) => stopProcess(child, "SIGKILL")));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await freePort();
    const primary = await startPrivateRedis(primaryPort, ["--dir", dir], host);
    if (!primary) return undefined;
    started.push(primary);
    const replicaPort = await freePort();
    const replica = await startPrivateRedis(
      replicaPort,
      [
        "--replicaof",
        host,
        String(primaryPort),
        // A full sync lands in a file (dump.rdb) before it is loaded: in the cluster's directory, not the cwd.
        "--dir",
        dir,
      ],
      host,
    );
    if (!replica) throw new Error("the replica did not start");
    started.push(replica);
    const sentinels: SentinelCluster["sentinels"] = [];
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${i}.conf`);
      // Sentinel rewrites its file (what it learns), so each gets a writable copy of its own.
      await writeFile(file, sentinelConf(port, primaryPort, dir, host));
      const child = spawn(how.command, [file, ...how.args], { stdio: "ignore" });
      started.push(child);
      sentinels.push({ port, process: child });
    }
    const cluster: SentinelCluster = {
      primary: { port: primaryPort, process: primary },
      replica: { port: replicaPort, process: replica },
      sentinels,
      primaryPort: () =>
        askSentinel(host, sentinels[0]!.port, async (s) =>
          Number(((await s.call("SENTINEL", "get-master-addr-by-name", sentinelName)) as string[])[1]),
        ),
      replicated: () => waitReplicated(host, primaryPort, replicaPort),
      destroy,
    };
    await waitReady(host, cluster);
    return cluster;
  } catch (error) {
    await destroy();
    throw error;
  }
}

/** A sentinel's configuration: the timings the deployment template uses (deploy/redis-sentinel/sentinel.conf). */
function sentinelConf(port: number, primaryPort: number, dir: string, host: string): string {
  return [
    `port ${port}`,
    `bind ${host}`,
    // Off the loopback a sentinel without a password refuses every client unless told this is a private network.
    ...(host === "127.0.0.1" ? [] : ["protected-mode no"]),
    "daemonize no",
    `dir ${dir}`,
    `sentinel monitor ${sentinelName} ${host} ${primaryPort} 2`,
    `sentinel down-after-milliseconds ${sentinelName} ${downAfterMs}`,
    `sentinel failover-timeout ${sentinelName} ${failoverTimeoutMs}`,
    `sentinel parallel-syncs ${sentinelName} 1`,
    "",
  ].join("\n");
}

async function askSentinel<T>(host: string, port: number, ask: (sentinel: Redis) => Promise<T>): Promise<T> {
  const sentinel = new Redis({
    port,
    host,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  sentinel.on("error", () => undefined); // a sentinel not listening yet: connect() rejects, which is the answer
  try {
    await sentinel.connect();
    return await ask(sentinel);
  } finally {
    sentinel.disconnect();
  }
}

/** Polls (for up to a minute: Sentinel learns replicas from INFO every 10 s) until the cluster can fail over. */
async function waitReady(host: string, cluster: SentinelCluster): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const ready = await Promise.all(
      cluster.sentinels.map(({ port }) =>
        askSentinel(host, port, async (s) => {
          const replicas = (await s.call("SENTINEL", "replicas", sentinelName)) as string[][];
          const peers = (await s.call("SENTINEL", "sentinels", sentinelName)) as string[][];
          return replicas.length === 1 && peers.length === 2;
        }).catch(() => false),
      ),
    );
    if (ready.every(Boolean)) return;
    if (performance.now() > deadline) throw new Error(`the sentinels are not ready after a minute: ${ready.join(",")}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Polls until the replica's offset reaches the primary's (asynchronous replication has caught up). */
async function waitReplicated(host: string, primaryPort: number, replicaPort: number): Promise<void> {
  const offset = async (port: number, field: string) => {
    const client = new Redis({ port, host, maxRetriesPerRequest: 0 });
    client.on("error", () => undefined); // the failed INFO says it
    try {
      const info = await client.info("replication");
      return Number(new RegExp(`${field}:(\\d+)`).exec(info)?.[1] ?? -1);
    } finally {
      client.disconnect();
    }
  };
  const deadline = performance.now() + 30_000;
  for (;;) {
    const [primary, replica] = [
      await offset(primaryPort, "master_repl_offset"),
      await offset(replicaPort, "slave_repl_offset"),
    ];
    if (primary > 0 && replica === primary) return;
    if (performance.now() > deadline) throw new Error(`replication did not catch up: ${primary} against ${replica}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
