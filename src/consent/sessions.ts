// Consent-site sessions and CSRF tokens. A session is a random 256-bit id in a cookie (HttpOnly, SameSite=Lax,
// Secure and `__Host-` prefixed whenever AUTH_URL is https); the server keeps what it stands for in the shared key-value store under the
// id's SHA-256, so any instance can read it and the cookie alone reveals nothing. Forms carry a CSRF token: the
// session's own, or before sign-in a double-submit token in its own cookie.
import { createHash } from "node:crypto";
import type { IdSource } from "../runtime/ids.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { cookieName } from "../web/cookies.js";

/** The cookie names: `__Host-` prefixed over https (src/web/cookies.ts says why). */
export function cookieNames(secure: boolean): { session: string; csrf: string } {
  return { session: cookieName("lp_consent_session", secure), csrf: cookieName("lp_consent_csrf", secure) };
}
/** A session lasts one hour: long enough to read a consent screen, short for a shared back-office computer. */
export const sessionSeconds = 3600;

export interface Session {
  userId: number;
  companyId: number;
  role: "OWNER" | "EMPLOYEE";
  email: string;
  csrf: string;
}

const storeKey = (id: string) => `consent:session:${createHash("sha256").update(id).digest("base64url")}`;

export function createSessions(options: { kv: KeyValueStore; ids: IdSource }) {
  const { kv, ids } = options;
  return {
    async create(fields: Omit<Session, "csrf">): Promise<{ id: string; session: Session }> {
      const id = ids.randomToken(32);
      const session = { ...fields, csrf: ids.randomToken(32) };
      await kv.set(storeKey(id), JSON.stringify(session), sessionSeconds * 1000);
      return { id, session };
    },
    async read(id: string | undefined): Promise<Session | undefined> {
      if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
      const stored = await kv.get(storeKey(id));
      return stored ? (JSON.parse(stored) as Session) : undefined;
    },
    async destroy(id: string | undefined): Promise<void> {
      if (id) await kv.del(storeKey(id));
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
