// The service as `npm start` runs it, in a process of its own with its default logging (lines go to a file, as an
// operator's would go to a collector), for the benchmarks. `serviceCommand` is the one place that says how the
// program starts: switch it to the compiled program when there is one.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { openSync, closeSync } from "node:fs";

/**
 * The command of `npm start` (package.json "start"), with `args` after it. BENCH_PROFILE_DIR: the service (and each
 * baseline helper, startHelper) writes a V8 CPU profile there when it stops (node --cpu-prof, which NODE_OPTIONS does
 * not allow). BENCH_NODE_FLAGS: more node flags for the service.
 */
export function serviceCommand(args: string[]): { command: string; args: string[] } {
  const profile = [
    ...(process.env["BENCH_PROFILE_DIR"] ? ["--cpu-prof", `--cpu-prof-dir=${process.env["BENCH_PROFILE_DIR"]}`] : []),
    // BENCH_NODE_FLAGS: more flags for the service's node, e.g. --perf-basic-prof to read `perf record` by JS name.
    ...(process.env["BENCH_NODE_FLAGS"]?.split(" ").filter(Boolean) ?? []),
  ];
  // The compiled program, built first when missing or stale (scripts/run-compiled.mjs), as `npm start` runs it.
  return {
    command: process.execPath,
    args: [
      ...profile,
      "--enable-source-maps",
      "--require",
      "./src/runtime/thread-pool.cjs",
      "scripts/run-compiled.mjs",
      "src/main.js",
      ...args,
    ],
  };
}

// A free TCP port on 127.0.0.1 (so BASE_URL and AUTH_URL name the real ports).
export { freePort } from "../../scripts/free-port.mjs";

export interface RunningService {
  child: ChildProcess;
  /** The ready line's fields (front, consent, grpc URLs...). */
  ready: Record<string, unknown>;
  logFile: string;
  /** Every JSON line of the log so far. */
  logLines(): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

/**
 * Starts the service with `args` and `env` (on top of PATH and the caller's DATABASE_URL / REDIS_URL when set),
 * logging to `<dataDir>/service-<start time>.log`; resolves when its ready line (`readyMessage`) is written.
 */
export async function startService(options: {
  args: string[];
  env: Record<string, string>;
  dataDir: string;
  readyMessage?: string;
  timeoutMs?: number;
}): Promise<RunningService> {
  const readyMessage = options.readyMessage ?? "partner API ready";
  // A file per start: a restart's ready line must not be found in the previous run's log.
  const logFile = join(options.dataDir, `service-${Date.now()}.log`);
  const out = openSync(logFile, "a");
  const { command, args } = serviceCommand(options.args);
  const child = spawn(command, args, {
    env: {
      PATH: process.env["PATH"] ?? "",
      ...(process.env["UV_THREADPOOL_SIZE"] ? { UV_THREADPOOL_SIZE: process.env["UV_THREADPOOL_SIZE"] } : {}),
      SHUTDOWN_DRAIN_SECONDS: "0",
      ...options.env,
    },
    stdio: ["ignore", out, out],
  });
  closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const logLines = async () =>
    (await readFile(logFile, "utf8"))
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  const deadline = Date.now() + (options.timeoutMs ?? 180_000);
  let ready: Record<string, unknown> | undefined;
  while (!ready) {
    if (child.exitCode !== null)
      throw new Error(`the service exited (${child.exitCode}): ${await readFile(logFile, "utf8")}`);
    if (Date.now() > deadline) {
      // A start that timed out must not outlive the benchmark (it would hold its database and ports).
      child.kill("SIGKILL");
      await exited;
      throw new Error(`no "${readyMessage}" line: ${await readFile(logFile, "utf8")}`);
    }
    ready = (await logLines()).find((line) => line["msg"] === readyMessage);
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    child,
    ready,
    logFile,
    logLines,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      // A graceful stop logs "stopped" and exits; one that lingers past that (a handle kept open) is killed.
      const timer = setTimeout(() => {
        process.stderr.write(
          `the service (pid ${child.pid}) did not exit within ${stopTimeoutMs / 1000} s of SIGTERM: killed\n`,
        );
        child.kill("SIGKILL");
      }, stopTimeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** How long a stopping service gets before SIGKILL: its shutdown grace (10 s) and some. */
const stopTimeoutMs = 20_000;

/**
 * A helper process of the benchmarks (a baseline server): `node --import tsx <script>`, resolving with the port it
 * prints and the whole of that line (`ready`: what else it hands over, e.g. the plain refresh's tokens).
 */
export async function startHelper(
  script: string,
  env: Record<string, string>,
): Promise<{ port: number; pid: number; ready: Record<string, unknown>; stop(): Promise<void> }> {
  // BENCH_PROFILE_DIR profiles the baselines too, so that a call and its floor can be compared function by function.
  const profile = process.env["BENCH_PROFILE_DIR"]
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env["BENCH_PROFILE_DIR"]}`]
    : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", script], {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((text, index, lines) => text.startsWith("{") && index < lines.length - 1);
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before listening`)));
  });
  return {
    port: Number(ready["port"]),
    pid: child.pid!,
    ready,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
