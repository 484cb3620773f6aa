// A fixture of test/scripts/run-tests.test.ts (not a test of the suite: the runner picks *.test.ts files only).
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

const Passes = suite("fixture/passes");

Passes("one", () => assert.is(1 + 1, 2));
Passes("two", async () => assert.is(await Promise.resolve("two"), "two"));

Passes.run();
