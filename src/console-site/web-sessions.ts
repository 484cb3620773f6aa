// The console site's sessions. The browser holds only a random 256-bit id in an HttpOnly, SameSite=Lax cookie
// (`__Host-` and Secure under https); the console session it stands for (the ConsoleService's access and refresh
// tokens) stays on the server, in the shared key-value store under the id's SHA-256, so no page script can ever
// read a token and any instance can serve the next request. Each session has its own CSRF token.
import { createHash } from "node:crypto";
import type { IdSource } from "../runtime/ids.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { csrfTokenPattern } from "../web/csrf.js";

export interface WebSession {
  accessToken: string;
  /** When the access token expires (ms since the epoch, on the app's clock). */
  accessExpiresAt: number;
  refreshToken: string;
  csrf: string;
}

const storeKey = (id: string) => `console-site:session:${createHash("sha256").update(id).digest("base64url")}`;

export function createWebSessions(options: { kv: KeyValueStore; ids: IdSource }) {
  const { kv, ids } = options;
  return {
    /** A new session id for `tokens`; kept as long as the refresh token lives. */
    async create(tokens: Omit<WebSession, "csrf">, ttlSeconds: number): Promise<{ id: string; session: WebSession }> {
      const id = ids.randomToken(32);
      const session = { ...tokens, csrf: ids.randomToken(32) };
      await kv.set(storeKey(id), JSON.stringify(session), ttlSeconds * 1000);
      return { id, session };
    },
    /** Replaces the tokens of a session (after a refresh), keeping its id and CSRF token. */
    async update(id: string, session: WebSession, ttlSeconds: number): Promise<void> {
      await kv.set(storeKey(id), JSON.stringify(session), ttlSeconds * 1000);
    },
    async read(id: string | undefined): Promise<WebSession | undefined> {
      if (!id || !csrfTokenPattern.test(id)) return undefined;
      const stored = await kv.get(storeKey(id));
      return stored ? (JSON.parse(stored) as WebSession) : undefined;
    },
    async destroy(id: string | undefined): Promise<void> {
      if (id && csrfTokenPattern.test(id)) await kv.del(storeKey(id));
    },
  };
}

export type WebSessions = ReturnType<typeof createWebSessions>;
