// RFC 9126 pushed authorization requests as the grant owner keeps them: a request_uri names parameters one client
// pushed (already checked as the authorization endpoint checks them). Lifetimes, chosen for people:
// - 60 s to reach /oauth/authorize (expires_in; RFC 9126 section 2.2 suggests 5 to 600 s): the client redirects the
//   browser right after pushing, so a minute is ample, and a leaked value is useless soon;
// - once opened there, 10 minutes to sign in and decide: the consent site keeps no state of its own (the screen's
//   form carries client_id and request_uri), so reloads and the sign-in detour read the request again, and the
//   merchant is not rushed by a clock they cannot see (RFC 9126 section 4 allows reloads of the same request).
// It is used up by the consent decision (Allow, Deny or Cancel), in the transaction that makes the code: one
// request, one decision, however many tabs or parallel posts.
import { hashSecret } from "../credential/index.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { SqlClient } from "../storage/sql-client.js";
import { createPushedRequestQueries, type PushedParameters } from "./queries/pushed-request-queries.js";

export type { PushedParameters };

/** RFC 9126 section 2.2: the URN prefix of every request_uri this server issues. */
export const requestUriPrefix = "urn:ietf:params:oauth:request_uri:";
/** Seconds from the push to the first authorize visit (the answer's expires_in). */
export const pushedRequestSeconds = 60;
/** Seconds from the first authorize visit to the consent decision. */
export const openedRequestSeconds = 600;

/** A request the authorize endpoint opened: its key (the request_uri's hash) and the pushed parameters. */
export interface OpenedRequest {
  hash: Uint8Array;
  parameters: PushedParameters;
}

export function createPushedRequests(deps: { sql: SqlClient; clock: Clock; ids: IdSource }) {
  const { sql, clock, ids } = deps;
  return {
    /** Stores checked parameters of `clientId` under a new request_uri (256 random bits). */
    async push(clientId: string, parameters: PushedParameters): Promise<{ requestUri: string; expiresIn: number }> {
      const requestUri = requestUriPrefix + ids.randomToken(32);
      const now = new Date(clock.now());
      await createPushedRequestQueries(sql).insert({
        hash: hashSecret(requestUri),
        clientId,
        parameters,
        now,
        expiresAt: new Date(now.getTime() + pushedRequestSeconds * 1000),
      });
      return { requestUri, expiresIn: pushedRequestSeconds };
    },
    /** The live request of `clientId` named `requestUri`, opened for the consent window; undefined otherwise. */
    async open(clientId: string, requestUri: string): Promise<OpenedRequest | undefined> {
      if (!requestUri.startsWith(requestUriPrefix)) return undefined;
      const hash = hashSecret(requestUri);
      const now = new Date(clock.now());
      const openedUntil = new Date(now.getTime() + openedRequestSeconds * 1000);
      const parameters = await createPushedRequestQueries(sql).open(hash, clientId, now, openedUntil);
      return parameters && { hash, parameters };
    },
  };
}

/** Uses the request up (on the decision's transaction); false when another decision came first or it expired. */
export function consumePushedRequest(tx: SqlClient, hash: Uint8Array, clientId: string, now: Date): Promise<boolean> {
  return createPushedRequestQueries(tx).consume(hash, clientId, now);
}
