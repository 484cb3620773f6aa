// A PostgreSQL server of the test's own, on a free port with its socket in a temporary directory, that the fault
// tests stop (fast or immediate) and start again under traffic. Never the machine's shared server on 5432. Needs
// the PostgreSQL binaries (.ci/run installs them); without them it throws, so the fault test fails instead of
// skipping. initdb and postgres refuse to run as root, so as root they run as the `postgres` user.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./test-app.js";

const run = promisify(execFile);

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** pg_ctl stop: `fast` ends the sessions cleanly (57P01), `immediate` kills the server without a goodbye. */
  stop(mode: "fast" | "immediate"): Promise<void>;
  /**
   * SIGSTOP (`true`) or SIGCONT (`false`) to the server and every backend: a database that still accepts connections
   * (the kernel completes them) and never answers, as a hung host or a blackholed network looks to its clients.
   */
  freeze(frozen: boolean): Promise<void>;
  /** Starts the server again on the same port and data directory; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (if running) and deletes its directories. */
  destroy(): Promise<void>;
}

/** The directory of initdb and pg_ctl: pg_config's, else the newest /usr/lib/postgresql/<v>/bin. */
async function binDir(): Promise<string> {
  try {
    const { stdout } = await run("pg_config", ["--bindir"]);
    const dir = stdout.trim();
    if (existsSync(join(dir, "initdb"))) return dir;
  } catch {
    // No pg_config (client package only): look where Debian installs the server.
  }
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error("no PostgreSQL server binaries (initdb): install the postgresql package");
  return join(root, versions[0], "bin");
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await binDir();
  const asRoot = userInfo().uid === 0;
  const dir = await mkdtemp(join(tmpdir(), "pa-pg-"));
  const data = join(dir, "data");
  const socketDir = dir;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  /** Runs a server binary, as `postgres` when we are root. */
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : run(join(bin, tool), args);
  await pg("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  // fsync stays on: "nothing written before the stop is lost" must hold for an immediate stop too.
  const options = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c max_connections=40 -c shared_buffers=16MB`;
  let running = false;
  const start = async () => {
    await pg("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]);
    running = true;
  };
  // A test process that dies (an unhandled rejection ends it) must not leave the server running or its files.
  const onExit = () => {
    if (running) {
      try {
        execFileSync(
          asRoot ? "runuser" : join(bin, "pg_ctl"),
          [
            ...(asRoot ? ["-u", "postgres", "--", join(bin, "pg_ctl")] : []),
            "-D",
            data,
            "-m",
            "immediate",
            "-w",
            "stop",
          ],
          { stdio: "ignore" },
        );
      } catch {
        // Already gone.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);
  await start();
  const freeze = async (frozen: boolean) => {
    const postmaster = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
    const { stdout } = await run("pgrep", ["-P", String(postmaster)]).catch(() => ({ stdout: "" }));
    const pids = [postmaster, ...stdout.split("\n").filter(Boolean).map(Number)];
    for (const pid of pids) process.kill(pid, frozen ? "SIGSTOP" : "SIGCONT");
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop(mode) {
      await pg("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "30", "stop"]);
      running = false;
    },
    start,
    freeze,
    async destroy() {
      process.off("exit", onExit);
      // A frozen server ignores pg_ctl's stop until it runs again.
      if (running) await freeze(false).catch(() => {});
      if (running) await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
