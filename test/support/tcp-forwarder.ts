// A TCP forwarder: listens on one address and pipes each connection to a target. The topology test's namespaces
// reach the host's PostgreSQL and Redis through it, since those listen on 127.0.0.1 only (and are not reconfigured).
// The fault tests freeze it: it stops reading and forwarding with every connection left open, as a partitioned
// network or a frozen host does (nothing refused, nothing closed, nothing answered).
import { createServer, connect, type Socket } from "node:net";

export interface TcpForwarder {
  port: number;
  close(): Promise<void>;
  /** Stops reading and forwarding in both directions; connections stay open, new ones are accepted and left waiting. */
  freeze(): void;
  /** Forwards again, what was held first. */
  thaw(): void;
}

/** Forwards connections on `address` (a free port) to `target`; a failure on either side closes both. */
export async function startTcpForwarder(
  address: string,
  target: { host: string; port: number },
): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  const server = createServer((client) => {
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
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
