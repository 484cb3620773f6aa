// CPU seconds spent on a measured run by everything that does its calls' work, read from /proc (Linux): the process
// tree of a server (the service, or a baseline's process), the PostgreSQL backends serving its connections to a
// database, and redis-server. Started before the run and stopped after it; it samples every 200 ms in between so that
// backends that come and go during the run are seen.
//
// How each part is read (/proc/PID/stat: utime, stime, cutime, cstime in clock ticks, USER_HZ = 100):
// - the tree: every process whose ppid chain reaches the root, each counted with utime + stime + cutime + cstime.
//   A descendant that exits during the run is reaped by its parent, whose cutime/cstime then hold its whole
//   lifetime, so the tree's sum before and after is right without tracking pids (threads are in their process).
// - PostgreSQL backends: `postgres` processes whose cmdline reads `postgres: [cluster: ]USER DB HOST(PORT) ...` with
//   DB the database, and, when the connections' owner is given, PORT one of that tree's TCP sockets (the service and
//   a baseline read the same database: each run counts only its own connections). Their parent is the postmaster,
//   which reaps every backend of every database, so its cutime cannot be split: each backend's utime + stime is
//   kept at its last sample. A backend that exits during the run loses the ticks after its last sample (at most
//   200 ms of its time); one that started during the run counts from zero.
// - redis-server: the whole server (every client of it, this run's and anyone else's on that server), kept as the
//   backends are.
import { readdir, readFile, readlink } from "node:fs/promises";

const ticksPerSecond = 100; // USER_HZ on Linux (getconf CLK_TCK)
const sampleMs = 200;

/** CPU seconds of one run, by part. */
export interface CpuSeconds {
  /** The root's process tree (with the children it reaped). */
  service: number;
  postgres: number;
  redis: number;
}

interface Stat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime. */
  own: number;
  /** cutime + cstime: the children this process reaped. */
  reaped: number;
  /** Start time, ticks after boot: with the pid, it names one process even when pids are reused. */
  start: number;
}

async function readStat(pid: number): Promise<Stat | undefined> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, "utf8");
    // comm may hold spaces and parentheses: the fields start after its last ')'.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const fields = text.slice(close + 2).split(" ");
    // fields[0] is field 3 (state): ppid 4, utime 14, stime 15, cutime 16, cstime 17, starttime 22.
    return {
      pid,
      ppid: Number(fields[1]),
      comm,
      own: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
      start: Number(fields[19]),
    };
  } catch {
    return undefined; // gone
  }
}

async function allStats(): Promise<Stat[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
  const stats = await Promise.all(pids.map(readStat));
  return stats.filter((stat): stat is Stat => stat !== undefined);
}

function treeOf(root: number, stats: Stat[]): Stat[] {
  const children = new Map<number, Stat[]>();
  for (const stat of stats) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  const tree: Stat[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      tree.push(child);
      walk(child.pid);
    }
  };
  const self = stats.find((stat) => stat.pid === root);
  if (self) tree.push(self);
  walk(root);
  return tree;
}

/** The local ports of the TCP sockets the processes `pids` hold (from their fds and /proc/net/tcp{,6}). */
async function tcpPorts(pids: number[]): Promise<Set<number>> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = await readdir(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match) inodes.add(match[1]!);
    }
  }
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (fields.length > 9 && inodes.has(fields[9]!)) ports.add(Number.parseInt(fields[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

/** `postgres: [cluster: ]USER DB HOST(PORT) state`: the database and the client's port (none for a Unix socket). */
async function backendOf(pid: number): Promise<{ database: string; port?: number } | undefined> {
  const cmdline = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).replace(/\0/g, " ");
  const match = /^postgres: (?:\S+: )?\S+ (\S+) (\S+)/.exec(cmdline);
  if (!match) return undefined;
  const port = /\((\d+)\)$/.exec(match[2]!);
  return { database: match[1]!, ...(port ? { port: Number(port[1]) } : {}) };
}

/**
 * CPU seconds of one process so far (utime + stime, and the children it reaped), read as the meter reads a tree: for
 * a process that measures itself without sampling (no other process to follow, and no sampler's cost in its figure).
 */
export async function processSeconds(pid: number): Promise<number> {
  const stat = await readStat(pid);
  if (!stat) throw new Error(`no process ${pid}`);
  return (stat.own + stat.reaped) / ticksPerSecond;
}

export interface CpuMeterOptions {
  /** The pid whose process tree is the service's part. */
  root: number;
  /** The PostgreSQL database whose backends count; none: no PostgreSQL part (the embedded PGlite is in the tree). */
  database?: string;
  /** Whether redis-server counts. */
  redis?: boolean;
}

export interface CpuMeter {
  /** Takes the last sample and answers the CPU seconds since the start. */
  stop(): Promise<CpuSeconds>;
}

/** Starts measuring (its first sample is taken before it resolves). */
export async function startCpuMeter(options: CpuMeterOptions): Promise<CpuMeter> {
  const uptime = Number((await readFile("/proc/uptime", "utf8")).split(" ")[0]);
  const startedAtTicks = uptime * ticksPerSecond;
  /** Per process (pid:start) of the tracked parts: its ticks when first seen (0 if it started after us), and last. */
  const tracked = { postgres: new Map<string, Tracked>(), redis: new Map<string, Tracked>() };
  let treeFirst: number | undefined;
  let treeLast = 0;

  const keyOf = (stat: Stat) => `${stat.pid}:${stat.start}`;
  const keep = (map: Map<string, Tracked>, stat: Stat) => {
    const seen = map.get(keyOf(stat));
    if (seen) seen.last = stat.own;
    else map.set(keyOf(stat), { first: stat.start > startedAtTicks ? 0 : stat.own, last: stat.own });
  };
  const sample = async () => {
    const stats = await allStats();
    const tree = treeOf(options.root, stats);
    const treeTicks = tree.reduce((sum, stat) => sum + stat.own + stat.reaped, 0);
    treeFirst ??= treeTicks;
    treeLast = treeTicks;
    if (options.redis) for (const stat of stats) if (stat.comm === "redis-server") keep(tracked.redis, stat);
    if (options.database) {
      const ports = await tcpPorts(tree.map((stat) => stat.pid));
      for (const stat of stats) {
        if (stat.comm !== "postgres") continue;
        // A backend once seen serving the tree is that connection's until it exits (its client may be gone first).
        if (tracked.postgres.has(keyOf(stat))) {
          keep(tracked.postgres, stat);
          continue;
        }
        const backend = await backendOf(stat.pid);
        if (backend?.database !== options.database) continue;
        // A backend on a Unix socket names no port: it cannot be told apart, and counts.
        if (backend.port !== undefined && !ports.has(backend.port)) continue;
        keep(tracked.postgres, stat);
      }
    }
  };

  await sample();
  // One sample at a time: a tick that finds one still running (a loaded machine) is skipped.
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sample()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
  }, sampleMs);
  const sum = (map: Map<string, Tracked>) =>
    [...map.values()].reduce((total, { first, last }) => total + last - first, 0) / ticksPerSecond;
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await sample();
      return {
        service: (treeLast - (treeFirst ?? treeLast)) / ticksPerSecond,
        postgres: sum(tracked.postgres),
        redis: sum(tracked.redis),
      };
    },
  };
}

interface Tracked {
  first: number;
  last: number;
}
