// The clock of a program a test starts (a role process, `npm start`): the wall clock, or, for tests only, the wall
// clock moved by an offset the test writes to a file. A test drives its in-process apps with a manual clock, but a
// child process reads real time, and tests waited up to 20 s for a minute's rate window to roll over before a burst
// of calls (issue 38). With TEST_CLOCK_OFFSET_FILE the test moves the program's time instead: each reading of the
// clock adds the number of milliseconds the file holds at that moment. Refused unless NODE_ENV=test, so a
// production process cannot be given a clock other than the host's.
import { readFileSync } from "node:fs";
import { systemClock, type Clock } from "./clock.js";

/** A clock the environment asks for and may not have; `npm start` reports it as a configuration error (status 2). */
export class TestClockRefused extends Error {
  override name = "TestClockRefused";
}

/** The variable naming the offset file; read by `programClock`, not by loadConfig. */
export const testClockVariable = "TEST_CLOCK_OFFSET_FILE";

/** The file's offset: a whole number of milliseconds (negative moves the clock back), surrounding blanks allowed. */
function readOffsetMs(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
  return /^-?\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/**
 * The program's clock from its environment: the wall clock, unless TEST_CLOCK_OFFSET_FILE names a file (only under
 * NODE_ENV=test; a TestClockRefused otherwise, or when the file does not hold an offset at start). The file is read
 * again at each reading of the clock, so a test's move applies to the next request; a file that becomes unreadable
 * or malformed meanwhile (caught mid-write) leaves the last offset read.
 */
export function programClock(env: Record<string, string | undefined>): Clock {
  const path = env[testClockVariable];
  if (path === undefined || path === "") return systemClock;
  if (env["NODE_ENV"] !== "test")
    throw new TestClockRefused(
      `${testClockVariable}: a test's clock, only under NODE_ENV=test (here: ${env["NODE_ENV"] ?? "unset"})`,
    );
  let offsetMs = readOffsetMs(path);
  if (offsetMs === undefined)
    throw new TestClockRefused(`${testClockVariable}: ${path} must hold a whole number of milliseconds`);
  return {
    now: () => {
      offsetMs = readOffsetMs(path) ?? offsetMs!;
      return Date.now() + offsetMs;
    },
    sleep: systemClock.sleep,
  };
}
