// A role's shutdown steps (src/runtime/closers.ts): closed in reverse order of opening, once, each bounded so that one
// that never finishes (a queue waiting on a frozen connection) is logged by name and the rest still close.
import * as assert from "uvu/assert";
import { createClosers } from "../../src/runtime/closers.js";
import { createLogger } from "../../src/runtime/logger.js";
import { suite } from "../support/suite.js";

const Closers = suite("runtime/closers");

function recordingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

Closers("closes in reverse order of opening, once however often asked", async () => {
  const { logger } = recordingLogger();
  const closers = createClosers({ logger, stepBoundMs: 60_000 });
  const closed: string[] = [];
  for (const step of ["database", "queue", "listener"]) {
    closers.add(step, async () => {
      closed.push(step);
    });
  }
  await Promise.all([closers.closeAll(), closers.closeAll()]);
  await closers.closeAll();
  assert.equal(closed, ["listener", "queue", "database"]);
});

Closers("a step that never finishes is named in the log at its bound and the steps after it still close", async () => {
  const { logger, lines } = recordingLogger();
  // Real time by design (a manual clock does not move while a test waits in stop()): the bound is kept tiny.
  const closers = createClosers({ logger, stepBoundMs: 20 });
  const closed: string[] = [];
  closers.add("database", async () => {
    closed.push("database");
  });
  closers.add("queue", () => new Promise<void>(() => {}));
  await closers.closeAll();
  assert.equal(closed, ["database"]);
  const overran = lines.filter((line) => line["msg"] === "shutdown step overran its bound: going on");
  assert.equal(
    overran.map((line) => [line["step"], line["boundMs"]]),
    [["queue", 20]],
  );
  assert.equal(
    lines.filter((line) => line["msg"] === "shutdown step").map((line) => line["step"]),
    ["queue", "database"],
  );
});

Closers("a step that fails is logged and the steps after it still close", async () => {
  const { logger, lines } = recordingLogger();
  const closers = createClosers({ logger, stepBoundMs: 60_000 });
  const closed: string[] = [];
  closers.add("database", async () => {
    closed.push("database");
  });
  closers.add("queue", async () => {
    throw new Error("connection reset");
  });
  await closers.closeAll();
  assert.equal(closed, ["database"]);
  const failed = lines.filter((line) => line["msg"] === "shutdown step failed: going on");
  assert.is(failed.length, 1);
  assert.is(failed[0]!["step"], "queue");
  assert.match(JSON.stringify(failed[0]!["error"]), /connection reset/);
});

Closers.run();
