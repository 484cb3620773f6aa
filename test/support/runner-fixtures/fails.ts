// A fixture of test/scripts/run-tests.test.ts: one test passes, one fails an assertion, one outlives its limit.
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

const Fails = suite("fixture/fails");

Fails("adds up", () => assert.is(2 + 2, 4));
Fails("compares the answer", () => assert.is(6 * 7, 41, "the answer is forty-one"));
Fails("waits for nothing that comes", () => new Promise<void>(() => {}), { timeoutMs: 300 });
Fails("still runs after a timeout", () => assert.ok(true));

Fails.run();
