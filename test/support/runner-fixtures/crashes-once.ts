// A fixture of test/scripts/run-tests.test.ts: the first run's process is ended by a signal as V8's fatal checks end
// one (SIGTRAP), before uvu's totals; a second run (the marker file exists then) passes. CRASH_ONCE_MARKER names the
// marker file.
import { existsSync, writeFileSync } from "node:fs";
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

const marker = process.env["CRASH_ONCE_MARKER"]!;
if (!existsSync(marker)) {
  writeFileSync(marker, "crashed once");
  process.kill(process.pid, "SIGTRAP");
  await new Promise(() => {});
}

const CrashesOnce = suite("fixture/crashes-once");
CrashesOnce("passes on the second run", () => assert.is(1 + 1, 2));
CrashesOnce.run();
