// A fixture of test/scripts/run-tests.test.ts: passes when the browser helpers want screenshots exactly as
// EXPECT_SCREENSHOTS says ("1" or "0"), so the runner's --screenshots is seen from inside a test file.
import * as assert from "uvu/assert";
import { screenshotsWanted } from "../browser.js";
import { suite } from "../suite.js";

const Wanted = suite("fixture/screenshots-wanted");

Wanted("wants screenshots as expected", () => assert.is(screenshotsWanted, process.env["EXPECT_SCREENSHOTS"] === "1"));

Wanted.run();
