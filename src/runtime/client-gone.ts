// A client that closes its connection before its request was read: its own doing, not an outage. Reading the body
// then fails with a socket error (ECONNRESET, "aborted"), which the database-outage check reads as a database that
// went away: impatient clients were logged as "database unavailable" and counted as 503s, so an alert on 503s
// fired on them (issue 27). The readers throw this instead; the listeners log it at info and count it as 499, the
// status proxies use for "client closed request" (nginx), never as a 5xx.

/** The status a request whose client went away is counted (and logged) with; nothing is sent. */
export const clientClosedStatus = 499;

/** Reading a request failed because its client closed the connection (or the stream broke under it). */
export class ClientGone extends Error {
  constructor(cause: unknown) {
    super("client closed the connection before its request was read", { cause });
    this.name = "ClientGone";
  }
}

/** Collects a request's body, at most `limit` bytes: the chunks, or "too_large" past it; throws ClientGone. */
export async function readChunks(
  request: AsyncIterable<unknown>,
  limit: number,
  onTooLarge: () => void,
): Promise<Buffer[] | "too_large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        onTooLarge();
        return "too_large";
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw new ClientGone(error);
  }
  return chunks;
}
