// Listening and graceful shutdown for node:http and node:http2 servers: stop accepting, let requests in flight
// finish within a grace period, then close what is left.
import type { Server as NetServer, Socket, AddressInfo } from "node:net";

/** Starts listening and resolves with the bound address (port 0 picks a free port, as tests do). */
export function listen(server: NetServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Tracks open sockets of a server so shutdown can close the idle ones at once and the busy ones after a grace. */
export function trackSockets(server: NetServer): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return sockets;
}

/**
 * Stops accepting connections and resolves once every connection is gone. `drain` asks open connections to finish
 * (HTTP/1.1 idle sockets closed, HTTP/2 sessions sent GOAWAY); after `graceMs` the remaining sockets are destroyed.
 */
export function closeGracefully(server: NetServer, sockets: Set<Socket>, graceMs: number, drain: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, graceMs);
    timer.unref();
    // A connection busy at the first drain becomes idle when its request finishes; drain again until all are gone.
    const again = setInterval(drain, 50);
    again.unref();
    server.close(() => {
      clearTimeout(timer);
      clearInterval(again);
      resolve();
    });
    drain();
  });
}
