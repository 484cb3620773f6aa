// `npm run bench:cold-start`: time from spawning the program to its first /readyz 200, run under tsx
// (`node --import tsx src/main.ts`, what `npm start` was) and compiled (`node --enable-source-maps dist/src/main.js`,
// what `npm start` runs now), alternating, COLD_START_RUNS times each (default 5); prints every run and the medians.
// Builds dist/ first when it is missing or stale. Each run starts a new process on the same DATA_DIR (created and
// provisioned by a first, unmeasured start), so the figures are a restart's, not a brand-new machine's.
//
// Knobs: COLD_START_RUNS, DATABASE_URL (default: the embedded PGlite in a temporary DATA_DIR), REDIS_URL.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { freePort } from "./support/service.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "../scripts/build.mjs";
import { buildState } from "../scripts/build-state.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const runs = Number(process.env["COLD_START_RUNS"] ?? 5);
const commands = {
  tsx: ["--import", "tsx", "src/main.ts"],
  compiled: ["--enable-source-maps", "dist/src/main.js"],
} as const;

if (buildState(root, join(root, "dist")) !== "fresh") await build({ outDir: join(root, "dist") });
const dataDir = await mkdtemp(join(tmpdir(), "partner-api-cold-start-"));

/** Spawns the program, polls /readyz until 200, stops it; milliseconds from spawn to the first 200. */
async function coldStart(args: readonly string[]): Promise<number> {
  const port = await freePort();
  const env = {
    PATH: process.env["PATH"] ?? "",
    HOST: "127.0.0.1",
    PORT: String(port),
    AUTH_PORT: String(await freePort()),
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: process.env["DATABASE_URL"] ?? "",
    REDIS_URL: process.env["REDIS_URL"] ?? "",
    SHUTDOWN_DRAIN_SECONDS: "0",
    LOG_LEVEL: "warn",
  };
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (answer) => answer.status === 200,
        () => false,
      );
      if (ready) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

try {
  // The first start creates the database (and, embedded, the demo world): not a cold start of the program.
  await coldStart(commands.compiled);
  const times: Record<keyof typeof commands, number[]> = { tsx: [], compiled: [] };
  for (let run = 0; run < runs; run++) {
    for (const mode of ["tsx", "compiled"] as const) {
      const ms = await coldStart(commands[mode]);
      times[mode].push(ms);
      console.log(`${mode.padEnd(8)} run ${run + 1}: ${Math.round(ms)} ms`);
    }
  }
  const database = process.env["DATABASE_URL"] ? "PostgreSQL" : "embedded PGlite";
  console.log(
    `\nspawn to /readyz 200, ${database}, median of ${runs}: tsx ${Math.round(median(times.tsx))} ms, compiled ${Math.round(median(times.compiled))} ms`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
