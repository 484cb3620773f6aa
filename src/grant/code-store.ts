// Authorization codes as the token owner exchanges them: consumed by one conditional statement carrying every check
// (./queries/code-queries.ts), then, when that fails, read back to tell why. Each call runs on the `sql` it is
// given, so the exchange consumes the code in the same transaction that starts the refresh family.
import type { SqlClient } from "../storage/sql-client.js";
import { createCodeQueries, type CodeRow } from "./queries/code-queries.js";

/** An authorization code's row (its hash is the key): client, app, company, grant, redirect URI, PKCE, times. */
export type AuthorizationCode = CodeRow;

/** What an exchange presents: the code's hash and what must match it at `now`. */
export interface CodeCheck {
  hash: Uint8Array;
  clientId: string;
  redirectUri: string;
  /** S256 of the presented verifier, or null when none was sent. */
  challenge: string | null;
  now: Date;
  /** The key of the exchange's DPoP proof; null when it sent none. */
  dpopJkt: string | null;
}

/** Consumes the code when every check holds, in one statement; undefined when any does not (findCode tells which). */
export function consumeCode(sql: SqlClient, check: CodeCheck): Promise<AuthorizationCode | undefined> {
  return createCodeQueries(sql).consume(check);
}

/** The code of `hash`, consumed or not; undefined when there is none. */
export function findCode(sql: SqlClient, hash: Uint8Array): Promise<AuthorizationCode | undefined> {
  return createCodeQueries(sql).find(hash);
}
