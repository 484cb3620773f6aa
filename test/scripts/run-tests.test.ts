// scripts/run-tests.mjs, the runner of `npm test`, run for real on the fixture files of test/support/runner-fixtures:
// its totals line (skips counted apart from passes, with their reasons), a test's timeout named in the failures, a
// hung file killed with the processes it started and named by the test it was in, light files sharing a process
// (a failing batch run again file by file, files that interfere named), --screenshots reaching the files, and a test
// file that imports uvu directly refused.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import * as assert from "uvu/assert";
import { suite } from "../support/suite.js";

const Runner = suite("scripts/run-tests");

const root = new URL("../../", import.meta.url).pathname;
const fixtures = "test/support/runner-fixtures";

let scratch: string;

Runner.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "run-tests-test-"));
});

Runner.after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs the runner on `args`; its exit code and its output without colours. */
function runner(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["scripts/run-tests.mjs", ...args],
      {
        cwd: root,
        env: { ...process.env, TEST_TIMINGS_FILE: join(scratch, "timings.json"), ...env },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, output: stripVTControlCharacters(`${stdout}${stderr}`) });
      },
    );
  });
}

const lastLine = (output: string) => output.trimEnd().split("\n").at(-1);

Runner(
  "a file is loaded by Node's own type handling and the loader's hook; one that says `// test-loader: tsx` by tsx",
  async () => {
    const { code, output } = await runner([`${fixtures}/loads-natively.ts`, `${fixtures}/on-tsx.ts`], {
      // Times of their own: the next test reads back the timings file's files.
      TEST_TIMINGS_FILE: join(scratch, "loader-timings.json"),
    });
    assert.is(code, 0, output);
    assert.not.match(output, /ExperimentalWarning/);
    assert.is(lastLine(output), "2 passed, 0 failed, 0 skipped");
  },
);

Runner(
  "a passing file: its tests counted, the slowest files listed, and last of all 'N passed, 0 failed, 0 skipped'",
  async () => {
    const { code, output } = await runner([`${fixtures}/passes.ts`]);
    assert.is(code, 0, output);
    assert.match(output, /✓ test\/support\/runner-fixtures\/passes\.ts {2}2 passed {2}\d+\.\d s \(\d+\.\d s CPU\)/);
    assert.match(output, /Slowest files:\n +\d+\.\d s {2}test\/support\/runner-fixtures\/passes\.ts/);
    assert.is(lastLine(output), "2 passed, 0 failed, 0 skipped");
    assert.equal(Object.keys(JSON.parse(readFileSync(join(scratch, "timings.json"), "utf8"))), [
      `${fixtures}/passes.ts`,
    ]);
  },
);

Runner(
  "skipped tests are counted as skipped, never passed, and listed with their reasons before the closing line",
  async () => {
    const { code, output } = await runner([`${fixtures}/skips.ts`]);
    assert.is(code, 0, output);
    assert.match(output, /✓ test\/support\/runner-fixtures\/skips\.ts {2}1 passed, 4 skipped {2}\d+\.\d s/);
    const section = output.slice(output.indexOf("=== skipped\n"), output.indexOf("=== end of skipped"));
    assert.equal(section.trimEnd().split("\n"), [
      "=== skipped",
      `${fixtures}/skips.ts: fixture/skips › needs a service (FIXTURE_SERVICE_URL is not set)`,
      `${fixtures}/skips.ts: fixture/skips › finds out it cannot run (no fixture-server to start)`,
      `${fixtures}/skips.ts: fixture/skipped-suite › one page (the whole suite needs a browser)`,
      `${fixtures}/skips.ts: 1 registered with .skip (its output says why)`,
    ]);
    assert.is(lastLine(output), "1 passed, 0 failed, 4 skipped");
  },
);

Runner(
  "a failed assertion and a timed-out test: both named with their file in the failures, and the next test still runs",
  async () => {
    const { code, output } = await runner([`${fixtures}/fails.ts`, `${fixtures}/passes.ts`]);
    assert.is(code, 1, output);
    assert.is(lastLine(output), "4 passed, 2 failed, 0 skipped");
    // Light, they shared a process; the batch failed, so each file ran again alone and counted alone.
    assert.match(output, "✘ 2 light files in one process failed; its files run again one by one:");
    assert.match(output, /✘ test\/support\/runner-fixtures\/fails\.ts {2}2 passed, 2 failed {2}/);
    assert.match(output, /✓ test\/support\/runner-fixtures\/passes\.ts {2}2 passed {2}/);
    const failures = output.slice(output.indexOf("=== failures"), output.indexOf("=== end of failures"));
    assert.match(failures, "--- test/support/runner-fixtures/fails.ts");
    assert.match(failures, /FAIL +fixture\/fails +"compares the answer"/);
    assert.match(failures, "the answer is forty-one");
    assert.match(failures, /FAIL +fixture\/fails +"waits for nothing that comes"/);
    assert.match(failures, "fixture/fails › waits for nothing that comes timed out after 0.3 s");
    assert.not.match(failures, "passes.ts");
  },
);

Runner(
  "light files share one process: one line for them, their files listed under it, a skip named by its own file; --alone runs each alone",
  async () => {
    const files = [`${fixtures}/passes.ts`, `${fixtures}/skips.ts`];
    const shared = await runner(files);
    assert.is(shared.code, 0, shared.output);
    assert.match(shared.output, "2 test files (the 2 light ones in 1 process, --alone: each in its own), 1 at a time");
    // The batch's line, then its files: longest first, an order the earlier tests' timings decide, so not asserted.
    const line =
      /✓ 2 light files in one process {2}3 passed, 4 skipped {2}\d+\.\d s \(\d+\.\d s CPU\)\n((?: {2}.+\n){2})/.exec(
        shared.output,
      );
    assert.ok(line, shared.output);
    assert.equal(
      line[1]!
        .trimEnd()
        .split("\n")
        .map((listed) => listed.trim())
        .sort(),
      files,
    );
    assert.match(
      shared.output,
      `${fixtures}/skips.ts: fixture/skips › needs a service (FIXTURE_SERVICE_URL is not set)`,
    );
    assert.is(lastLine(shared.output), "3 passed, 0 failed, 4 skipped");
    const alone = await runner(["--alone", ...files]);
    assert.is(alone.code, 0, alone.output);
    assert.match(alone.output, "2 test files, 2 at a time");
    assert.match(alone.output, /✓ test\/support\/runner-fixtures\/passes\.ts {2}2 passed {2}/);
    assert.match(alone.output, /✓ test\/support\/runner-fixtures\/skips\.ts {2}1 passed, 4 skipped {2}/);
    assert.is(lastLine(alone.output), "3 passed, 0 failed, 4 skipped");
  },
);

Runner("files that pass alone and fail together count one failure, named as files that interfere", async () => {
  const { code, output } = await runner([`${fixtures}/sets-a-global.ts`, `${fixtures}/needs-no-global.ts`]);
  assert.is(code, 1, output);
  assert.match(output, /✓ test\/support\/runner-fixtures\/sets-a-global\.ts {2}1 passed {2}/);
  assert.match(output, /✓ test\/support\/runner-fixtures\/needs-no-global\.ts {2}1 passed {2}/);
  assert.match(
    output,
    /✘ 2 light files in one process {2}0 passed, 1 failed {2}.*\(every file passed alone: they interfere\)/,
  );
  const failures = output.slice(output.indexOf("=== failures"), output.indexOf("=== end of failures"));
  assert.match(failures, "--- 2 light files in one process");
  assert.match(failures, /FAIL +fixture\/needs-no-global +"finds the process unmarked"/);
  assert.is(lastLine(output), "2 passed, 1 failed, 0 skipped");
});

Runner("a file over its limit is killed with the processes it started, and named with the test it was in", async () => {
  const pidFile = join(scratch, "sleep.pid");
  // 30 s: the fixture must reach its hanging test first, and under load starting Node alone can take seconds.
  const { code, output } = await runner(["--file-timeout", "30", `${fixtures}/hangs.ts`], { HANGS_PID_FILE: pidFile });
  assert.is(code, 1, output);
  assert.match(output, "killed after 30.");
  assert.match(output, "in: fixture/hangs › never finishes");
  assert.is(lastLine(output), "0 passed, 1 failed, 0 skipped");
  // The `sleep 600` the test started went with it: the runner kills the file's whole process group.
  const sleeper = Number(readFileSync(pidFile, "utf8"));
  assert.ok(sleeper > 0);
  assert.is(
    existsSync(`/proc/${sleeper}`) && !readFileSync(`/proc/${sleeper}/stat`, "utf8").includes(") Z "),
    false,
    `sleep ${sleeper} is still running`,
  );
});

Runner("a file whose process outlives its last test is killed after --exit-grace and counted failed", async () => {
  const { code, output } = await runner(["--exit-grace", "1", `${fixtures}/lingers.ts`]);
  assert.is(code, 1, output);
  assert.match(output, /killed \d+\.\d s after its last test ended: something it opened/);
  assert.is(lastLine(output), "1 passed, 1 failed, 0 skipped");
});

Runner("--max-concurrency: announced when above --concurrency; below it, refused before anything runs", async () => {
  const announced = await runner(
    ["--concurrency", "1", "--max-concurrency", "3", `${fixtures}/passes.ts`, `${fixtures}/passes.ts`],
    { TMPDIR: scratch },
  );
  assert.is(announced.code, 0, announced.output);
  assert.match(
    announced.output,
    `1 test file, 1 at a time (TEST_CONCURRENCY / --concurrency); temporary files under ${scratch}\n`,
  );
  const twoFiles = await runner(
    ["--alone", "--concurrency", "1", "--max-concurrency", "3", `${fixtures}/passes.ts`, `${fixtures}/fails.ts`],
    { TMPDIR: scratch },
  );
  assert.match(
    twoFiles.output,
    "2 test files, 1 at a time (TEST_CONCURRENCY / --concurrency), up to 2 while the CPU idles (--max-concurrency)" +
      `; temporary files under ${scratch}\n`,
  );
  const refused = await runner(["--concurrency", "3", "--max-concurrency", "2", `${fixtures}/passes.ts`]);
  assert.is(refused.code, 2, refused.output);
  assert.match(refused.output, "--max-concurrency must be a whole number of at least --concurrency");
  assert.not.match(refused.output, "passed");
});

Runner("screenshots only with --screenshots (or TEST_SCREENSHOTS=1), said on the first line", async () => {
  const file = `${fixtures}/screenshots-wanted.ts`;
  const without = await runner([file], { TEST_SCREENSHOTS: "", EXPECT_SCREENSHOTS: "0" });
  assert.is(without.code, 0, without.output);
  assert.not.match(without.output, "write screenshots");
  const asked = await runner(["--screenshots", file], { TEST_SCREENSHOTS: "", EXPECT_SCREENSHOTS: "1" });
  assert.is(asked.code, 0, asked.output);
  assert.match(asked.output, "; the browser files write screenshots to test-output/screenshots/\n");
  const byEnvironment = await runner([file], { TEST_SCREENSHOTS: "1", EXPECT_SCREENSHOTS: "1" });
  assert.is(byEnvironment.code, 0, byEnvironment.output);
  assert.is(lastLine(byEnvironment.output), "1 passed, 0 failed, 0 skipped");
});

Runner(
  "a file the runtime crashed (SIGTRAP before uvu's totals) is run once more, said on its line and in a section",
  async () => {
    const { code, output } = await runner([`${fixtures}/crashes-once.ts`], {
      CRASH_ONCE_MARKER: join(scratch, "crashed-once"),
    });
    assert.is(code, 0, output);
    assert.match(
      output,
      /✓ test\/support\/runner-fixtures\/crashes-once\.ts {2}1 passed {2}\d+\.\d s \(\d+\.\d s CPU\) \(its first run crashed with SIGTRAP: run again\)/,
    );
    const section = output.slice(output.indexOf("=== runtime crashes"), output.indexOf("=== end of runtime crashes"));
    assert.match(section, "--- test/support/runner-fixtures/crashes-once.ts");
    assert.match(section, "exited with SIGTRAP before uvu's totals");
    assert.is(lastLine(output), "1 passed, 0 failed, 0 skipped");
  },
);

Runner("a test file importing `suite` from uvu directly is refused before anything runs", async () => {
  const { code, output } = await runner([`${fixtures}/imports-uvu.ts`, `${fixtures}/passes.ts`]);
  assert.is(code, 1, output);
  assert.match(output, /import from .uvu. directly/); // not spelled out: this file would import uvu to the check
  assert.match(output, `  ${fixtures}/imports-uvu.ts`);
  assert.not.match(output, "passes.ts");
  assert.is(lastLine(output), "0 passed, 1 failed, 0 skipped");
});

Runner("the repository's own test files all take `suite` from test/support/suite.ts, none from uvu", () => {
  const files = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" }).filter((name) =>
    /\.(test|topology)\.ts$/.test(name),
  );
  assert.ok(files.length > 100, `only ${files.length} test files found`);
  const direct = files.filter((name) => /from\s+["']uvu["']/.test(readFileSync(join(root, "test", name), "utf8")));
  assert.equal(direct, []);
  // suite.ts passes uvu's `.only` through for local debugging; one left in a test file would narrow every CI run to it.
  const narrowed = files.filter((name) => /^\s*\w+\.only\(/m.test(readFileSync(join(root, "test", name), "utf8")));
  assert.equal(narrowed, [], "test files calling .only");
});

Runner.run();
