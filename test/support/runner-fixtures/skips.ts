// A fixture of test/scripts/run-tests.test.ts: tests that cannot run here report themselves skipped, three ways,
// and a skipped suite runs neither its tests nor its hooks (the hook here would fail the file).
import * as assert from "uvu/assert";
import { skipTest, suite } from "../suite.js";

const Skips = suite("fixture/skips");

Skips("runs", () => assert.is(1 + 1, 2));
Skips("needs a service", () => assert.unreachable("a skipped test's handler ran"), {
  skip: "FIXTURE_SERVICE_URL is not set",
});
Skips("finds out it cannot run", () => {
  skipTest("no fixture-server to start");
});
Skips.skip("registered with uvu's skip", () => assert.unreachable("uvu ran a .skip test"));

Skips.run();

const Away = suite("fixture/skipped-suite", {}, { skip: "the whole suite needs a browser" });
Away.before(() => assert.unreachable("a skipped suite's hook ran"));
Away("one page", () => assert.unreachable("a skipped suite's test ran"));

Away.run();
