// A fixture of test/scripts/run-tests.test.ts: passes only in a process sets-a-global.ts has not marked.
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

const Needs = suite("fixture/needs-no-global");

Needs("finds the process unmarked", () =>
  assert.is((globalThis as { runnerFixtureMark?: boolean }).runnerFixtureMark, undefined),
);

Needs.run();
