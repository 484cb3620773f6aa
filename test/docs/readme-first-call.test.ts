// The README's first call, as a partner runs it: its shell block, taken from README.md as written, read against a
// started program whose front is on a free port (never 8080) with the demo world provisioned and demo.json written:
// it must read the front's address from demo.json (`baseUrl`), mint a sandbox token and answer the merchant's first
// two items. A README that hard-codes a port, or names a field demo.json does not have, fails here.
import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { demoFilePath, provisionDemo } from "../../src/demo/provision-demo.js";
import { systemClock } from "../../src/runtime/clock.js";
import { createLogger } from "../../src/runtime/logger.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const FirstCall = suite("docs/readme-first-call");
const root = resolve(import.meta.dirname, "../..");
let test: TestApp;
let workDir = "";

FirstCall.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false });
  await provisionDemo({
    config: test.config,
    logger: createLogger({ level: "warn", write: () => undefined }),
    control: test.app.control.sql,
    regionDatabases: test.app.regionDatabases,
  });
  // A folder laid out as the repository is after a start: demo.json under .data/.
  workDir = await mkdtemp(join(tmpdir(), "pa-readme-"));
  await mkdir(join(workDir, ".data"));
  await copyFile(demoFilePath(test.config), join(workDir, ".data", "demo.json"));
});
FirstCall.after(async () => {
  await test?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** The ```sh block of the README's "The first call" section, as written. */
async function firstCallBlock(): Promise<string> {
  const readme = await readFile(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## The first call"));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, "the first call has a sh block");
  return block![1]!;
}

/** Runs `script` with bash in `cwd` (every command must succeed); its stdout and stderr. */
function bash(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    // The Node running the tests is first on PATH: the block's `node` is a Node the project supports.
    const path = `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`;
    const child = spawn("bash", ["-c", `set -euo pipefail\n${script}`], { cwd, env: { PATH: path } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

FirstCall("the block reads the front's address from demo.json and names no port of its own", async () => {
  const block = await firstCallBlock();
  assert.match(block, 'require("./.data/demo.json")');
  assert.match(block, "d.baseUrl");
  assert.not.match(block, /:\d{2,5}\b/, "no port written in the block");
  assert.not.match(block, "localhost");
  assert.not.match(block, "127.0.0.1");
});

FirstCall("run as written against a front on a free port: a token, then the merchant's first two items", async () => {
  assert.is.not(new URL(test.base).port, "8080");
  const ran = await bash(await firstCallBlock(), workDir);
  assert.is(ran.code, 0, ran.stderr);
  const answer = JSON.parse(ran.stdout) as { items?: Array<{ id: unknown; name: unknown }> };
  assert.ok(Array.isArray(answer.items), ran.stdout);
  assert.ok(answer.items!.length > 0 && answer.items!.length <= 2, ran.stdout);
  for (const item of answer.items!) assert.ok(item.id !== undefined && typeof item.name === "string", ran.stdout);
});

FirstCall.run();
