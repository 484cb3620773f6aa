// The logger keeps secrets out of log lines, whatever their nesting, and leaves ids of secrets readable.
import { spawn, spawnSync } from "node:child_process";
import { suite } from "../support/suite.js";
import { sourceLoaderFlags } from "../support/role-process.js";
import * as assert from "uvu/assert";
import { createLogger, redact } from "../../src/runtime/logger.js";
import { addToLogContext, runWithLogContext } from "../../src/runtime/log-context.js";

const Logger = suite("runtime/logger");

Logger("secret-named fields are redacted at any depth; ids and types of secrets are not", () => {
  assert.equal(
    redact({
      client_secret: "s1",
      clientSecret: "s2",
      password: "p",
      refresh_token: "r",
      accessToken: "a",
      authorization: "Bearer x",
      apiKey: "k",
      "x-api-key": "k2",
      code: "c",
      code_verifier: "v",
      nested: [{ secret: "n" }],
      apiKeyId: 7,
      tokenType: "Bearer",
      clientId: "lp_app_sb1",
      codeChallengeMethod: "S256",
    }),
    {
      client_secret: "[redacted]",
      clientSecret: "[redacted]",
      password: "[redacted]",
      refresh_token: "[redacted]",
      accessToken: "[redacted]",
      authorization: "[redacted]",
      apiKey: "[redacted]",
      "x-api-key": "[redacted]",
      code: "[redacted]",
      code_verifier: "[redacted]",
      nested: [{ secret: "[redacted]" }],
      apiKeyId: 7,
      tokenType: "Bearer",
      clientId: "lp_app_sb1",
      codeChallengeMethod: "S256",
    },
  );
});

Logger("a line is one JSON object with time, level, message and bound fields", () => {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => lines.push(line), now: () => Date.UTC(2026, 0, 1) }).child({
    role: "front",
  });
  logger.info("hello", { password: "x", n: 1 });
  logger.debug("dropped at info level");
  assert.equal(
    lines.map((line) => JSON.parse(line)),
    [{ time: "2026-01-01T00:00:00.000Z", level: "info", msg: "hello", role: "front", password: "[redacted]", n: 1 }],
  );
});

Logger(
  "secrets are redacted at depth four and beyond, inside arrays of arrays; a structure too deep is cut, never written raw",
  () => {
    const deep = {
      a: { b: { c: { d: { password: "p4", list: [[{ refresh_token: "r6" }], { apiKey: "k6" }], keep: "v" } } } },
    };
    assert.equal(redact(deep), {
      a: {
        b: {
          c: {
            d: {
              password: "[redacted]",
              list: [[{ refresh_token: "[redacted]" }], { apiKey: "[redacted]" }],
              keep: "v",
            },
          },
        },
      },
    });
    let tooDeep: Record<string, unknown> = { secret: "s" };
    for (let level = 0; level < 20; level++) tooDeep = { next: tooDeep };
    assert.not.match(JSON.stringify(redact(tooDeep)), '"s"');
    assert.match(JSON.stringify(redact(tooDeep)), "[too deep]");
    const cycle: Record<string, unknown> = { token: "t" };
    cycle["self"] = cycle;
    assert.equal(redact(cycle), { token: "[redacted]", self: "[circular]" });
    const shared = { id: 1 };
    assert.equal(
      redact({ left: shared, right: shared }),
      { left: { id: 1 }, right: { id: 1 } },
      "the same object twice is not a cycle",
    );
  },
);

Logger(
  "pino lines: child bindings are redacted too, errors keep their stack, LOG_LEVEL filters, the capture learns each level",
  () => {
    const lines: Array<[string, string]> = [];
    const logger = createLogger({ level: "warn", write: (line, level) => lines.push([line, level]) }).child({
      session: { cookie: "c", id: 3 },
    });
    logger.info("below warn");
    logger.warn("deep", {
      request: { headers: { authorization: "Bearer x", "x-api-key": "k" } },
      items: [{ client_secret: "s" }],
    });
    logger.error("failed", { error: new Error("boom") });
    assert.equal(
      lines.map(([, level]) => level),
      ["warn", "error"],
    );
    const [warn, error] = lines.map(
      ([line]) => JSON.parse(line) as Record<string, unknown> & { error: { message: string; stack: string } },
    );
    assert.equal(warn!["session"], { cookie: "[redacted]", id: 3 });
    assert.equal(warn!["request"], { headers: { authorization: "[redacted]", "x-api-key": "[redacted]" } });
    assert.equal(warn!["items"], [{ client_secret: "[redacted]" }]);
    assert.is(error!["error"].message, "boom");
    assert.match(error!["error"].stack, "logger.test.ts");
    assert.not.match(lines.map(([line]) => line).join("\n"), "Bearer x");
  },
);

Logger(
  "inside a request's log context every line carries its fields; a call's own fields win; outside, nothing is added",
  async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ write: (line) => lines.push(JSON.parse(line)) });
    await runWithLogContext({ correlationId: "c-1", traceId: "t".repeat(32) }, async () => {
      logger.info("first");
      await new Promise((resolve) => setImmediate(resolve));
      addToLogContext({ appId: "app_1", companyId: 7 });
      logger.info("after an await", { companyId: 8 });
    });
    logger.info("outside");
    assert.equal(
      lines.map(({ msg, correlationId, traceId, appId, companyId }) => ({
        msg,
        correlationId,
        traceId,
        appId,
        companyId,
      })),
      [
        { msg: "first", correlationId: "c-1", traceId: "t".repeat(32), appId: undefined, companyId: undefined },
        { msg: "after an await", correlationId: "c-1", traceId: "t".repeat(32), appId: "app_1", companyId: 8 },
        { msg: "outside", correlationId: undefined, traceId: undefined, appId: undefined, companyId: undefined },
      ],
    );
  },
);

Logger(
  "the asynchronous destination loses nothing when the process exits at once: info on stdout, errors on stderr",
  () => {
    const program = `import("./src/runtime/logger.ts").then(({ createLogger }) => {
    const logger = createLogger({});
    for (let i = 0; i < 2000; i++) logger.info("line", { i, secret: "s" });
    logger.error("last", { i: 2000 });
    process.exit(0);
  });`;
    const child = spawnSync(process.execPath, [...sourceLoaderFlags, "-e", program], {
      cwd: new URL("../..", import.meta.url).pathname,
      encoding: "utf8",
      timeout: 60_000,
    });
    const out = child.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const err = child.stderr
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.is(out.length, 2000);
    assert.equal(
      out.map((line) => line["i"]),
      Array.from({ length: 2000 }, (_, i) => i),
    );
    assert.ok(out.every((line) => line["secret"] === "[redacted]" && line["level"] === "info"));
    assert.equal(
      err.map((line) => [line["msg"], line["level"]]),
      [["last", "error"]],
    );
  },
);

Logger("a line on stdout is written while the process runs on, without waiting for 4 KB of others", async () => {
  // The child logs one short line and waits; the line must reach the pipe before the child gives up (exit 3).
  const program = `import("./src/runtime/logger.ts").then(({ createLogger }) => {
    createLogger({}).info("alone", { n: 1 });
    setTimeout(() => { process.stderr.write("gave up"); process.exit(3); }, 20_000);
  });`;
  const child = spawn(process.execPath, [...sourceLoaderFlags, "-e", program], {
    cwd: new URL("../..", import.meta.url).pathname,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string | undefined>((resolve) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    child.once("exit", () => resolve(undefined));
  });
  const exitCode = child.exitCode;
  child.kill();
  assert.is(exitCode, null, stderr);
  const parsed = JSON.parse(line!) as Record<string, unknown>;
  assert.is(parsed["msg"], "alone");
  assert.is(parsed["n"], 1);
  assert.is(parsed["level"], "info");
});

Logger("fields of primitives are written as they are; a secret-named one, or any nesting, is walked", () => {
  const flat = { method: "GET", status: 200, ms: 1.5, cached: true, none: null, gone: undefined };
  assert.is(redact(flat), flat);
  assert.equal(redact({ status: 200, token: "t" }), { status: 200, token: "[redacted]" });
  assert.equal(redact({ status: 200, nested: { password: "p" } }), { status: 200, nested: { password: "[redacted]" } });
});

Logger.run();
