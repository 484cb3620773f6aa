// A partner's webhook receiver on a real port: records every request and verifies each with the Standard Webhooks
// npm package (`standardwebhooks`), as a partner would, with the endpoint's secret once it is known. Hostile modes
// answer as a misbehaving receiver does: never, with headers trickling, with a huge body, or with a redirect.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Webhook } from "standardwebhooks";

export type ReceiverMode = "ok" | "fail" | "hang" | "slow-headers" | "huge-body" | "redirect";

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The payload when `standardwebhooks` verified the signature with the receiver's secret; undefined otherwise. */
  verified: { type: string; timestamp: string; data: Record<string, unknown> } | undefined;
  /** When its body had arrived (epoch milliseconds, sub-millisecond: performance.timeOrigin + performance.now()). */
  receivedAt: number;
  /** The address the request came from: which worker sent it, where each has an address of its own. */
  from: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  mode: ReceiverMode;
  /** The whsec_ secret(s) to verify with (a rotation's overlap verifies with either). */
  secrets: string[];
  /** Called with each request once it has arrived (and been verified), before it is answered. */
  onReceived: ((delivery: ReceivedWebhook) => void) | undefined;
  /** Requests held unanswered (mode "hang") whose connection the sender still keeps open. */
  held: number;
  /** Called when the sender closed the connection of a held request (its attempt cut at its deadline, or ended). */
  onReleased: (() => void) | undefined;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** Listens on `listen.host` (127.0.0.1 unless given) and `listen.port` (a free one unless given). */
export async function startReceiver(
  mode: ReceiverMode = "ok",
  path = "/hooks",
  listen: { host?: string; port?: number } = {},
): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const sockets = new Set<Socket>();
  let waiters: Array<() => void> = [];
  const receiver: Receiver = {
    url: "",
    port: 0,
    received,
    mode,
    secrets: [],
    onReceived: undefined,
    held: 0,
    onReleased: undefined,
    waitFor(count, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.length} of ${count} webhooks arrived`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters = waiters.filter((waiter) => waiter !== check);
          resolve(received.slice(0, count));
        };
        waiters.push(check);
        check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const receivedAt = performance.timeOrigin + performance.now();
      const body = Buffer.concat(chunks).toString("utf8");
      let verified: ReceivedWebhook["verified"];
      for (const secret of receiver.secrets) {
        try {
          verified = new Webhook(secret).verify(
            body,
            request.headers as Record<string, string>,
          ) as ReceivedWebhook["verified"];
          break;
        } catch {
          // not this secret
        }
      }
      const delivery = {
        headers: request.headers,
        body,
        verified,
        receivedAt,
        from: request.socket.remoteAddress ?? "",
      };
      received.push(delivery);
      receiver.onReceived?.(delivery);
      for (const waiter of [...waiters]) waiter();
      switch (receiver.mode) {
        case "ok":
          return response.writeHead(204).end();
        case "fail":
          return response.writeHead(500, { "content-type": "text/plain" }).end("receiver broke");
        case "hang":
          // Never answers; counted as held until the sender gives up on the connection.
          receiver.held += 1;
          request.socket.once("close", () => {
            receiver.held -= 1;
            receiver.onReleased?.();
          });
          return;
        case "slow-headers": {
          // A status line, then one header byte at a time, never finishing the head.
          response.socket!.write("HTTP/1.1 200 OK\r\nX-Slow: ");
          const drip = setInterval(
            () => (response.socket?.writable ? response.socket.write("a") : clearInterval(drip)),
            100,
          );
          response.socket!.once("close", () => clearInterval(drip));
          return;
        }
        case "huge-body": {
          response.writeHead(200, { "content-type": "text/plain" });
          const block = "x".repeat(64 * 1024);
          let sent = 0;
          const pump = () => {
            while (sent < 1024 && response.write(block)) sent += 1;
            if (sent >= 1024) response.end();
          };
          response.on("drain", pump);
          pump();
          return;
        }
        case "redirect":
          return response.writeHead(302, { location: `${receiver.url}/moved` }).end();
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const host = listen.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port ?? 0, host, resolve);
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://${host.includes(":") ? `[${host}]` : host}:${receiver.port}${path}`;
  return receiver;
}
