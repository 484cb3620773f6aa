// src/storage/reply-deadline.ts on real sockets: a peer that accepts and never answers is given up after the reply
// deadline (ETIMEDOUT, the socket destroyed); one whose reply ends (ReadyForQuery, even split across chunks) keeps
// the connection however long it stays idle afterwards; one whose reply starts and stalls is given up; after an
// SSLRequest any byte is the answer; a refused connection is the socket's own error event, as postgres.js expects;
// a peer that closes before answering anything (HAProxy with no primary) is an ECONNRESET error, one that answered
// and closed a plain close; a connect that fails at once reaches the listeners postgres.js attaches after an await.
import { createServer, type Server, type Socket } from "node:net";
import postgres from "postgres";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { openWatchedSocket } from "../../src/storage/reply-deadline.js";

const Deadline = suite("storage/reply-deadline");

async function listening(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A reply as PostgreSQL ends one: CommandComplete ("SELECT 1"), then ReadyForQuery, idle. */
const commandComplete = Buffer.concat([Buffer.from([0x43, 0, 0, 0, 13]), Buffer.from("SELECT 1\0")]);
const readyForQuery = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
const wholeReply = Buffer.concat([commandComplete, readyForQuery]);

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
    const { server, port } = await listening((socket) => socket.once("data", () => socket.write(wholeReply)));
    try {
      // A deadline well above a loopback answer's time on a loaded machine; then idle for longer than it.
      const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 1000 });
      const errors: string[] = [];
      const early = (error: NodeJS.ErrnoException) => errors.push(String(error.code));
      socket.on("error", early);
      socket.write("query");
      await new Promise((resolve) => socket.once("data", resolve));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(errors, [], "no deadline error");
      assert.is(socket.destroyed, false, "idle after its answer: kept");
      socket.off("error", early);
      const ended = outcome(socket);
      socket.write("second query");
      assert.equal(await ended, { code: "ETIMEDOUT", destroyed: true });
    } finally {
      server.close();
    }
  },
);

Deadline("a reply that starts and then stalls (no ReadyForQuery): destroyed with ETIMEDOUT", async () => {
  const held: Socket[] = [];
  const { server, port } = await listening((socket) => {
    held.push(socket);
    socket.once("data", () => socket.write(commandComplete));
  });
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
  "a reply in chunks, its ReadyForQuery split between two, each within the deadline: kept once it ends",
  async () => {
    const { server, port } = await listening((socket) =>
      socket.once("data", () => {
        socket.write(Buffer.concat([commandComplete, readyForQuery.subarray(0, 3)]));
        setTimeout(() => socket.write(readyForQuery.subarray(3)), 100);
      }),
    );
    try {
      // A deadline well above the 100 ms between the chunks, so a loaded machine's late timer cannot make the gap
      // look overdue; then idle for longer than the deadline.
      const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 1000 });
      const errors: string[] = [];
      socket.on("error", (error: NodeJS.ErrnoException) => errors.push(String(error.code)));
      socket.write("query");
      await new Promise((resolve) => socket.once("data", resolve));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(errors, [], "no deadline error");
      assert.is(socket.destroyed, false, "its reply ended: kept while idle");
      socket.destroy();
    } finally {
      server.close();
    }
  },
);

Deadline(
  "after an SSLRequest the bytes are TLS: any byte received is the answer, and the idle socket is kept",
  async () => {
    const { server, port } = await listening((socket) =>
      socket.on("data", (chunk: Buffer) => socket.write(chunk.length === 8 ? "S" : "\x17\x03\x03 ciphertext")),
    );
    try {
      const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 150 });
      const errors: string[] = [];
      socket.on("error", (error: NodeJS.ErrnoException) => errors.push(String(error.code)));
      socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]));
      await new Promise((resolve) => socket.once("data", resolve));
      socket.write("handshake");
      await new Promise((resolve) => socket.once("data", resolve));
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(errors, [], "no deadline error");
      assert.is(socket.destroyed, false);
      socket.destroy();
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

/** Runs `body` with uncaught exceptions collected instead of ending the process; returns what was caught. */
async function catchingUncaught(body: () => Promise<void>): Promise<unknown[]> {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  try {
    await body();
  } finally {
    process.off("uncaughtException", onUncaught);
  }
  return uncaught;
}

// TCP to a multicast address: Linux refuses the route inside connect() itself, as it does under a blackhole route or
// with the interface gone (bench:chaos's partition).
const unroutable = { host: "224.0.0.1", port: 5432 };

Deadline(
  "a connect that fails at once (ENETUNREACH) reaches listeners attached after an await in a timer, as postgres.js's reconnect attaches them: never an unhandled error",
  async () => {
    let seen: { code: string | undefined; hadError: boolean } | undefined;
    const uncaught = await catchingUncaught(async () => {
      seen = await new Promise((resolve) => {
        setTimeout(() => {
          void Promise.resolve(openWatchedSocket(unroutable, { replyMs: 1000 })).then((socket) => {
            let code: string | undefined;
            socket.on("error", (error: NodeJS.ErrnoException) => {
              code = error.code;
            });
            socket.on("close", (hadError: boolean) => resolve({ code, hadError }));
            socket.write("startup");
          });
        }, 1);
      });
    });
    assert.equal(seen, { code: "ENETUNREACH", hadError: true });
    assert.equal(uncaught, [], "nothing uncaught");
  },
);

Deadline(
  "postgres.js on a watched socket whose connect fails at once rejects the query; the process lives",
  async () => {
    let code: unknown;
    const uncaught = await catchingUncaught(async () => {
      const sql = postgres(`postgres://postgres@${unroutable.host}:${unroutable.port}/postgres`, {
        max: 1,
        connect_timeout: 2,
        ...{ socket: () => openWatchedSocket(unroutable, { replyMs: 1000 }) },
      });
      let timer: NodeJS.Timeout | undefined;
      try {
        // Without the hold the error went unhandled and its close unheard: the query never settled.
        const hung = new Promise((resolve) => {
          timer = setTimeout(resolve, 10_000);
        }).then(() => "never settled");
        code = await Promise.race([sql`select 1`.then(() => "answered"), hung]);
      } catch (error) {
        code = (error as NodeJS.ErrnoException).code;
      } finally {
        clearTimeout(timer);
        await sql.end({ timeout: 0 });
      }
    });
    assert.is(code, "ENETUNREACH");
    assert.equal(uncaught, [], "nothing uncaught");
  },
);

Deadline(
  "a peer that closes before answering a byte (HAProxy with no server up) is the socket's error ECONNRESET",
  async () => {
    // HAProxy in front of Patroni closes a connection at once while no node passes its primary check (a failover).
    // A FIN at once, and whatever the client sends is read (unread bytes would make the close an RST, an error).
    const { server, port } = await listening((socket) => {
      socket.on("data", () => {});
      socket.end();
    });
    try {
      const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 60_000 });
      socket.on("data", () => {});
      const errors: string[] = [];
      socket.on("error", (error: NodeJS.ErrnoException) => errors.push(String(error.code)));
      socket.write("startup");
      const hadError = await new Promise<boolean>((resolve) => socket.once("close", resolve));
      assert.is(hadError, true);
      assert.equal(errors, ["ECONNRESET"]);
    } finally {
      server.close();
    }
  },
);

Deadline("a peer that answers and then closes is a close, not an error (a server's own goodbye)", async () => {
  const { server, port } = await listening((socket) => socket.once("data", () => socket.end(wholeReply)));
  try {
    const socket = openWatchedSocket({ host: "127.0.0.1", port }, { replyMs: 60_000 });
    const errors: string[] = [];
    socket.on("error", (error: NodeJS.ErrnoException) => errors.push(String(error.code)));
    socket.on("data", () => {});
    socket.write("startup");
    const hadError = await new Promise<boolean>((resolve) => socket.once("close", resolve));
    assert.is(hadError, false);
    assert.equal(errors, []);
  } finally {
    server.close();
  }
});

Deadline.run();
