// A fixture of test/scripts/run-tests.test.ts: a test file is loaded by Node's own type handling with
// scripts/test-loader.mjs (the `../suite.js` import below is `../suite.ts`, found by that hook), not by tsx.
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

/** An enum and a parameter property: what `--experimental-strip-types` alone refuses, and gen/ and src/ have. */
enum Loader {
  Native = 1,
}
class Holder {
  constructor(readonly loader: Loader) {}
}

const LoadsNatively = suite("fixture/loads-natively");
LoadsNatively("runs on Node's transform with the loader's hook, without tsx", () => {
  assert.ok(process.execArgv.includes("--experimental-transform-types"), process.execArgv.join(" "));
  assert.ok(
    process.execArgv.some((flag) => flag.endsWith("/scripts/test-loader.mjs")),
    process.execArgv.join(" "),
  );
  assert.not.ok(process.execArgv.includes("tsx"), process.execArgv.join(" "));
  assert.is(new Holder(Loader.Native).loader, 1);
});
LoadsNatively.run();
