// `npm start` as a process: it starts on its configuration, says where it listens, and on SIGTERM finishes and exits 0;
// a bad configuration stops it with a message naming the variable.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { dropDatabase, freshDatabaseUrl } from "./support/storage.js";

const Main = suite("main");

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = (message: string, timeoutMs = 60_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${message}" line; stdout: ${stdout} stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        const found = stdout.split("\n").find((text) => text.includes(`"msg":"${message}"`));
        if (!found) return;
        clearTimeout(timer);
        child.stdout.off("data", check);
        resolve(JSON.parse(found) as Record<string, unknown>);
      };
      child.stdout.on("data", check);
      check();
    });
  return { child, exited, line, output: () => ({ stdout, stderr }) };
}

Main("starts, serves, and exits 0 after SIGTERM once requests are done", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-main-"));
  const databaseUrl = await freshDatabaseUrl();
  try {
    const process = run({ HOST: "127.0.0.1", PORT: "0", AUTH_PORT: "0", GRPC_PORT: "0", DATA_DIR: dataDir, DATABASE_URL: databaseUrl ?? "" });
    const ready = await process.line("partner API ready");
    const answer = await fetch(`${ready["front"]}/v1/oauth/token`, { method: "POST" });
    assert.is(answer.status, 400);
    const consent = await fetch(`${ready["consent"]}/healthz`);
    assert.is(consent.status, 200);
    process.child.kill("SIGTERM");
    await process.line("stopped");
    assert.is(await process.exited, 0);
  } finally {
    if (databaseUrl) await dropDatabase(databaseUrl);
    await rm(dataDir, { recursive: true, force: true });
  }
});

Main("a bad configuration stops the start with a message naming the variable", async () => {
  const process = run({ PORT: "eighty" });
  assert.is(await process.exited, 2);
  assert.match(process.output().stderr, "PORT");
});

Main.run();
