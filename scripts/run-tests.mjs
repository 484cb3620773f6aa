// `npm test`: every test file in a uvu process of its own (the light ones a few to a process:
// scripts/test-batches.mjs), several at a time. Test files mostly wait (on the database, chromium, timers), so a
// 2-core machine runs a few of them at once well; uvu stays the runner of each file. Longest files start first (their times from the last run, in test-output/test-timings.json), a file that
// outlives its limit is killed with every process it started and named with the test it was in, one still alive
// --exit-grace seconds (default 30) after its last test is killed and counted failed, and the end of the
// output is the slowest ten files, the skipped tests with their reasons, the failures again, and last of all
// "N passed, M failed, K skipped".
//
//   node scripts/run-tests.mjs [--concurrency N] [--max-concurrency M] [--file-timeout SECONDS]
//                              [--exit-grace SECONDS] [--pattern REGEX] [--alone] [--screenshots] [--verbose]
//                              [--list] [PATH...]
//
// PATHs are files or directories (default: test); in directories the files whose path matches --pattern
// (default \.test\.ts$) run. --concurrency files always run at once (default twice the CPUs), and more, up to
// --max-concurrency (default twice --concurrency), while the machine's CPU idles. Environment: TEST_CONCURRENCY,
// TEST_MAX_CONCURRENCY, TEST_FILE_TIMEOUT_MS, TEST_TIMEOUT_MS (one test's limit,
// read by test/support/suite.ts), TEST_TIMINGS_FILE (where the files' times are kept), TEST_ALONE=1 (as --alone:
// every file in a process of its own, light ones included), TEST_SCREENSHOTS=1 (as --screenshots: the browser files
// write their screenshots to test-output/screenshots/). docs/testing.md says more.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import * as nodeModule from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { planUnits, sharesOf, uvuArguments } from "./test-batches.mjs";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const uvuBin = join(root, "node_modules", "uvu", "bin.js");
const timingsFile = process.env.TEST_TIMINGS_FILE || join(root, "test-output", "test-timings.json");
const baselineTimingsFile = join(root, "scripts", "test-timings.json");

/** Files a test run may not contain: the test must come from test/support/suite.ts, which gives it a timeout. */
const directUvuImport = /\bfrom\s+["']uvu["']|\brequire\(\s*["']uvu["']\s*\)|\bimport\(\s*["']uvu["']\s*\)/;

function parseArguments(argv) {
  const options = {
    concurrency: Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism() * 2),
    maxConcurrency: Number(process.env.TEST_MAX_CONCURRENCY) || undefined,
    fileTimeoutMs: Number(process.env.TEST_FILE_TIMEOUT_MS) || 15 * 60_000,
    exitGraceMs: 30_000,
    pattern: /\.test\.ts$/,
    alone: process.env.TEST_ALONE === "1",
    screenshots: process.env.TEST_SCREENSHOTS === "1",
    verbose: false,
    list: false,
    paths: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${argument} needs a value`);
      return next;
    };
    if (argument === "--concurrency" || argument === "-j") options.concurrency = Number(value());
    else if (argument === "--max-concurrency") options.maxConcurrency = Number(value());
    else if (argument === "--file-timeout") options.fileTimeoutMs = Number(value()) * 1000;
    else if (argument === "--exit-grace") options.exitGraceMs = Number(value()) * 1000;
    else if (argument === "--pattern") options.pattern = new RegExp(value());
    else if (argument === "--alone") options.alone = true;
    else if (argument === "--screenshots") options.screenshots = true;
    else if (argument === "--verbose" || argument === "-v") options.verbose = true;
    else if (argument === "--list") options.list = true;
    else if (argument.startsWith("-")) throw new Error(`unknown option ${argument}`);
    else options.paths.push(argument);
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
    throw new Error("--concurrency must be a whole number of at least 1");
  options.maxConcurrency ??= options.concurrency * 2;
  if (!Number.isInteger(options.maxConcurrency) || options.maxConcurrency < options.concurrency)
    throw new Error("--max-concurrency must be a whole number of at least --concurrency");
  if (!(options.fileTimeoutMs > 0)) throw new Error("--file-timeout must be a positive number of seconds");
  if (!(options.exitGraceMs > 0)) throw new Error("--exit-grace must be a positive number of seconds");
  if (options.paths.length === 0) options.paths.push("test");
  return options;
}

/** The test files under `paths` (relative to the repository), sorted. */
function findFiles(paths, pattern) {
  const files = new Set();
  const walk = (path) => {
    const stats = statSync(path);
    if (stats.isDirectory()) {
      for (const entry of readdirSync(path))
        if (entry !== "node_modules" && !entry.startsWith(".")) walk(join(path, entry));
    } else if (pattern.test(path)) {
      files.add(relative(root, resolve(path)));
    }
  };
  for (const path of paths) {
    if (!existsSync(path)) throw new Error(`no such file or directory: ${path}`);
    // A file named outright runs whatever its name.
    if (statSync(path).isFile()) files.add(relative(root, resolve(path)));
    else walk(path);
  }
  return [...files].sort();
}

/**
 * The files' times: this machine's last run (`test-output/test-timings.json`, git-ignored) over the committed
 * baseline (`scripts/test-timings.json`, from a whole run), so a clean clone's first run (and every CI run) starts
 * the slowest files first too instead of guessing from their source. `npm run test:save-timings` refreshes the
 * baseline from this machine's last whole run.
 */
function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}
function readTimings() {
  return { ...readJson(baselineTimingsFile), ...readJson(timingsFile) };
}

/**
 * A guess for a file never timed (every file of a clean clone's first run: the timings file is not committed):
 * files that start the app or a browser are the slow ones, and so are those that start programs (role processes,
 * `main`: each loads the app and opens its own PGlite, 49 to 73 s of CPU each) or a PostgreSQL server
 * of their own, and the fuzz test (every route, hundreds of requests each through the app). Guessed light, they started last on a
 * first run, and the run ends with its slowest file.
 */
function estimateMs(source) {
  let estimate = 1_000 + source.length / 10;
  if (/startTestApp|startGatewayApp|startApp\(/.test(source)) estimate += 30_000;
  if (/launchChromium/.test(source)) estimate += 60_000;
  if (/\b(startRole|startScript|programCommand|startPrivatePostgres)\b/.test(source)) estimate += 90_000;
  // Property tests over the whole app (the fuzz test); fast-check alone (a pure function's properties) is quick.
  if (/from "fast-check"/.test(source) && /startTestApp/.test(source)) estimate += 60_000;
  return estimate;
}

/** CPU seconds of this process's reaped children so far (they include their own reaped children), from /proc. */
/**
 * A function that answers the fraction of the machine's CPU time that was idle since its previous call (Linux
 * /proc/stat: idle and iowait over all), or undefined where /proc/stat cannot be read.
 */
function idleSampler() {
  const read = () => {
    try {
      const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
      return { idle: fields[3] + (fields[4] ?? 0), total: fields.reduce((sum, value) => sum + value, 0) };
    } catch {
      return undefined;
    }
  };
  let last = read();
  return () => {
    const now = read();
    if (!now || !last || now.total === last.total) return undefined;
    const fraction = (now.idle - last.idle) / (now.total - last.total);
    last = now;
    return fraction;
  };
}

function childrenCpuSeconds() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command name: state is field 3, cutime 16 and cstime 17 (proc(5)), in clock ticks (USER_HZ, 100).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

let lastReapedCpu = childrenCpuSeconds();

/**
 * The CPU seconds of the child that just exited: the growth of the reaped children's total since the previous
 * exit (children exit one event at a time, so the growth is that child's, with its own children's).
 */
function reapedCpuSinceLastExit() {
  const now = childrenCpuSeconds();
  const grown = now === undefined || lastReapedCpu === undefined ? undefined : now - lastReapedCpu;
  lastReapedCpu = now;
  return grown;
}

const strip = (text) => stripVTControlCharacters(text);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** uvu's totals at the end of a file's output (undefined when it never got there). */
function totalsOf(output) {
  const clean = strip(output);
  const number = (label) => {
    const match = new RegExp(`^\\s*${label}:\\s*(\\d+)`, "m").exec(clean);
    return match ? Number(match[1]) : undefined;
  };
  const total = number("Total");
  const passed = number("Passed");
  if (total === undefined || passed === undefined) return undefined;
  return { total, passed, skipped: number("Skipped") ?? 0 };
}

/**
 * The tests a unit reported skipped ("end\t<label>\t<ms>\tskip\t<reason>\t<file>" lines of its progress file,
 * written by test/support/suite.ts; the file as uvu named it, relative to the directory it was given): uvu counted
 * each of them as passed.
 */
function skippedTests(progressPath) {
  let lines = [];
  try {
    lines = readFileSync(progressPath, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
  return lines
    .map((line) => line.split("\t"))
    .filter(([kind, , , outcome]) => kind === "end" && outcome === "skip")
    .map(([, label, , , reason, file]) => ({ label, reason: reason ?? "", file: file ?? "" }));
}

/** The test (or hook) a file was in when it was killed: the last "start" line of its progress file with no "end". */
function unfinishedTest(progressPath) {
  let lines = [];
  try {
    lines = readFileSync(progressPath, "utf8").split("\n").filter(Boolean);
  } catch {
    return undefined;
  }
  const open = new Map();
  for (const line of lines) {
    const [kind, label] = line.split("\t");
    if (kind === "start") open.set(label, (open.get(label) ?? 0) + 1);
    else if (kind === "end") open.set(label, (open.get(label) ?? 1) - 1);
  }
  const running = [...open].filter(([, count]) => count > 0).map(([label]) => label);
  return running.at(-1);
}

function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is already gone
  }
}

const children = new Set();

/**
 * The temporary directory of the test processes: TMPDIR when set, else a folder on /dev/shm where that is a tmpfs
 * (Linux), else the system's. Every embedded app of a test starts on a copy of the migrated template (about 1,450
 * files, test/support/embedded-template.ts) that is deleted when it stops; on ext4, creating and deleting inodes
 * at that rate cost about a second of kernel CPU per copy (its inode allocator skipping recently deleted ones),
 * on tmpfs almost nothing. Tests' data directories, the template, Node's compile cache and chromium's profiles live there.
 */
function testTmpdir() {
  if (process.env.TMPDIR) return process.env.TMPDIR;
  try {
    const shm = readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .some((line) => /^\S+ \/dev\/shm tmpfs /.test(line));
    if (!shm) return undefined;
    const dir = "/dev/shm/partner-api-tests";
    mkdirSync(dir, { recursive: true });
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * PGlite's WebAssembly in a test process runs on V8's baseline compiler only (Liftoff), without the background
 * TurboFan tier-up: a test process crashed once in CI on a V8 check while freeing WebAssembly code
 * (ThreadIsolation::UnregisterWasmAllocation, Node 24.21), which tier-up does as it replaces baseline code; and a
 * test's databases live seconds, too short for optimized code to pay for its compilation (the heaviest files cost
 * the same, the light ones about a second of CPU less each).
 */
const v8Flags = ["--liftoff-only"];

/**
 * How a test file's TypeScript is loaded: Node's own type handling with one resolve hook of ours
 * (scripts/test-loader.mjs: `./x.js` means `./x.ts`), which costs about half of tsx's CPU per process (importing
 * src/app.ts: 0.7 s with the compile cache, 1.2 s without, against tsx's 1.5 to 1.7 s). Transform, not strip:
 * gen/ has enums, src/ parameter properties. A file whose source says `// test-loader: tsx` runs on tsx instead
 * (none does today; docs/testing.md, "How files are loaded").
 */
const loaderUrl = pathToFileURL(join(root, "scripts", "test-loader.mjs")).href;
const nativeLoaderFlags = [
  "--experimental-transform-types",
  "--disable-warning=ExperimentalWarning",
  "--import",
  loaderUrl,
];
const tsxLoaderFlags = ["--import", "tsx"];
const tsxMarker = /^\/\/ test-loader: tsx$/m;

/**
 * The Node that runs the test files: this one when it has `module.registerHooks` (Node 22.15+; the project's is
 * 24), else the project's own (`node_modules/node`, a development dependency), so `node scripts/run-tests.mjs`
 * with an older system Node still runs the files on the project's. Without either, files fall back to tsx.
 */
function testNode() {
  if (typeof nodeModule.registerHooks === "function") return { path: process.execPath, native: true };
  const projectNode = join(root, "node_modules", "node", "bin", "node");
  if (existsSync(projectNode)) return { path: projectNode, native: true };
  return { path: process.execPath, native: false };
}
const node = testNode();

/** The flags that load `file`'s TypeScript (its source already read by the caller). */
function loaderFlags(source) {
  return node.native && !tsxMarker.test(source) ? nativeLoaderFlags : tsxLoaderFlags;
}

/**
 * Runs a unit (one file, or a batch of light files: scripts/test-batches.mjs) in one uvu process (own process
 * group); resolves with what happened. A batch's files are all loaded as its first is (the plan keeps apart a file
 * loaded another way).
 */
function runUnit(unit, progressDir) {
  const file = unit.length === 1 ? unit[0] : `${unit.length} light files in one process`;
  return new Promise((resolvePromise) => {
    const progressPath = join(progressDir, `${unit[0].replace(/[/\\]/g, "__")}.${unit.length}.progress`);
    // A unit run again (after a runtime crash) reports afresh.
    rmSync(progressPath, { force: true });
    const startedAt = performance.now();
    const flags = [...v8Flags, ...loaderFlags(readFileSync(join(root, unit[0]), "utf8"))];
    const child = spawn(node.path, [...flags, uvuBin, ...uvuArguments(unit)], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        ...(testTmp ? { TMPDIR: testTmp } : {}),
        TEST_PROGRESS_FILE: progressPath,
        ...(options.screenshots ? { TEST_SCREENSHOTS: "1" } : {}),
      },
    });
    children.add(child);
    let output = "";
    let killedAfterMs;
    let lingeredMs;
    // uvu prints "Duration:" last, after the file's last test; a process still alive well after that is held open
    // by something a test left behind (a server, a pool, a timer), and would otherwise run into the file's limit.
    let lingering;
    const onOutput = (chunk) => {
      output += chunk;
      if (lingering === undefined && /^\s*Duration:/m.test(strip(output))) {
        const endedAt = performance.now();
        lingering = setTimeout(() => {
          lingeredMs = performance.now() - endedAt;
          killGroup(child.pid);
        }, options.exitGraceMs);
      }
    };
    child.stdout.on("data", onOutput);
    child.stderr.on("data", onOutput);
    const timer = setTimeout(() => {
      killedAfterMs = performance.now() - startedAt;
      killGroup(child.pid);
    }, options.fileTimeoutMs);
    let exit;
    let cpuSeconds;
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(lingering);
      children.delete(child);
      resolvePromise({
        file,
        unit,
        ms: performance.now() - startedAt,
        cpuSeconds,
        output,
        exit,
        killedAfterMs,
        lingeredMs,
        unfinished: killedAfterMs === undefined ? undefined : unfinishedTest(progressPath),
        skips: skippedTests(progressPath),
      });
    };
    child.on("error", (error) => {
      output += `\ncould not start uvu: ${error.message}\n`;
      exit = { code: 1, signal: null };
      finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      cpuSeconds = reapedCpuSinceLastExit();
      // Whatever the file started and left behind (a browser, a server) goes with it; then its pipes close.
      killGroup(child.pid);
      const closing = setTimeout(finish, 2_000);
      child.once("close", () => {
        clearTimeout(closing);
        finish();
      });
    });
  });
}

/** Signals with which the runtime ends a process on its own: V8's fatal checks (SIGTRAP) and native crashes. */
const runtimeCrashSignals = new Set(["SIGTRAP", "SIGSEGV", "SIGBUS", "SIGILL", "SIGABRT"]);

/**
 * Whether the runtime itself ended the file's process before uvu's totals: not this runner (a timeout, a lingering
 * process), not a test's failure (uvu exits 1 with its totals). Such a file is run once more: a crash inside V8 or
 * a native module says nothing about our code, yet it is reported (the file's line and a section of its own).
 */
function crashedByRuntime(result) {
  return (
    result.killedAfterMs === undefined &&
    result.lingeredMs === undefined &&
    runtimeCrashSignals.has(result.exit?.signal) &&
    !totalsOf(result.output)
  );
}

/**
 * What a finished file counts: uvu's totals, or one failure for a file that crashed, hung or exited non-zero. The
 * tests that reported themselves skipped (suite.ts's skipTest) are among uvu's passed: they count as skipped, beside
 * those registered with uvu's `.skip`.
 */
function outcomeOf(result) {
  const totals = totalsOf(result.output);
  const exitedCleanly =
    result.exit?.code === 0 && result.killedAfterMs === undefined && result.lingeredMs === undefined;
  const reported = result.skips?.length ?? 0;
  if (!totals) return { passed: 0, failed: 1, skipped: reported, ok: false };
  let failed = totals.total - totals.passed;
  if (!exitedCleanly && failed === 0) failed = 1;
  const passed = Math.max(0, totals.passed - reported);
  return { passed, failed, skipped: totals.skipped + reported, ok: failed === 0 };
}

/** The lines of a file's output worth reading again: its FAIL blocks and anything it printed on a crash. */
function failureReport(result) {
  const lines = [];
  if (result.killedAfterMs !== undefined) {
    lines.push(
      `killed after ${seconds(result.killedAfterMs)} (the file's limit, --file-timeout / TEST_FILE_TIMEOUT_MS)` +
        (result.unfinished ? `, in: ${result.unfinished}` : ""),
    );
  } else if (result.lingeredMs !== undefined) {
    lines.push(
      `killed ${seconds(result.lingeredMs)} after its last test ended: something it opened (a server, a pool, a ` +
        "timer) kept the process alive",
    );
  } else if (result.exit && result.exit.code !== 0 && !totalsOf(result.output)) {
    lines.push(`exited with ${result.exit.signal ?? `code ${result.exit.code}`} before uvu's totals`);
  }
  const body = strip(result.output)
    .split("\n")
    .filter((line) => !/^\s*(Total|Passed|Skipped|Duration):/.test(line));
  const first = body.findIndex((line) => /FAIL|✘|Error|failed:/.test(line));
  lines.push(...(first === -1 ? body.slice(-40) : body.slice(first, first + 200)));
  return lines.join("\n").trimEnd();
}

/** Runs a unit; the runtime ending its process (a V8 fatal check, a native crash) runs it once more, said so. */
async function runOnce(unit, progressDir) {
  const result = await runUnit(unit, progressDir);
  return crashedByRuntime(result) ? { ...(await runUnit(unit, progressDir)), crashedFirst: result } : result;
}

/**
 * A unit's results, each with its outcome. A batch that failed has its files run again one by one, so each failure
 * is named by its own file and counted as it would be alone; if every one passes alone, the batch itself counts one
 * failure (its files interfere), with its output.
 */
async function settle(unit, progressDir) {
  const result = await runOnce(unit, progressDir);
  const outcome = outcomeOf(result);
  if (unit.length === 1 || outcome.ok) return [{ ...result, outcome }];
  console.log(`✘ ${result.file} failed; its files run again one by one:\n  ${unit.join("\n  ")}`);
  const alone = [];
  for (const file of unit) {
    const single = await runOnce([file], progressDir);
    alone.push({ ...single, outcome: outcomeOf(single) });
  }
  if (alone.every((single) => single.outcome.ok))
    alone.push({ ...result, outcome: { passed: 0, failed: 1, skipped: 0, ok: false }, interfered: true });
  return alone;
}

/** A unit's line (a batch's files listed under it), and its output when it failed or with --verbose. */
function printLine(result) {
  const { outcome } = result;
  const counts =
    `${outcome.passed} passed` +
    (outcome.failed ? `, ${outcome.failed} failed` : "") +
    (outcome.skipped ? `, ${outcome.skipped} skipped` : "");
  const cpu = result.cpuSeconds === undefined ? "" : ` (${result.cpuSeconds.toFixed(1)} s CPU)`;
  const crashed = result.crashedFirst
    ? ` (its first run crashed with ${result.crashedFirst.exit.signal}: run again)`
    : "";
  const interfered = result.interfered ? " (every file passed alone: they interfere)" : "";
  console.log(
    `${outcome.ok ? "✓" : "✘"} ${result.file}  ${counts}  ${seconds(result.ms)}${cpu}${crashed}${interfered}`,
  );
  if (result.unit.length > 1 && outcome.ok) console.log(`  ${result.unit.join("\n  ")}`);
  if (!outcome.ok || options.verbose) console.log(`${result.output.trimEnd()}\n`);
  if (!outcome.ok && result.killedAfterMs !== undefined) console.log(`  ${failureReport(result).split("\n")[0]}\n`);
}

async function main() {
  const files = findFiles(options.paths, options.pattern);
  if (files.length === 0) {
    console.log("no test files found");
    console.log("0 passed, 0 failed, 0 skipped");
    process.exitCode = 1;
    return;
  }
  const offenders = files.filter((file) => directUvuImport.test(readFileSync(join(root, file), "utf8")));
  if (offenders.length > 0) {
    console.log(
      'These test files import from "uvu" directly; import { suite } from test/support/suite.ts instead, which',
    );
    console.log("gives every test a timeout that names it (node scripts/use-test-suite.mjs rewrites the import):");
    for (const file of offenders) console.log(`  ${file}`);
    console.log(`0 passed, ${offenders.length} failed, 0 skipped`);
    process.exitCode = 1;
    return;
  }

  if (options.list) {
    for (const file of files) console.log(file);
    return;
  }

  const timings = readTimings();
  const expected = (file) => timings[file] ?? estimateMs(readFileSync(join(root, file), "utf8"));
  // Longest first: the run ends when its slowest file does, so that one must not start last. Light files share a
  // process a few at a time (never with a file loaded another way), unless --alone.
  const sharesLoader = (file) =>
    !options.alone && loaderFlags(readFileSync(join(root, file), "utf8")) === nativeLoaderFlags;
  const queue = planUnits(files, expected, sharesLoader);
  const batches = queue.filter((unit) => unit.length > 1);
  const concurrency = Math.min(options.concurrency, queue.length);
  const maxConcurrency = Math.min(options.maxConcurrency, queue.length);
  console.log(
    `${files.length} test file${files.length === 1 ? "" : "s"}` +
      (batches.length > 0
        ? ` (the ${batches.reduce((sum, unit) => sum + unit.length, 0)} light ones in ${batches.length} ` +
          `process${batches.length === 1 ? "" : "es"}, --alone: each in its own)`
        : "") +
      `, ${concurrency} at a time (TEST_CONCURRENCY / --concurrency)` +
      (maxConcurrency > concurrency ? `, up to ${maxConcurrency} while the CPU idles (--max-concurrency)` : "") +
      (testTmp ? `; temporary files under ${testTmp}` : "") +
      (options.screenshots ? "; the browser files write screenshots to test-output/screenshots/" : "") +
      "\n",
  );

  const progressDir = mkdtempSync(join(tmpdir(), "run-tests-"));
  const startedAt = performance.now();
  const cpuAtStart = childrenCpuSeconds();
  const results = [];
  const totals = { passed: 0, failed: 0, skipped: 0 };
  let running = 0;
  let mostRunning = 0;
  /** Runs units from the queue until it is empty, or (`once`) one unit. */
  const worker = async (once = false) => {
    for (let unit = queue.shift(); unit !== undefined; unit = once ? undefined : queue.shift()) {
      running++;
      mostRunning = Math.max(mostRunning, running);
      for (const result of await settle(unit, progressDir)) {
        results.push(result);
        totals.passed += result.outcome.passed;
        totals.failed += result.outcome.failed;
        totals.skipped += result.outcome.skipped;
        printLine(result);
      }
      running--;
    }
  };
  // Files spend much of their time waiting (on PGlite, chromium, timers, child processes): while the machine's CPU
  // idles, one more file starts, up to maxConcurrency; each extra worker runs one file, so the count falls back to
  // `concurrency` when the CPU is busy. A second between starts lets the last one's own start show in the figure.
  const extras = [];
  const idle = idleSampler();
  const filler =
    maxConcurrency > concurrency
      ? setInterval(() => {
          const idleFraction = idle();
          if (queue.length > 0 && running < maxConcurrency && idleFraction !== undefined && idleFraction > 0.3)
            extras.push(worker(true));
        }, 1000)
      : undefined;
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  clearInterval(filler);
  await Promise.all(extras);
  rmSync(progressDir, { recursive: true, force: true });

  const wallMs = performance.now() - startedAt;
  const cpuAtEnd = childrenCpuSeconds();
  mkdirSync(dirname(timingsFile), { recursive: true });
  writeFileSync(
    timingsFile,
    JSON.stringify(
      // This machine's times only: the committed baseline is read beside them, never copied in.
      {
        ...readJson(timingsFile),
        ...Object.fromEntries(
          results
            .filter((result) => !result.interfered)
            .flatMap((result) => sharesOf(result.unit, result.ms, expected)),
        ),
      },
      null,
      2,
    ) + "\n",
  );

  console.log("\nSlowest files:");
  for (const result of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    const cpu = result.cpuSeconds === undefined ? "" : `  (${result.cpuSeconds.toFixed(1)} s CPU)`;
    console.log(`  ${seconds(result.ms).padStart(8)}  ${result.file}${cpu}`);
  }
  const cpu =
    cpuAtStart === undefined || cpuAtEnd === undefined
      ? ""
      : `, ${(cpuAtEnd - cpuAtStart).toFixed(0)} s CPU in the test processes`;
  console.log(
    `\n${files.length} files in ${seconds(wallMs)} at concurrency ${concurrency}` +
      (mostRunning > concurrency ? ` (at most ${mostRunning} at once)` : "") +
      cpu,
  );

  // What did not run here, and why: a skip is a test that proved nothing on this machine.
  const skipping = results.filter((result) => result.outcome.skipped > 0);
  if (skipping.length > 0) {
    console.log("\n=== skipped");
    for (const result of skipping) {
      const unexplained = result.outcome.skipped - result.skips.length;
      for (const skip of result.skips) {
        const file = result.unit.length > 1 && skip.file ? `test/${skip.file}` : result.file;
        console.log(`${file}: ${skip.label} (${skip.reason})`);
      }
      if (unexplained > 0) console.log(`${result.file}: ${unexplained} registered with .skip (its output says why)`);
    }
    console.log("=== end of skipped");
  }

  const crashes = results.filter((result) => result.crashedFirst);
  if (crashes.length > 0) {
    console.log("\n=== runtime crashes (each file was run once more; its counts are the second run's)");
    for (const result of crashes)
      console.log(`\n--- ${result.file}\n${failureReport(result.crashedFirst).split("\n").slice(0, 12).join("\n")}`);
    console.log("=== end of runtime crashes");
  }
  const failing = results.filter((result) => !result.outcome.ok);
  if (failing.length > 0) {
    console.log("\n=== failures");
    for (const result of failing) console.log(`\n--- ${result.file}\n${failureReport(result)}`);
    console.log("=== end of failures\n");
  }
  console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exitCode = totals.failed > 0 ? 1 : 0;
}

const stop = (signal) => {
  for (const child of children) killGroup(child.pid);
  process.exit(signal === "SIGINT" ? 130 : 143);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);

let options;
const testTmp = testTmpdir();
try {
  options = parseArguments(process.argv.slice(2));
} catch (error) {
  console.error(`run-tests: ${error.message}`);
  process.exit(2);
}
await main();
