// The clock of the programs a test starts (role processes, `npm start`), moved by the test instead of waited for:
// their environment names an offset file (TEST_CLOCK_OFFSET_FILE, honoured under NODE_ENV=test only;
// src/runtime/test-clock.ts) that this writes. Every program started with `env` reads the same time.
//
//   const programs = await createProgramClock();
//   startRole(["--role", "front"], { ...programs.env, ... });
//   await programs.toNextMinute();   // the programs' clock now reads one second into a fresh minute
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ProgramClock {
  /** What the programs' environment must carry: NODE_ENV=test and the offset file. */
  env: { NODE_ENV: "test"; TEST_CLOCK_OFFSET_FILE: string };
  /** The programs' time now. */
  now(): number;
  /** Moves the programs' time forward by `ms`. */
  advance(ms: number): Promise<void>;
  /**
   * Moves the programs' time forward to one second past the start of the next minute, so a burst of calls that
   * follows lands in one per-minute rate window (59 s of it left) however long the programs took to start; answers
   * the programs' time after the move.
   */
  toNextMinute(): Promise<number>;
  /** Removes the offset file. */
  remove(): Promise<void>;
}

export async function createProgramClock(): Promise<ProgramClock> {
  const dir = await mkdtemp(join(tmpdir(), "program-clock-"));
  const file = join(dir, "offset-ms");
  let offsetMs = 0;
  const write = async (next: number) => {
    // Written whole in one call: a program reading mid-write keeps its last offset (src/runtime/test-clock.ts).
    await writeFile(file, `${next}\n`);
    offsetMs = next;
  };
  await write(0);
  const now = () => Date.now() + offsetMs;
  return {
    env: { NODE_ENV: "test", TEST_CLOCK_OFFSET_FILE: file },
    now,
    advance: (ms) => write(offsetMs + ms),
    toNextMinute: async () => {
      const target = Math.floor(now() / 60_000) * 60_000 + 60_000 + 1_000;
      await write(target - Date.now());
      return now();
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
