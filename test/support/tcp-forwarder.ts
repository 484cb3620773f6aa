// A TCP forwarder: listens on one address and pipes each connection to a target. The topology test's namespaces
// reach the host's PostgreSQL and Redis through it, since those listen on 127.0.0.1 only (and are not reconfigured).
// The fault tests freeze it: it stops reading and forwarding with every connection left open, as a partitioned
// network or a frozen host does (nothing refused, nothing closed, nothing answered). `silenceOpen` freezes only the
// connections already open and forwards new ones: a connection lost without a reset (NAT state dropped, a host
// gone) while the server itself is reachable.
import { createServer, connect, type Socket } from "node:net";

export interface TcpForwarder {
  port: number;
  close(): Promise<void>;
  /** Stops reading and forwarding in both directions; connections stay open, new ones are accepted and left waiting. */
  freeze(): void;
  /** Forwards again, what was held first. */
  thaw(): void;
  /** Stops forwarding on the connections open now, leaving them open; new connections are forwarded as usual. */
  silenceOpen(): void;
  /** How many connections it has accepted so far. */
  readonly accepted: number;
}

/** Forwards connections on `address` (a free port) to `target`; a failure on either side closes both. */
export async function startTcpForwarder(
  address: string,
  target: { host: string; port: number },
): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => {
        sockets.delete(socket);
        pairs.delete(pair);
      });
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    if (frozen) hold(pair);
    else link(pair);
  });
  const link = ([client, upstream]: [Socket, Socket]) => {
    client.pipe(upstream).pipe(client);
  };
  const hold = ([client, upstream]: [Socket, Socket]) => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, address, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    freeze() {
      frozen = true;
      for (const pair of pairs) hold(pair);
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) link(pair);
    },
    silenceOpen() {
      for (const pair of pairs) hold(pair);
    },
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
