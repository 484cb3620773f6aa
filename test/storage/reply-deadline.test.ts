// src/storage/reply-deadline.ts on real sockets: a peer that accepts and never answers is given up after the reply
// deadline (ETIMEDOUT, the socket destroyed); one that answers keeps the connection however long it stays idle
// afterwards; a refused connection is the socket's own error event, as postgres.js expects of its socket.
import { createServer, type Server, type Socket } from "node:net";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { openWatchedSocket } from "../../src/storage/reply-deadline.js";

const Deadline = suite("storage/reply-deadline");

async function listening(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

const outcome = (socket: Socket) =>
  new Promise<{ code: string | undefined; destroyed: boolean }>((resolve) => {
    socket.once("error", (error: NodeJS.ErrnoException) => resolve({ code: error.code, destroyed: socket.destroyed }));
  });

Deadline("a peer that never answers: destroyed with ETIMEDOUT after the reply deadline", async () => {
  const held: Socket[] = [];
  const { server, port } = await listening((socket) => held.push(socket));
  try {
    const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 150 });
    const ended = outcome(socket);
    socket.write("query");
    assert.equal(await ended, { code: "ETIMEDOUT", destroyed: true });
  } finally {
    for (const socket of held) socket.destroy();
    server.close();
  }
});

Deadline(
  "a peer that answers: kept, however long it then stays idle; a later unanswered write is given up",
  async () => {
    const { server, port } = await listening((socket) => socket.once("data", () => socket.write("answer")));
    try {
      const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 150 });
      socket.write("query");
      await new Promise((resolve) => socket.once("data", resolve));
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.is(socket.destroyed, false, "idle after its answer: kept");
      const ended = outcome(socket);
      socket.write("second query");
      assert.equal(await ended, { code: "ETIMEDOUT", destroyed: true });
    } finally {
      server.close();
    }
  },
);

Deadline("a refused connection is the socket's error event, never a throw", async () => {
  const { server, port } = await listening(() => {});
  await new Promise((resolve) => server.close(resolve));
  const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 150 });
  socket.write("startup");
  assert.is((await outcome(socket)).code, "ECONNREFUSED");
});

Deadline.run();
