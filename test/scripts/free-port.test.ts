// scripts/free-port.mjs: a port below the kernel's ephemeral range (so no outgoing connection takes it between the
// pick and the bind), that a server can then bind, and never one something already listens on.
import { createServer, type Server } from "node:net";
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

FreePort.run();
