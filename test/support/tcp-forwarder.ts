// A TCP forwarder: listens on one address and pipes each connection to a target. The topology test's namespaces
// reach the host's PostgreSQL and Redis through it, since those listen on 127.0.0.1 only (and are not reconfigured).
import { createServer, connect, type Socket } from "node:net";

export interface TcpForwarder {
  port: number;
  close(): Promise<void>;
}

/** Forwards connections on `address` (a free port) to `target`; a failure on either side closes both. */
export async function startTcpForwarder(address: string, target: { host: string; port: number }): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, address, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
