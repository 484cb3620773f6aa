// `npm run test:save-timings`: copies this machine's last test times (test-output/test-timings.json, written by
// scripts/run-tests.mjs) to the committed baseline scripts/test-timings.json, keeping only files that still exist,
// sorted by name so a refresh diffs line by line. The runner orders a run by these times (slowest first) when the
// machine has none of its own: a clean clone's first run, and CI.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const source = process.env.TEST_TIMINGS_FILE || join(root, "test-output", "test-timings.json");
if (!existsSync(source)) {
  console.error(`no times to save: ${source} is written by a run of npm test`);
  process.exit(1);
}
const times = JSON.parse(readFileSync(source, "utf8"));
const kept = Object.fromEntries(
  Object.entries(times)
    .filter(([file, ms]) => existsSync(join(root, file)) && Number.isFinite(ms))
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(join(root, "scripts", "test-timings.json"), `${JSON.stringify(kept, null, 2)}\n`);
console.log(`scripts/test-timings.json: ${Object.keys(kept).length} files`);
