// A PostgreSQL HA cluster of the test's own (npm run test:ha): one etcd member, two PostgreSQL 15 nodes under
// Patroni with synchronous replication, and HAProxy in front sending connections to whichever node Patroni calls
// primary. Private ports and a temporary directory; the configuration is deploy/patroni/patroni.yml and
// deploy/haproxy/haproxy.cfg filled in, so the test runs what docs/deployment.md tells an operator to run.
// Installs Debian's patroni, etcd-server and haproxy when absent (as root; otherwise it throws, so the test fails
// rather than skips). Everything it started is killed and its directory removed by destroy(), or at process exit.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { chown, mkdtemp } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./test-app.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");

/** One PostgreSQL node and its Patroni. */
export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
}

export interface PatroniCluster {
  /** `postgres://postgres@<HAProxy's address>:<its port>/<database>`: the primary, whichever node it is. */
  url(database: string): string;
  nodes: readonly PatroniNode[];
  /** The node holding the leader lock with PostgreSQL running, per Patroni's REST API; undefined when none. */
  primary(): Promise<PatroniNode | undefined>;
  /** Waits (at most `timeoutMs`) for a primary and a streaming synchronous standby; returns the primary. */
  waitHealthy(timeoutMs: number): Promise<PatroniNode>;
  /** kill -9 of the node's postmaster (its Patroni lives on, as after a crash of PostgreSQL alone). */
  killPostgres(node: PatroniNode): void;
  /** kill -9 of the node's Patroni and PostgreSQL together: the host lost, its leader lock left to expire. */
  killNode(node: PatroniNode): void;
  /** A planned switchover (Patroni's POST /switchover): the primary stops cleanly and `to` is promoted. */
  switchover(from: PatroniNode, to: PatroniNode): Promise<void>;
  /** Creates databases through HAProxy (on the primary; the standby gets them by replication). */
  createDatabases(names: readonly string[]): Promise<void>;
  /** Where the logs are (etcd.log, haproxy.log, <node>.log): printed by a failing test. */
  dir: string;
  /** Kills every process it started and removes its directory. Never throws. */
  destroy(): Promise<void>;
}

/** The Debian packages of the cluster, installed when absent (CI runs as root). */
async function ensurePackages(): Promise<void> {
  const missing = ["patroni", "etcd", "haproxy"].filter(
    (binary) => !["/usr/bin", "/usr/sbin"].some((dir) => existsSync(join(dir, binary))),
  );
  if (missing.length === 0) return;
  if (userInfo().uid !== 0)
    throw new Error(`the HA test needs ${missing.join(", ")} (apt-get install patroni etcd-server haproxy)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update", "-qq"], { env, timeout: 300_000 });
  await run("apt-get", ["install", "-y", "-qq", "patroni", "etcd-server", "haproxy"], { env, timeout: 600_000 });
}

/** The newest /usr/lib/postgresql/<v>/bin holding the server (Patroni's bin_dir). */
function serverBinDir(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base).filter((v) => existsSync(join(base, v, "bin", "postgres")))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error("no PostgreSQL server binaries: install the postgresql package");
  return join(base, versions[0], "bin");
}

/** `template` with every ${NAME} replaced; a placeholder left without a value is an error, not an empty string. */
export function fillTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for \${${name}}`);
    return String(value);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET on a Patroni REST endpoint: its status, or 0 when it does not answer within a second. */
async function restStatus(node: PatroniNode, path: string): Promise<number> {
  try {
    const answer = await fetch(`http://127.0.0.1:${node.restPort}${path}`, { signal: AbortSignal.timeout(1000) });
    await answer.body?.cancel();
    return answer.status;
  } catch {
    return 0;
  }
}

async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`HA cluster: ${what} not within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/**
 * The processes of one cluster, its output in a log each. They stay in the test's process group, so the runner's
 * kill of a file that outlived its limit ends them too; Patroni starts each postmaster in a session of its own,
 * which only destroy() (or the exit handler) ends, by its pid file.
 */
class Processes {
  readonly children = new Map<string, ChildProcess>();
  readonly nodes: PatroniNode[] = [];

  constructor(
    readonly dir: string,
    readonly ids: { uid: number; gid: number } | undefined,
  ) {}

  start(name: string, command: string, args: string[], asPostgres: boolean): void {
    const out = openSync(join(this.dir, `${name}.log`), "a");
    const child = spawn(command, args, {
      stdio: ["ignore", out, out],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: this.dir, LANG: "C.UTF-8" },
      ...(asPostgres && this.ids),
    });
    closeSync(out);
    this.children.set(name, child);
  }

  kill(name: string): void {
    const child = this.children.get(name);
    try {
      if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** kill -9 of a node's postmaster, read from its pid file; false when it is not running. */
  killPostmaster(node: PatroniNode): boolean {
    try {
      const pid = Number(readFileSync(join(node.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      if (pid > 0) process.kill(pid, "SIGKILL");
      return pid > 0;
    } catch {
      return false;
    }
  }

  killAll(): void {
    for (const name of this.children.keys()) this.kill(name);
    // Patroni starts each postmaster in a session of its own: killed by its pid file too.
    for (const node of this.nodes) this.killPostmaster(node);
  }

  /** The end of every log, for a start that failed. */
  logs(): string {
    return readdirSync(this.dir)
      .filter((file) => file.endsWith(".log"))
      .map((file) => `--- ${file}\n${readFileSync(join(this.dir, file), "utf8").slice(-3000)}`)
      .join("\n");
  }
}

/** A single etcd member on free ports; its client address once it answers. */
async function startEtcd(processes: Processes): Promise<string> {
  const [client, peer] = [await freePort(), await freePort()];
  processes.start(
    "etcd",
    "etcd",
    [
      "--name=etcd1",
      `--data-dir=${join(processes.dir, "etcd")}`,
      `--listen-client-urls=http://127.0.0.1:${client}`,
      `--advertise-client-urls=http://127.0.0.1:${client}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=etcd1=http://127.0.0.1:${peer}`,
      // A test's etcd lives a minute on a temporary directory: no fsync (a deployment keeps it).
      "--unsafe-no-fsync",
    ],
    false,
  );
  await until("etcd answering", 30_000, async () => {
    const answer = await fetch(`http://127.0.0.1:${client}/health`).catch(() => undefined);
    return answer?.ok ? true : undefined;
  });
  return `127.0.0.1:${client}`;
}

/** deploy/patroni/patroni.yml filled for `name` and its Patroni started (as `postgres` when we are root). */
async function startNode(processes: Processes, name: string, etcd: string, scope: string): Promise<PatroniNode> {
  const { dir, ids } = processes;
  const node: PatroniNode = { name, pgPort: await freePort(), restPort: await freePort(), dataDir: join(dir, name) };
  const config = join(dir, `${name}.yml`);
  writeFileSync(
    config,
    fillTemplate(readFileSync(join(root, "deploy", "patroni", "patroni.yml"), "utf8"), {
      SCOPE: scope,
      NODE_NAME: name,
      LISTEN_ADDRESS: "127.0.0.1",
      NODE_ADDRESS: "127.0.0.1",
      REST_PORT: node.restPort,
      PG_PORT: node.pgPort,
      ETCD_HOSTS: etcd,
      DATA_DIR: node.dataDir,
      BIN_DIR: serverBinDir(),
      PGPASS_FILE: join(dir, `${name}.pgpass`),
      SUPERUSER_PASSWORD: "test-only",
      REPLICATION_PASSWORD: "test-only",
      SOCKET_DIR: dir,
      CLIENT_NETWORK: "127.0.0.1/32",
      HBA_METHOD: "trust",
      MAX_CONNECTIONS: 100,
    }),
  );
  if (ids) await chown(config, ids.uid, ids.gid);
  processes.nodes.push(node);
  processes.start(name, "patroni", [config], true);
  return node;
}

/** deploy/haproxy/haproxy.cfg filled for the two nodes and HAProxy started on `address`; its port. */
async function startHaproxy(processes: Processes, address: string): Promise<number> {
  const port = await freePort();
  const [first, second] = processes.nodes as [PatroniNode, PatroniNode];
  const config = join(processes.dir, "haproxy.cfg");
  writeFileSync(
    config,
    fillTemplate(readFileSync(join(root, "deploy", "haproxy", "haproxy.cfg"), "utf8"), {
      LISTEN_ADDRESS: address,
      LISTEN_PORT: port,
      NODE1_NAME: first.name,
      NODE1_ADDRESS: "127.0.0.1",
      NODE1_PG_PORT: first.pgPort,
      NODE1_REST_PORT: first.restPort,
      NODE2_NAME: second.name,
      NODE2_ADDRESS: "127.0.0.1",
      NODE2_PG_PORT: second.pgPort,
      NODE2_REST_PORT: second.restPort,
    }),
  );
  processes.start("haproxy", "haproxy", ["-db", "-f", config], false);
  return port;
}

/**
 * Starts etcd, two Patroni nodes (the first bootstraps, the second clones it) and HAProxy; waits until healthy.
 * HAProxy listens on `clientAddress` (127.0.0.1 unless given: bench:chaos names the bridge its namespaces reach).
 */
export async function startPatroniCluster(
  options: { startTimeoutMs?: number; clientAddress?: string } = {},
): Promise<PatroniCluster> {
  await ensurePackages();
  const timeoutMs = options.startTimeoutMs ?? 180_000;
  const dir = await mkdtemp(join(tmpdir(), "pa-ha-"));
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString());
  const ids = userInfo().uid === 0 ? { uid: id("-u"), gid: id("-g") } : undefined;
  if (ids) await chown(dir, ids.uid, ids.gid);
  const processes = new Processes(dir, ids);
  let destroyed = false;
  // A test process that dies (an unhandled rejection ends it) must not leave the cluster running or its files.
  const onExit = () => {
    processes.killAll();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    process.off("exit", onExit);
    processes.killAll();
    // A killed postmaster's backends end by themselves once they see it gone.
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const etcd = await startEtcd(processes);
    const scope = `hp-${process.pid}`;
    const first = await startNode(processes, "pg1", etcd, scope);
    // The first node bootstraps alone, so it is the first primary; the second then clones it.
    await until("pg1 bootstrapped as primary", timeoutMs, async () =>
      (await restStatus(first, "/primary")) === 200 ? true : undefined,
    );
    await startNode(processes, "pg2", etcd, scope);
    const clientAddress = options.clientAddress ?? "127.0.0.1";
    const cluster = clusterOf(processes, clientAddress, await startHaproxy(processes, clientAddress), destroy);
    await cluster.waitHealthy(timeoutMs);
    // HAProxy's first checks: a connection through it reaches the primary.
    await until("HAProxy reaching the primary", 30_000, async () =>
      run("psql", [cluster.url("postgres"), "-Atqc", "select pg_is_in_recovery()"], { timeout: 5_000 }).then(
        ({ stdout }) => (stdout.trim() === "f" ? true : undefined),
        () => undefined,
      ),
    );
    return cluster;
  } catch (error) {
    const logs = processes.logs();
    await destroy();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
}

function clusterOf(
  processes: Processes,
  haproxyAddress: string,
  haproxyPort: number,
  destroy: () => Promise<void>,
): PatroniCluster {
  const { nodes } = processes;
  const primary = async () => {
    for (const node of nodes) if ((await restStatus(node, "/primary")) === 200) return node;
    return undefined;
  };
  const cluster: PatroniCluster = {
    url: (database) => `postgres://postgres@${haproxyAddress}:${haproxyPort}/${database}`,
    nodes,
    primary,
    dir: processes.dir,
    waitHealthy: (waitMs) =>
      until("a primary with a synchronous standby", waitMs, async () => {
        const leader = await primary();
        if (!leader) return undefined;
        const standby = nodes.find((node) => node !== leader)!;
        // /sync: 200 only on the synchronous standby (Patroni's REST API): streaming, and named in
        // synchronous_standby_names.
        return (await restStatus(standby, "/sync")) === 200 ? leader : undefined;
      }),
    killPostgres(node) {
      if (!processes.killPostmaster(node)) throw new Error(`${node.name}: no postmaster to kill`);
    },
    killNode(node) {
      processes.kill(node.name);
      processes.killPostmaster(node);
    },
    async switchover(from, to) {
      const answer = await fetch(`http://127.0.0.1:${from.restPort}/switchover`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ leader: from.name, candidate: to.name }),
      });
      const text = await answer.text();
      if (answer.status !== 200) throw new Error(`switchover ${from.name} -> ${to.name}: ${answer.status} ${text}`);
    },
    async createDatabases(names) {
      for (const name of names) {
        await run("psql", [cluster.url("postgres"), "-v", "ON_ERROR_STOP=1", "-qc", `create database ${name}`], {
          timeout: 30_000,
        });
      }
    },
    destroy,
  };
  return cluster;
}
