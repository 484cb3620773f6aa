// A fixture of test/scripts/run-tests.test.ts: sets a global as it is loaded, which needs-no-global.ts cannot
// stand; each passes alone, and together (two light files in one process) the other fails.
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

(globalThis as { runnerFixtureMark?: boolean }).runnerFixtureMark = true;

const Sets = suite("fixture/sets-a-global");

Sets("marks the process", () => assert.is((globalThis as { runnerFixtureMark?: boolean }).runnerFixtureMark, true));

Sets.run();
