// Where the processes of a topology test live: each in a network namespace of its own, joined by a bridge to the
// host (the test, its proxies and forwarders), as separate machines on one private network would be; or, where
// namespaces cannot be made (not root, no `ip`), all on the host's loopback. Every name of one run starts with a
// unique prefix, and close() removes the namespaces, veth pairs and bridge it made whatever happened before.
import { execFile } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { promisify } from "node:util";

const run = promisify(execFile);
/** Each `ip` command is bounded: a wedged one must not hold the test past its deadline. */
const ipTimeoutMs = 10_000;

async function ip(...args: string[]): Promise<string> {
  const { stdout } = await run("ip", args, { timeout: ipTimeoutMs });
  return stdout;
}

/** A machine of the topology: its namespace (none on loopback) and the address it listens on. */
export interface Host {
  name: string;
  netns: string | undefined;
  address: string;
}

export interface TopologyNetwork {
  mode: "namespaces" | "loopback";
  /** The address the roles reach the test's own listeners on (proxies' peers, forwarders). */
  hostAddress: string;
  /** A new machine named `name`. */
  addHost(name: string): Promise<Host>;
  /** Removes everything this network made; safe to call twice. */
  close(): Promise<void>;
}

/** Loopback: every "machine" is 127.0.0.1 (ports keep them apart). */
function loopbackNetwork(): TopologyNetwork {
  return {
    mode: "loopback",
    hostAddress: "127.0.0.1",
    addHost: async (name) => ({ name, netns: undefined, address: "127.0.0.1" }),
    close: async () => {},
  };
}

/**
 * A bridge on the host at 10.77.<n>.1/24 (n picked among those no interface uses), and per machine a namespace with
 * loopback up and one end of a veth pair at 10.77.<n>.<10 + i>, the other end on the bridge.
 */
async function namespaceNetwork(): Promise<TopologyNetwork> {
  await sweepDeadRuns();
  // "pt", this process's id (so a later run can tell a dead run's leftovers), two random digits: 10 characters,
  // leaving room for the suffixes inside Linux's 15-character interface names.
  const prefix = `pt${process.pid.toString(16).padStart(6, "0")}${randomBytes(1).toString("hex")}`;
  const used = await ip("-4", "-o", "addr");
  const free = Array.from({ length: 150 }, (_, i) => 100 + i).filter((n) => !used.includes(`10.77.${n}.`));
  if (free.length === 0) throw new Error("no free 10.77.n.0/24 subnet");
  const subnet = `10.77.${free[randomInt(free.length)]}`;
  const bridge = `${prefix}br`;
  const namespaces: string[] = [];
  const hostLinks: string[] = [];
  let hosts = 0;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const netns of namespaces) {
      // A process left inside (one that did not stop) would keep the namespace alive after its name is gone.
      const pids = await ip("netns", "pids", netns).catch(() => "");
      for (const pid of pids.split("\n").filter((text) => /^\d+$/.test(text))) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      }
      await ip("netns", "del", netns).catch(() => {});
    }
    for (const link of [...hostLinks, bridge]) await ip("link", "del", link).catch(() => {});
  };
  try {
    await ip("link", "add", bridge, "type", "bridge");
    await ip("addr", "add", `${subnet}.1/24`, "dev", bridge);
    await ip("link", "set", bridge, "up");
  } catch (error) {
    await close();
    throw error;
  }
  return {
    mode: "namespaces",
    hostAddress: `${subnet}.1`,
    async addHost(name) {
      // Taken before the first await, so hosts added at once get addresses and links of their own.
      const index = ++hosts;
      const netns = `${prefix}-${name}`;
      const [outside, inside] = [`${prefix}h${index}`, `${prefix}n${index}`];
      const address = `${subnet}.${10 + index}`;
      await ip("netns", "add", netns);
      namespaces.push(netns);
      await ip("link", "add", outside, "type", "veth", "peer", "name", inside);
      hostLinks.unshift(outside);
      await ip("link", "set", inside, "netns", netns);
      await ip("link", "set", outside, "master", bridge, "up");
      await ip("-n", netns, "addr", "add", `${address}/24`, "dev", inside);
      await ip("-n", netns, "link", "set", inside, "up");
      await ip("-n", netns, "link", "set", "lo", "up");
      return { name, netns, address };
    },
    close,
  };
}

/** Whether process `pid` is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the namespaces and links of earlier runs whose process is gone (killed before its cleanup could run):
 * named pt<6 hex digits of its pid><2 random>, as namespaceNetwork names them.
 */
async function sweepDeadRuns(): Promise<void> {
  const dead = (name: string) => {
    const match = /^pt([0-9a-f]{6})[0-9a-f]{2}/.exec(name);
    return match !== null && !alive(parseInt(match[1]!, 16));
  };
  const namespaces = (await ip("netns", "list").catch(() => ""))
    .split("\n")
    .map((text) => text.split(" ")[0]!)
    .filter(dead);
  for (const netns of namespaces) {
    const pids = await ip("netns", "pids", netns).catch(() => "");
    for (const pid of pids.split("\n").filter((text) => /^\d+$/.test(text))) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // already gone
      }
    }
    await ip("netns", "del", netns).catch(() => {});
  }
  const links = [...(await ip("-o", "link").catch(() => "")).matchAll(/^\d+: ([^:@\s]+)/gm)]
    .map((match) => match[1]!)
    .filter(dead);
  for (const link of links) await ip("link", "del", link).catch(() => {});
}

/**
 * Namespaces when this process may make them (root with `ip`), else loopback; TOPOLOGY_NETWORK=loopback or
 * =namespaces forces one (the latter fails rather than falling back).
 */
export async function createTopologyNetwork(): Promise<TopologyNetwork> {
  const wanted = process.env["TOPOLOGY_NETWORK"];
  if (wanted === "loopback") return loopbackNetwork();
  if (wanted !== "namespaces" && process.getuid?.() !== 0) return loopbackNetwork();
  try {
    return await namespaceNetwork();
  } catch (error) {
    if (wanted === "namespaces") throw error;
    console.warn(
      `  (network namespaces unavailable: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}; using loopback)`,
    );
    return loopbackNetwork();
  }
}
