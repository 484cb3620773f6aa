// Listening and graceful shutdown for node:http and node:http2 servers: stop accepting, let requests in flight
// finish within a grace period, then close what is left.
import type { Server as NetServer, Socket, AddressInfo } from "node:net";
import type { Server as HttpServer } from "node:http";

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
 * The request handlers still running. A handler outlives its connection when the client goes away mid-request (a
 * load generator stopping, a partner's timeout): it still runs to its end, database work included. Shutdown waits
 * for them before the pools close; postgres.js's `end()` lets a query still queued for a free connection open a
 * new one after the pool has ended, and that connection then keeps the process alive.
 */
export interface WorkInFlight {
  /** Counts `work` as running until it settles (either way). */
  track(work: Promise<unknown>): void;
  /** Resolves once nothing tracked is running (at once when nothing is). */
  idle(): Promise<void>;
}

export function workInFlight(): WorkInFlight {
  let running = 0;
  const waiting: Array<() => void> = [];
  const settled = () => {
    running -= 1;
    if (running === 0) for (const resolve of waiting.splice(0)) resolve();
  };
  return {
    track(work) {
      running += 1;
      work.then(settled, settled);
    },
    idle: () => (running === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))),
  };
}

/**
 * Stops accepting connections and resolves once every connection is gone and the `work` in flight has settled.
 * `drain` asks open connections to finish (HTTP/1.1 idle sockets closed, HTTP/2 sessions sent GOAWAY); after
 * `graceMs` the remaining sockets are destroyed and work still running is no longer waited for.
 */
export function closeGracefully(
  server: NetServer,
  sockets: Set<Socket>,
  graceMs: number,
  drain: () => void,
  work?: WorkInFlight,
): Promise<void> {
  return new Promise((resolve) => {
    let graceOver: () => void = () => {};
    const grace = new Promise<void>((over) => (graceOver = over));
    const timer = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
      graceOver();
    }, graceMs);
    timer.unref();
    // A connection busy at the first drain becomes idle when its request finishes; drain again until all are gone.
    const again = setInterval(drain, 50);
    again.unref();
    const closed = server.listening ? new Promise<void>((done) => server.close(() => done())) : Promise.resolve();
    void Promise.all([closed, Promise.race([work?.idle(), grace])]).then(() => {
      clearTimeout(timer);
      clearInterval(again);
      resolve();
    });
    drain();
  });
}

/** What each of our HTTP/1.1 listeners (front, consent site, console site) exposes to the app's start and stop. */
export interface HttpListener {
  listen(port: number, host: string): Promise<AddressInfo>;
  close(graceMs: number): Promise<void>;
}

/**
 * An HTTP/1.1 server made ready to serve: slow-loris bounds (a client gets 10 s for its headers and 30 s for the
 * whole request), its sockets tracked, and listen/close with the graceful shutdown above. One place for the three
 * listeners, which had each spelled it out. The server's request listener passes each request's handling to
 * `track`, so that close waits for handlers whose client has already gone.
 */
export function servedGracefully(server: HttpServer): HttpListener & Pick<WorkInFlight, "track"> {
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const sockets = trackSockets(server);
  const work = workInFlight();
  return {
    listen: (port, host) => listen(server, port, host),
    close: (graceMs) => closeGracefully(server, sockets, graceMs, () => server.closeIdleConnections(), work),
    track: (handling) => work.track(handling),
  };
}
