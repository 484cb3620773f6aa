// A fixture of test/scripts/run-tests.test.ts: a test file that imports uvu's suite directly, which the runner refuses.
import { suite } from "uvu";

const Direct = suite("fixture/imports-uvu");
Direct("never runs", () => {});
Direct.run();
