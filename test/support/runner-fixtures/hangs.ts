// A fixture of test/scripts/run-tests.test.ts: a test that outlasts the runner's per-file limit, with a process of
// its own (its pid in HANGS_PID_FILE) that the runner must kill with it.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { suite } from "../suite.js";

const Hangs = suite("fixture/hangs");

Hangs("starts quickly", () => {});
Hangs(
  "never finishes",
  async () => {
    const child = spawn("sleep", ["600"], { stdio: "ignore" });
    writeFileSync(process.env["HANGS_PID_FILE"]!, String(child.pid));
    await new Promise<void>(() => setTimeout(() => {}, 600_000));
  },
  { timeoutMs: 600_000 },
);

Hangs.run();
