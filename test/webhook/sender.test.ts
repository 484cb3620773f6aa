// One delivery attempt (src/webhook/sender.ts) against raw TCP receivers on real ports: a 2xx counts only when its
// answer is complete. A receiver that sends a 200 status line and closes the connection mid-body (a Content-Length
// it never reaches, a chunked body without its last chunk) has failed, and the attempt is retried like a connection
// error; a complete answer, or one whose first responseReadLimit bytes arrived, is a success.
import net, { type AddressInfo, type Socket } from "node:net";
import * as assert from "uvu/assert";
import { responseReadLimit, sendWebhook, type AttemptResult } from "../../src/webhook/sender.js";
import { suite } from "../support/suite.js";

const Sender = suite("webhook/sender");

/** A receiver that reads the request's head and then writes `answer` (each string in turn) and closes, or hangs. */
async function rawReceiver(
  answer: string[],
  then: "close" | "hang" = "close",
): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      if (head.includes("\r\n\r\n")) return;
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      for (const part of answer) socket.write(part);
      if (then === "close") socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function attempt(answer: string[], then: "close" | "hang" = "close"): Promise<AttemptResult> {
  const receiver = await rawReceiver(answer, then);
  try {
    return await sendWebhook({
      url: receiver.url,
      body: '{"type":"webhook.test"}',
      headers: { "webhook-id": "msg_test" },
      timeoutMs: 30_000,
      policy: { allowLoopback: true, privateNetworks: undefined, forbiddenPorts: new Set() },
      resolve: async () => [],
    });
  } finally {
    await receiver.stop();
  }
}

const outcomeOf = ({ outcome, statusCode, excerpt }: AttemptResult) => ({ outcome, statusCode, excerpt });

Sender(
  "a 200 whose body stops short of its Content-Length when the receiver closes is a connection error",
  async () => {
    const result = await attempt([
      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\n",
      "only ten b",
    ]);
    assert.equal(outcomeOf(result), { outcome: "CONNECTION_ERROR", statusCode: 200, excerpt: "only ten b" });
  },
);

Sender("a 200 whose chunked body is cut before its last chunk is a connection error", async () => {
  const result = await attempt([
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
    "5\r\nhello\r\n",
    "40\r\npart",
  ]);
  assert.equal(outcomeOf(result), { outcome: "CONNECTION_ERROR", statusCode: 200, excerpt: "hellopart" });
});

Sender("a status line and a head cut before its end is a connection error with no status", async () => {
  const result = await attempt(["HTTP/1.1 200 OK\r\nContent-Len"]);
  assert.equal(outcomeOf(result), { outcome: "CONNECTION_ERROR", statusCode: undefined, excerpt: "" });
});

Sender("complete answers succeed: Content-Length, chunked, and a body that ends with the connection", async () => {
  assert.equal(outcomeOf(await attempt(["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"])), {
    outcome: "SUCCEEDED",
    statusCode: 200,
    excerpt: "ok",
  });
  assert.equal(
    outcomeOf(await attempt(["HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n", "2\r\nok\r\n0\r\n\r\n"])),
    { outcome: "SUCCEEDED", statusCode: 202, excerpt: "ok" },
  );
  // No Content-Length and not chunked: the body is whatever comes before the close (RFC 9112 §6.3, item 8).
  assert.equal(outcomeOf(await attempt(["HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it"])), {
    outcome: "SUCCEEDED",
    statusCode: 200,
    excerpt: "all of it",
  });
  assert.equal(outcomeOf(await attempt(["HTTP/1.1 204 No Content\r\n\r\n"], "hang")), {
    outcome: "SUCCEEDED",
    statusCode: 204,
    excerpt: "",
  });
});

Sender(
  "a 2xx with more body than the read bound succeeds once the bound is read, without waiting for the rest",
  async () => {
    const result = await attempt(
      ["HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", "y".repeat(responseReadLimit + 10)],
      "hang",
    );
    assert.equal(outcomeOf(result), { outcome: "SUCCEEDED", statusCode: 200, excerpt: "y".repeat(256) });
  },
);

Sender("a 500 cut mid-body stays a failure (a connection error: the answer never completed)", async () => {
  const result = await attempt(["HTTP/1.1 500 Internal Server Error\r\nContent-Length: 50\r\n\r\nbroke"]);
  assert.equal(outcomeOf(result), { outcome: "CONNECTION_ERROR", statusCode: 500, excerpt: "broke" });
});

Sender.run();
