// The internal port: the five services over connect-node, gRPC / gRPC-Web / Connect on HTTP/2 cleartext (h2c) and
// HTTP/1.1 on one port. Each connection is routed by sniffing the HTTP/2 connection preface (RFC 9113 section 3.4).
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import type { AddressInfo, Socket } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "../runtime/logger.js";
import { closeGracefully, listen, trackSockets } from "../runtime/http-shutdown.js";

/** Every HTTP/2 connection opens with this preface; HTTP/1.x requests open with a method name, never "PRI ". */
const h2Preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface InternalServerOptions {
  routes: (router: ConnectRouter) => void;
  logger: Logger;
}

export interface InternalServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets calls in flight finish for up to `graceMs`, then closes every connection. */
  close(graceMs: number): Promise<void>;
}

export function createInternalServer(options: InternalServerOptions): InternalServer {
  const handler = connectNodeAdapter({ routes: options.routes });
  const h1 = http.createServer(handler);
  const h2 = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const tcp = net.createServer((socket) => routeBySniffing(socket, h1, h2, options.logger));
  const sockets = trackSockets(tcp);

  return {
    listen: (port, host) => listen(tcp, port, host),
    close: (graceMs) =>
      closeGracefully(tcp, sockets, graceMs, () => {
        h1.closeIdleConnections();
        for (const session of sessions) session.close();
      }),
  };
}

/** Reads just enough of a new connection to tell HTTP/2 from HTTP/1.1, puts it back, and hands the socket over. */
function routeBySniffing(socket: Socket, h1: http.Server, h2: http2.Http2Server, logger: Logger): void {
  let seen = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    seen = Buffer.concat([seen, chunk]);
    const prefix = h2Preface.subarray(0, Math.min(seen.length, h2Preface.length));
    const couldBeH2 = seen.subarray(0, prefix.length).equals(prefix);
    if (couldBeH2 && seen.length < h2Preface.length) return; // wait for the rest of the preface
    socket.off("data", onData);
    socket.off("error", onError);
    socket.pause();
    socket.unshift(seen);
    if (couldBeH2) {
      // node:http2 feeds bytes already buffered on the socket to its session on the next tick; resuming here
      // would emit them as 'data' to nobody and lose the preface.
      h2.emit("connection", socket);
    } else {
      h1.emit("connection", socket);
      socket.resume();
    }
  };
  const onError = (error: Error) => {
    logger.debug("internal connection failed before its protocol was known", { error: error.message });
    socket.destroy();
  };
  socket.on("data", onData);
  socket.on("error", onError);
}
