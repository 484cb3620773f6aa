// The thread-pool preload of `npm start`: it sets UV_THREADPOOL_SIZE (one thread per core for the RS256 signatures
// plus libuv's four) before anything starts the pool, and an operator's value wins.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { promisify } from "node:util";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";

const ThreadPool = suite("runtime/thread-pool");
const run = promisify(execFile);
const sizeWith = async (env: Record<string, string>) =>
  (
    await run(
      process.execPath,
      [
        "--require",
        "./src/runtime/thread-pool.cjs",
        "-e",
        "process.stdout.write(String(process.env.UV_THREADPOOL_SIZE))",
      ],
      { env: { PATH: process.env["PATH"] ?? "", ...env } },
    )
  ).stdout;

ThreadPool("npm start and npm run dev preload it", async () => {
  const manifest = JSON.parse(await readFile("package.json", "utf8")) as { scripts: Record<string, string> };
  assert.match(
    manifest.scripts["start"]!,
    /^node --enable-source-maps --require \.\/src\/runtime\/thread-pool\.cjs scripts\/run-compiled\.mjs /,
  );
  assert.match(manifest.scripts["dev"]!, /^node --require \.\/src\/runtime\/thread-pool\.cjs /);
});

ThreadPool("unset: one thread per core plus four", async () => {
  assert.is(await sizeWith({}), String(availableParallelism() + 4));
});

ThreadPool("an operator's UV_THREADPOOL_SIZE is kept", async () => {
  assert.is(await sizeWith({ UV_THREADPOOL_SIZE: "3" }), "3");
});

ThreadPool("the pool started after the preload has cores + 4 threads (libuv read the variable it set)", async () => {
  const script =
    "const { pbkdf2 } = require('node:crypto'); const { readdirSync } = require('node:fs'); let n = 0;" +
    "const before = readdirSync('/proc/self/task').length;" +
    "for (let i = 0; i < 32; i++) pbkdf2('a', 'b', 20000, 32, 'sha256', () => { if (++n === 32) process.stdout.write(String(readdirSync('/proc/self/task').length - before)); });";
  const { stdout } = await run(process.execPath, ["--require", "./src/runtime/thread-pool.cjs", "-e", script], {
    env: { PATH: process.env["PATH"] ?? "" },
  });
  assert.is(stdout, String(availableParallelism() + 4));
});

ThreadPool.run();
