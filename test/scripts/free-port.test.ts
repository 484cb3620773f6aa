// scripts/free-port.mjs: a port below the kernel's ephemeral range (so no outgoing connection takes it between the
// pick and the bind), that a server can then bind, never one something already listens on, and never one another
// living process was given (its claim file); a dead process's claim is taken over.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { freePort } from "../../scripts/free-port.mjs";

const FreePort = suite("scripts/free-port");

const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

FreePort("20000-32767, below the ephemeral range, and bindable", async () => {
  for (let i = 0; i < 20; i++) {
    const port = await freePort();
    assert.ok(port >= 20_000 && port <= 32_767, String(port));
    const server = await listen(port);
    await new Promise((resolve) => server.close(resolve));
  }
});

FreePort("never a port something listens on", async () => {
  // Hold a good share of the range, then pick: no pick may land on a held port.
  const held = new Set<number>();
  const servers: Server[] = [];
  for (let port = 20_000; port < 23_000; port++) {
    const server = await listen(port).catch(() => undefined);
    if (server) {
      servers.push(server);
      held.add(port);
    }
  }
  try {
    for (let i = 0; i < 50; i++) assert.not.ok(held.has(await freePort()));
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
});

FreePort("never a port another living process claimed; a dead process's claim is taken over", async () => {
  // In a directory of its own (TMPDIR of a child process), so the suites running beside it keep theirs.
  const root = await mkdtemp(join(tmpdir(), "free-port-"));
  const dir = join(root, "partner-api-ports");
  mkdirSync(dir);
  const living = spawn("sleep", ["60"], { stdio: "ignore" });
  const gone = spawn("true", [], { stdio: "ignore" });
  await once(gone, "exit");
  try {
    // Most of the range claimed by a living process, every tenth port by one that has exited.
    const stale = new Set<number>();
    for (let port = 20_000; port <= 32_767; port++) {
      const dead = port % 10 === 0;
      writeFileSync(join(dir, String(port)), String(dead ? gone.pid : living.pid));
      if (dead) stale.add(port);
    }
    const script = `import { freePort } from ${JSON.stringify(new URL("../../scripts/free-port.mjs", import.meta.url).href)};
      const ports = [];
      for (let i = 0; i < 20; i++) ports.push(await freePort());
      console.log(JSON.stringify({ pid: process.pid, ports }));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, TMPDIR: root },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const [code] = await once(child, "exit");
    assert.is(code, 0);
    const { ports } = JSON.parse(out) as { pid: number; ports: number[] };
    assert.is(new Set(ports).size, 20, "one process is never given one port twice");
    for (const port of ports) assert.ok(stale.has(port), `${port} was claimed by a living process`);
    // The child's claims went with it when it exited; the living process's stayed.
    for (const port of ports)
      assert.not.ok(existsSync(join(dir, String(port))), `${port}'s claim outlived its process`);
    assert.is(readFileSync(join(dir, "20001"), "utf8"), String(living.pid));
  } finally {
    living.kill();
    await rm(root, { recursive: true, force: true });
  }
});

FreePort.run();
