// What every test file imports instead of uvu's own `suite`: the same suite, with a timeout on every test and hook
// whose failure names the suite and the test, and a line per started test for the runner (scripts/run-tests.mjs),
// which names the last one when it has to kill a hung file. uvu stays the test runner; this only wraps handlers.
//
//   import { suite } from "../support/suite.js";
//   const Thing = suite("area/thing");
//   Thing("does what it says", async () => { ... });
//   Thing("replays a day of traffic", async () => { ... }, { timeoutMs: 900_000 });
//   const Pages = suite("area/pages", {}, { timeoutMs: browserTestTimeoutMs });   (every test and hook of it)
//   Thing("talks to Redis", async () => { ... }, { skip: redisUrl ? false : "TEST_REDIS_URL is not set" });
//   Thing("starts a Redis", async () => { if (!redis) skipTest("no redis-server to start"); ... });
//
// A skipped test is never counted as passed: it ends with a "skip" line in the progress file, which the runner counts
// under "skipped" with its reason (uvu itself would count a test that returned early as passed).
import { closeSync, openSync, writeSync } from "node:fs";
import { suite as uvuSuite, type Callback } from "uvu";

/**
 * A test's (or hook's) limit unless it or its suite names its own: TEST_TIMEOUT_MS, else 300 s. Generous on purpose:
 * it is there to end a hung test, and a machine running other suites beside this one (load 20 and more on two
 * cores) makes an app start or a page take ten times its usual time.
 */
export const defaultTimeoutMs = Number(process.env["TEST_TIMEOUT_MS"]) || 300_000;

export interface TestOptions {
  /** This test's limit in milliseconds; the default is `defaultTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Why this test (or, given to `suite`, every test of the suite) cannot run here, e.g. "TEST_REDIS_URL is not set":
   * its handler (and the suite's hooks) never run and it is reported skipped with this reason. False or undefined: it
   * runs.
   */
  skip?: string | false | undefined;
}

type Context = Record<string, unknown>;

interface Hook<T> {
  (hook: Callback<T>, options?: TestOptions): void;
  each(hook: Callback<T>, options?: TestOptions): void;
}

export interface Suite<T = Context> {
  (name: string, test: Callback<T>, options?: TestOptions): void;
  skip(name?: string, test?: Callback<T>): void;
  before: Hook<T>;
  after: Hook<T>;
  run(): void;
}

/** Thrown by `skipTest`: the test ends as skipped, never as passed. */
export class TestSkipped extends Error {
  constructor(readonly reason: string) {
    super(`skipped: ${reason}`);
    this.name = "TestSkipped";
  }
}

/**
 * Ends the calling test as skipped, with the reason it cannot run here (a service or a binary missing): the runner
 * counts it under "skipped" and lists the reason. For a reason known before the test starts, `{ skip: reason }`.
 */
export function skipTest(reason: string): never {
  throw new TestSkipped(reason);
}

/** Thrown when a test or hook outlives its limit; the message names it, so uvu's FAIL line says which. */
export class TestTimeoutError extends Error {
  constructor(label: string, timeoutMs: number) {
    super(`${label} timed out after ${timeoutMs / 1000} s (a test's limit: TEST_TIMEOUT_MS or its { timeoutMs })`);
    this.name = "TestTimeoutError";
  }
}

// The runner's progress file (TEST_PROGRESS_FILE): "start\t<label>" and "end\t<label>\t<ms>\t<pass|fail|skip>\t
// <reason>\t<file>" lines, written synchronously so the last line survives a kill.
const progressFile = process.env["TEST_PROGRESS_FILE"];
const progressFd = progressFile ? openSync(progressFile, "a") : undefined;
if (progressFd !== undefined) process.once("exit", () => closeSync(progressFd));

function progress(...fields: Array<string | number>): void {
  if (progressFd !== undefined)
    writeSync(progressFd, `${fields.map((field) => String(field).replace(/[\t\n]/g, " ")).join("\t")}\n`);
}

/** Runs `handler(context)` but rejects with a TestTimeoutError naming `label` once `timeoutMs` has passed. */
async function withTimeout<T>(
  label: string,
  timeoutMs: number,
  handler: Callback<T>,
  context: Parameters<Callback<T>>[0],
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  // The timer is deliberately not unref'd: a test waiting on nothing at all must still end with this failure rather
  // than with uvu's anonymous "Exiting early before testing is finished".
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TestTimeoutError(label, timeoutMs)), timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => handler(context)), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The test file being loaded, as uvu's CLI names it (relative to the directory it was given): uvu queues each
 * file's name just before importing it, and a file creates its suites as it is imported. The runner needs it to
 * name a skipped test's file when several light files share a process (scripts/test-batches.mjs).
 */
function fileBeingLoaded(): string {
  const queue = (globalThis as { UVU_QUEUE?: Array<[string?]> }).UVU_QUEUE;
  return queue?.at(-1)?.[0] ?? "";
}

/** A test handler with a limit, reported to the runner's progress file. */
function timedTest<T>(label: string, handler: Callback<T>, options: TestOptions | undefined, file = ""): Callback<T> {
  const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
  return async (context) => {
    progress("start", label);
    const startedAt = performance.now();
    let outcome = "fail";
    let reason: string | undefined;
    try {
      if (options?.skip) skipTest(options.skip);
      await withTimeout(label, timeoutMs, handler, context);
      outcome = "pass";
    } catch (error) {
      if (!(error instanceof TestSkipped)) throw error;
      // uvu counts this test as passed; the "skip" line below is what the runner counts instead.
      outcome = "skip";
      reason = error.reason;
      console.log(`\n  skipped: ${label} (${reason})`);
    } finally {
      progress("end", label, Math.round(performance.now() - startedAt), outcome, reason ?? "", file);
    }
  };
}

/**
 * A hook with a limit. uvu counts a failing `before`/`after` hook nowhere visible (its runner's `finally` swallows
 * the error and the suite just passes none of its tests), so the error is printed here with the suite's name.
 */
function timedHook<T>(label: string, hook: Callback<T>, options: TestOptions | undefined): Callback<T> {
  const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
  return async (context) => {
    // A skipped suite's hooks would only prepare for tests that do not run (and need what is missing).
    if (options?.skip) return;
    progress("start", label);
    try {
      await withTimeout(label, timeoutMs, hook, context);
    } catch (error) {
      console.error(`\n  ${label} failed: ${(error as Error)?.stack ?? String(error)}\n`);
      throw error;
    } finally {
      progress("end", label, 0, "hook");
    }
  };
}

/**
 * uvu's `suite(title, context)`, every test and hook of it under a timeout whose message names it: the test's own
 * `{ timeoutMs }`, else the suite's (`options`), else `defaultTimeoutMs`. The suite's `{ skip: reason }` skips every
 * test of it (reported with the reason) and runs none of its hooks.
 */
export function suite<T = Context>(title = "", context?: T, options: TestOptions = {}): Suite<T> {
  const inner = uvuSuite<T>(title, context);
  const limit = (own: TestOptions | undefined): TestOptions => ({
    timeoutMs: own?.timeoutMs ?? options.timeoutMs,
    skip: options.skip || own?.skip,
  });
  const label = (name: string) => (title ? `${title} › ${name}` : name);
  const file = fileBeingLoaded();
  const hook = (register: (hook: Callback<T>) => void, name: string) => (handler: Callback<T>, own?: TestOptions) =>
    register(timedHook(label(name), handler, limit(own)));
  const before = Object.assign(hook(inner.before, "before hook"), {
    each: hook(inner.before.each, "before.each hook"),
  });
  const after = Object.assign(hook(inner.after, "after hook"), { each: hook(inner.after.each, "after.each hook") });
  const test = (name: string, handler: Callback<T>, own?: TestOptions) =>
    inner(name, timedTest(label(name), handler, limit(own), file));
  // No `only`: a committed `.only` would narrow a whole file's run to one test and report the rest as never run.
  return Object.assign(test, {
    skip: (name?: string, handler?: Callback<T>) => inner.skip(name, handler),
    before,
    after,
    run: () => inner.run(),
  });
}

/** uvu's default unnamed suite, with the same timeouts. */
export const test = suite();
