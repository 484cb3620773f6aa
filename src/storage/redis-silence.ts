// Replaces a Redis connection that has gone silent. ioredis fails a command after its timeout but keeps the
// connection: one that stops answering without a reset (lost NAT state, a crashed host, a failover that moved the
// address) was kept for ever, every command on it timing out (issue 37: /readyz 503 for 3.5+ minutes while Redis
// was healthy). TCP keepalive cannot see it when the path still acknowledges (a proxy, a NAT box). Redis answers
// each command in well under a millisecond and in order, so a command that waited its whole timeout with not one
// reply received on its connection since it was sent means the connection is silent: it is dropped, and ioredis
// makes a new one (to the primary Sentinel names now, with Sentinel) on its reconnect schedule.
import type { Logger } from "../runtime/logger.js";

/** ioredis's rejection of a command that got no reply within `commandTimeout` (it has no error class of its own). */
const commandTimedOut = "Command timed out";

/** Runs one command through the watch. */
export type WatchedCommand = <T>(command: () => Promise<T>) => Promise<T>;

/** What the watch needs of the client (an ioredis Redis): its connect event, and a drop that reconnects. */
export interface ReconnectingClient {
  on(event: "connect", listener: () => void): unknown;
  disconnect(reconnect: boolean): void;
}

/** Watches `redis`'s commands; the returned function runs each command the store sends. */
export function dropSilentConnections(redis: ReconnectingClient, logger: Logger): WatchedCommand {
  /** Replies (answers and Redis errors alike) received so far: any reply proves the connection is alive. */
  let replies = 0;
  /** Which connection commands go out on: a new one each time ioredis connects. */
  let connection = 0;
  redis.on("connect", () => {
    connection++;
  });
  const dropIfSilent = (sentOn: number, repliesWhenSent: number) => {
    if (sentOn !== connection || replies !== repliesWhenSent) return;
    connection++; // the commands still waiting on it do not drop the next connection
    logger.warn("redis connection silent for a whole command timeout; dropping it and connecting again");
    redis.disconnect(true);
  };
  return async (command) => {
    const sentOn = connection;
    const repliesWhenSent = replies;
    try {
      const result = await command();
      replies++;
      return result;
    } catch (error) {
      if (error instanceof Error && error.message === commandTimedOut) dropIfSilent(sentOn, repliesWhenSent);
      else if (isReply(error)) replies++;
      throw error;
    }
  };
}

/** A Redis error reply (ioredis's ReplyError), which like an answer proves the connection works. */
function isReply(error: unknown): boolean {
  return error instanceof Error && error.name === "ReplyError";
}
