// src/runtime/test-clock.ts: the clock of a program a test starts. The wall clock unless TEST_CLOCK_OFFSET_FILE names
// an offset file, which only NODE_ENV=test allows; each reading follows the file as the test moves it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as assert from "uvu/assert";
import { programClock, TestClockRefused } from "../../src/runtime/test-clock.js";
import { systemClock } from "../../src/runtime/clock.js";
import { suite } from "../support/suite.js";

const TestClock = suite("runtime/test-clock");

let dir: string;
TestClock.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "test-clock-"));
});
TestClock.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The TestClockRefused `call` throws, or a failure when it throws nothing or something else. */
function configError(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    assert.instance(error, TestClockRefused);
    return (error as Error).message;
  }
  assert.unreachable("no TestClockRefused");
  return "";
}

TestClock("without the variable: the wall clock itself, whatever NODE_ENV says", () => {
  assert.is(programClock({}), systemClock);
  assert.is(programClock({ NODE_ENV: "production", TEST_CLOCK_OFFSET_FILE: "" }), systemClock);
});

TestClock("refused unless NODE_ENV=test: production (and an unset NODE_ENV) never runs on a moved clock", async () => {
  const file = join(dir, "refused");
  await writeFile(file, "60000\n");
  assert.is(
    configError(() => programClock({ NODE_ENV: "production", TEST_CLOCK_OFFSET_FILE: file })),
    "TEST_CLOCK_OFFSET_FILE: a test's clock, only under NODE_ENV=test (here: production)",
  );
  assert.is(
    configError(() => programClock({ TEST_CLOCK_OFFSET_FILE: file })),
    "TEST_CLOCK_OFFSET_FILE: a test's clock, only under NODE_ENV=test (here: unset)",
  );
});

TestClock("a file without an offset at start is refused, naming it", async () => {
  const file = join(dir, "malformed");
  await writeFile(file, "soon\n");
  for (const path of [file, join(dir, "missing")])
    assert.is(
      configError(() => programClock({ NODE_ENV: "test", TEST_CLOCK_OFFSET_FILE: path })),
      `TEST_CLOCK_OFFSET_FILE: ${path} must hold a whole number of milliseconds`,
    );
});

TestClock("each reading adds the offset the file holds then; a malformed or missing file keeps the last", async () => {
  const file = join(dir, "moved");
  await writeFile(file, "0\n");
  const clock = programClock({ NODE_ENV: "test", TEST_CLOCK_OFFSET_FILE: file });
  /** Asserts a reading lies between the wall clock's before and after it, each plus `offsetMs`. */
  const readsWallPlus = (offsetMs: number) => {
    const before = Date.now();
    const reading = clock.now();
    const after = Date.now();
    assert.ok(
      reading >= before + offsetMs && reading <= after + offsetMs,
      `${reading} is not the wall clock (${before}..${after}) + ${offsetMs}`,
    );
  };
  readsWallPlus(0);
  await writeFile(file, "3600000\n");
  readsWallPlus(3_600_000);
  await writeFile(file, "");
  readsWallPlus(3_600_000);
  await rm(file);
  readsWallPlus(3_600_000);
  await writeFile(file, "-60000");
  readsWallPlus(-60_000);
});

TestClock.run();
