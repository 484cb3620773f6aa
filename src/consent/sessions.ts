// Consent-site sessions and CSRF tokens. A session is a random 256-bit id in a cookie (HttpOnly, SameSite=Lax,
// Secure and `__Host-` prefixed whenever AUTH_URL is https); the server keeps what it stands for in the shared key-value store under the
// id's SHA-256, so any instance can read it and the cookie alone reveals nothing. Forms carry a CSRF token: the
// session's own, or before sign-in a double-submit token in its own cookie.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IdSource } from "../runtime/ids.js";
import type { KeyValueStore } from "../storage/key-value.js";

/**
 * The cookie names. Over https they carry the `__Host-` prefix (RFC 6265bis section 4.1.3.2): the browser keeps
 * such a cookie only when it is Secure, has Path=/ and no Domain, so no sibling host (and no plain-http page) can
 * set or shadow the session or CSRF cookie. Over plain http (local use) the prefix would make browsers drop them.
 */
export function cookieNames(secure: boolean): { session: string; csrf: string } {
  const prefix = secure ? "__Host-" : "";
  return { session: `${prefix}lp_consent_session`, csrf: `${prefix}lp_consent_csrf` };
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

/** Constant-time equality of two strings (false when the lengths differ). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0) cookies.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
  }
  return cookies;
}

/** A Set-Cookie value with our attributes; maxAge 0 deletes. */
export function cookie(name: string, value: string, options: { secure: boolean; maxAge: number }): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${options.maxAge}${options.secure ? "; Secure" : ""}`;
}

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
