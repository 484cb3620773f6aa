// The client-side deadline on a PostgreSQL connection: a connection that was sent something and has received
// nothing back for replyMs is destroyed, failing its statements (ETIMEDOUT: 503 server.database_unavailable) and
// freeing its place in the pool. The server's statement_timeout cannot do this when the server, or the path to it,
// stops answering with the TCP connection still open (a partition, a frozen host, a stopped proxy): partner calls
// waited 74 s, the whole outage (issue 27). TCP keep-alive does not either, since a frozen process's kernel still
// answers its probes. In plain text a reply counts as complete at its ReadyForQuery, so one that stalls half-way is
// given up too; under TLS any byte received counts as the answer (see watchReplies).
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
  holdEarlyFailure(socket);
  watchReplies(socket, deadline.replyMs);
  failUnansweredClose(socket);
  return socket;
}

/**
 * Holds the socket's `error` (and the `close` after it) until someone listens for errors, then emits them. postgres.js
 * attaches its listeners only after an await on this socket; a connect that fails at once (ENETUNREACH, EINVAL: a
 * route that drops everything, an interface gone) emits its error on the next tick, ahead of that await when the
 * connect runs in a timer (postgres.js's reconnect): an unhandled `error` that ended the process (a data role cut
 * off by bench:chaos's partition died so). The connect itself starts at once as before, so a connection that does not
 * fail at once behaves exactly as without this; the hold ends as soon as an `error` listener is added.
 */
function holdEarlyFailure(socket: Socket): void {
  const held: Array<{ event: "error" | "close"; args: unknown[] }> = [];
  const emit = socket.emit as (this: Socket, event: string | symbol, ...args: unknown[]) => boolean;
  socket.emit = function holdingEmit(this: Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (socket.listenerCount("error") === 0 && (event === "error" || (event === "close" && held.length > 0))) {
      held.push({ event, args });
      return true;
    }
    return emit.call(this, event, ...args);
  } as Socket["emit"];
  const onListener = (event: string | symbol) => {
    if (event !== "error") return;
    socket.off("newListener", onListener);
    socket.emit = emit;
    // Emitted before the listener is added, and postgres.js adds its `close` listener right after: replay a tick later.
    if (held.length > 0)
      process.nextTick(() => {
        for (const { event: name, args } of held) emit.call(socket, name, ...args);
      });
  };
  socket.on("newListener", onListener);
}

/**
 * A peer that closes before sending a single byte is a connection error (ECONNRESET), not a clean close. PostgreSQL
 * always answers a startup message (authentication, or an error such as 57P03) before it closes; what closes
 * unanswered is a proxy with nowhere to send the connection: HAProxy in front of Patroni while no node passes its
 * primary check, during a failover (docs/deployment.md). postgres.js takes a clean close during startup for a
 * reason to reconnect, its first query still waiting, and reconnected without end: calls hung until a primary was
 * back (10 s in the HA test's node loss). An error fails that query instead: 503 server.database_unavailable.
 */
function failUnansweredClose(socket: Socket): void {
  let answered = false;
  socket.once("data", () => {
    answered = true;
  });
  socket.once("end", () => {
    if (answered || socket.destroyed) return;
    const error: NodeJS.ErrnoException = new Error("PostgreSQL connection closed by the peer before any answer");
    error.code = "ECONNRESET";
    socket.destroy(error);
  });
}

/** The SSLRequest message (length 8, code 80877103): what follows it on this socket is TLS, unreadable here. */
const sslRequest = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** Whether `tail` (the last six bytes received) is a ReadyForQuery message: 'Z', length 5, a transaction status. */
function endsWithReadyForQuery(tail: Buffer): boolean {
  return (
    tail.length === 6 &&
    tail[0] === 0x5a &&
    tail.readUInt32BE(1) === 5 &&
    (tail[5] === 0x49 || tail[5] === 0x54 || tail[5] === 0x45) // 'I', 'T', 'E'
  );
}

/**
 * Destroys `socket` when something written waits longer than `replyMs` for its reply. In plain text the reply is
 * complete at its ReadyForQuery message (PostgreSQL protocol, section 55.2): until then every byte received only
 * restarts the wait, so a reply that starts and then stalls (a server frozen mid-result) is given up too. Once the
 * connection asks for TLS, the bytes are ciphertext: any byte received then answers what was written before it.
 * Bytes received while nothing waits (a notice, a notification) change nothing.
 */
export function watchReplies(socket: Socket, replyMs: number): void {
  // When the wait for the oldest unanswered write began (or last saw progress), or undefined when nothing waits.
  let waitingSince: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let encrypted = false;
  let receivedAny = false;
  let tail = Buffer.alloc(0);
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
    const [chunk] = args;
    // TLS asked for (SSLRequest), or begun at once (sslnegotiation=direct: a handshake record, 0x16, where a startup
    // message's length would begin with 0).
    if (!receivedAny && Buffer.isBuffer(chunk) && (chunk.equals(sslRequest) || chunk[0] === 0x16)) encrypted = true;
    if (waitingSince === undefined) {
      waitingSince = performance.now();
      if (!timer) {
        timer = setTimeout(check, replyMs);
        timer.unref();
      }
    }
    return write(...args);
  }) as Socket["write"];
  socket.on("data", (chunk: Buffer) => {
    receivedAny = true;
    if (encrypted) {
      waitingSince = undefined;
      return;
    }
    tail = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - 6))]);
    tail = tail.subarray(Math.max(0, tail.length - 6));
    if (endsWithReadyForQuery(tail)) waitingSince = undefined;
    else if (waitingSince !== undefined) waitingSince = performance.now();
  });
  socket.once("close", () => clearTimeout(timer));
}

function timedOut(what: string, ms: number): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${what}: no answer within ${ms} ms`);
  error.code = "ETIMEDOUT";
  return error;
}
