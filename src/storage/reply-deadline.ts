// The client-side deadline on a PostgreSQL connection: a connection that was sent something and has received
// nothing back for replyMs is destroyed, failing its statements (ETIMEDOUT: 503 server.database_unavailable) and
// freeing its place in the pool. The server's statement_timeout cannot do this when the server, or the path to it,
// stops answering with the TCP connection still open (a partition, a frozen host, a stopped proxy): partner calls
// waited 74 s, the whole outage (issue 27). TCP keep-alive does not either, since a frozen process's kernel still
// answers its probes. The rule looks at bytes only, so it holds under TLS as well.
import { connect, type Socket } from "node:net";

export interface ReplyDeadline {
  /** A connection waiting for a reply (written to after the last byte it received) gives up after this long. */
  replyMs: number;
}

/**
 * Opens a socket to `target` (TCP, or a Unix socket's path) for postgres.js's `socket` option, destroyed with an
 * ETIMEDOUT error when a reply is overdue (see above). Returned while still connecting, as postgres.js's own socket
 * would be: what it writes first waits in the socket until the connection is made, a refused or failed connection
 * reaches postgres.js as the socket's `error` and `close` (so its reconnect and error paths are the usual ones),
 * and its connect_timeout, started as soon as it has the socket, bounds the TCP connect with the startup.
 */
export function openWatchedSocket(
  target: { host: string; port: number } | { path: string },
  deadline: ReplyDeadline,
): Socket {
  const socket = "path" in target ? connect(target.path) : connect(target.port, target.host);
  // postgres.js reads `host` off its socket for TLS's server name (SNI and the certificate's name check).
  if ("host" in target) Object.assign(socket, { host: target.host, port: target.port });
  watchReplies(socket, deadline.replyMs);
  return socket;
}

/** Destroys `socket` when, after a write, nothing has been read for `replyMs`. */
export function watchReplies(socket: Socket, replyMs: number): void {
  // When the oldest unanswered write was made, or undefined when nothing written is waiting for an answer.
  let waitingSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    timer = undefined;
    if (waitingSince === undefined || socket.destroyed) return;
    const overdue = waitingSince + replyMs - performance.now();
    if (overdue > 0) {
      timer = setTimeout(check, overdue);
      timer.unref();
      return;
    }
    socket.destroy(timedOut("PostgreSQL reply", replyMs));
  };
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    if (waitingSince === undefined) {
      waitingSince = performance.now();
      if (!timer) {
        timer = setTimeout(check, replyMs);
        timer.unref();
      }
    }
    return write(...args);
  }) as Socket["write"];
  // Any byte received answers what was written before it; a reply still arriving keeps the connection alive.
  socket.on("data", () => {
    waitingSince = undefined;
  });
  socket.once("close", () => clearTimeout(timer));
}

function timedOut(what: string, ms: number): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${what}: no answer within ${ms} ms`);
  error.code = "ETIMEDOUT";
  return error;
}
