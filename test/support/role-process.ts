// A role of the program (`--role front|data|worker`) as a child process, as it is deployed: started with an
// environment of its own (optionally inside a network namespace), read through its JSON log lines, stopped with a
// signal; and a test's helper script started the same way (the topology's webhook receiver host). Shared by
// test/gateway/processes.test.ts, test/webhook/processes.test.ts and the topology test (test/topology/).
import { testPasswordCostEnv } from "./password-cost.js";
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root: `src/main.ts` and the loader resolve from here whatever the runner's cwd. */
const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * How the programs the tests start load their TypeScript, as the test processes do (scripts/run-tests.mjs): Node's
 * own type handling plus scripts/test-loader.mjs (`./x.js` means `./x.ts`), about half of tsx's CPU per start.
 */
export const sourceLoaderFlags = [
  "--experimental-transform-types",
  "--disable-warning=ExperimentalWarning",
  "--import",
  pathToFileURL(join(repositoryRoot, "scripts", "test-loader.mjs")).href,
];

/**
 * V8 flags of the programs the tests start, as of the test processes themselves (scripts/run-tests.mjs): PGlite's
 * WebAssembly on the baseline compiler only. A test's program lives seconds, too short for optimized code to repay
 * its compilation (about a second of CPU per embedded start); what the program does is the same.
 */
export const testV8Flags = ["--liftoff-only"];

/**
 * The command that runs the program with `args`: the ONE place that says how a role is launched, so switching the
 * tests to the compiled build (`node dist/main.js`) is a change here only.
 */
export function programCommand(args: string[]): { command: string; argv: string[] } {
  return { command: process.execPath, argv: [...testV8Flags, ...sourceLoaderFlags, "src/main.ts", ...args] };
}

/**
 * The program of another tree (an earlier release's, test/topology/previous-release.topology.ts) keeps tsx, from
 * that tree's own packages: its sources were written for tsx, and how the current tree is loaded is no test of it.
 */
function otherTreeCommand(args: string[]): { command: string; argv: string[] } {
  return { command: process.execPath, argv: [...testV8Flags, "--import", "tsx", "src/main.ts", ...args] };
}

export interface RoleProcess {
  child: ChildProcess;
  /** The first log line whose msg is `message` (parsed), waiting for it up to `timeoutMs`. */
  line(message: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The first JSON log line so far, or yet to come, that `matches` (for lines a call's answer may arrive before). */
  entry(matches: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every complete JSON log line so far, parsed (a line still being written is left for later). */
  entries(): Record<string, unknown>[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM (a graceful stop) and waits for the exit; after `killAfterMs` without one, SIGKILL. */
  stop(killAfterMs?: number): Promise<void>;
  output(): string;
}

/**
 * Starts the program with `args` and exactly `env` (plus PATH and SHUTDOWN_DRAIN_SECONDS=0 unless given); inside the
 * network namespace `netns` when named (`ip netns exec` execs the program itself, so the child is the program and
 * signals reach it directly).
 */
export function startRole(
  args: string[],
  env: Record<string, string>,
  options: { netns?: string; cwd?: string } = {},
): RoleProcess {
  const otherTree = options.cwd !== undefined && resolve(options.cwd) !== resolve(repositoryRoot);
  return startProcess(otherTree ? otherTreeCommand(args) : programCommand(args), env, options);
}

/**
 * Starts a helper script of the tests (`test/support/...ts`, loaded as the program is) as startRole starts the program: for a machine
 * of a topology that is not a role, such as a partner's webhook receiver. With `stdin`, the test writes to it.
 */
export function startScript(
  script: string,
  env: Record<string, string>,
  options: { netns?: string; stdin?: boolean } = {},
): RoleProcess {
  return startProcess(
    { command: process.execPath, argv: [...testV8Flags, ...sourceLoaderFlags, script] },
    env,
    options,
  );
}

/**
 * Starts `program` as startRole starts the program: bench:chaos runs the compiled program (bench/support/service.ts's
 * serviceCommand, as `npm start`) this way, in the topology's namespaces.
 */
export function startProcess(
  program: { command: string; argv: string[] },
  env: Record<string, string>,
  options: { netns?: string; stdin?: boolean; cwd?: string },
): RoleProcess {
  const [command, argv] = options.netns
    ? ["ip", ["netns", "exec", options.netns, program.command, ...program.argv]]
    : [program.command, program.argv];
  const child: ChildProcess = spawn(command, argv, {
    // Another tree (an earlier release's, test/topology/previous-release.topology.ts) runs from its own root.
    cwd: options.cwd ?? repositoryRoot,
    env: {
      PATH: process.env["PATH"] ?? "",
      SHUTDOWN_DRAIN_SECONDS: "0",
      ...testPasswordCostEnv(env),
      ...env,
    },
    stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const entries = () =>
    stdout
      .slice(0, stdout.lastIndexOf("\n") + 1)
      .split("\n")
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as Record<string, unknown>);
  const entry = (matches: (entry: Record<string, unknown>) => boolean, timeoutMs = 10_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.stdout!.off("data", check);
        reject(new Error(`no matching log line; stdout: ${stdout} stderr: ${stderr}`));
      }, timeoutMs);
      function check() {
        const found = entries().find(matches);
        if (!found) return;
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve(found);
      }
      child.stdout!.on("data", check);
      check();
    });
  const line = (message: string, timeoutMs = 90_000) =>
    entry((found) => found["msg"] === message, timeoutMs).catch((error: Error) => {
      throw new Error(`no "${message}" line: ${error.message.replace(/^no matching log line; /, "")}`);
    });
  const stop = async (killAfterMs?: number) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    if (killAfterMs === undefined) {
      await exited;
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    await exited;
    clearTimeout(timer);
  };
  return { child, line, entry, entries, exited, stop, output: () => stdout + stderr };
}
