// A fixture of test/scripts/run-tests.test.ts: its test passes, but leaves a timer that keeps the process alive.
import { suite } from "../suite.js";

const Lingers = suite("fixture/lingers");

Lingers("passes and leaves an interval running", () => {
  setInterval(() => {}, 1000);
});

Lingers.run();
