// A fixture of test/scripts/run-tests.test.ts: a file that says it needs tsx is loaded by tsx.
// test-loader: tsx
import * as assert from "uvu/assert";
import { suite } from "../suite.js";

const OnTsx = suite("fixture/on-tsx");
OnTsx("runs on tsx, without Node's own transform", () => {
  assert.ok(process.execArgv.includes("tsx"), process.execArgv.join(" "));
  assert.not.ok(process.execArgv.includes("--experimental-transform-types"), process.execArgv.join(" "));
});
OnTsx.run();
