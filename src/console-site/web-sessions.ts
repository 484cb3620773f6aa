// The console site's sessions. The browser holds only a random 256-bit id in an HttpOnly, SameSite=Lax cookie
// (`__Host-` and Secure under https); the console session it stands for (the ConsoleService's access and refresh
// tokens) stays on the server, in the shared key-value store, so no page script can ever read a token and any
// instance can serve the next request. Each session has its own CSRF token.
//
// The store never holds the id: the entry's key is the id's SHA-256, and its value is sealed with AES-256-GCM under a
// key derived from the id (HKDF-SHA256, RFC 5869), bound to the entry's key as additional data. A dump of Redis thus
// yields no usable token, and needs no key of ours shared between instances: only the cookie can open its session.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
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
const sealInfo = "console-site session v1";

function sessionKey(id: string): Buffer {
  return Buffer.from(hkdfSync("sha256", id, "", sealInfo, 32));
}

/** `v1.` + base64url(iv | tag | ciphertext) of the session's JSON, sealed under the id's own key. */
export function sealSession(id: string, session: WebSession): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sessionKey(id), iv);
  cipher.setAAD(Buffer.from(storeKey(id)));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(session), "utf8"), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
}

/** The session `sealSession` made for this id; undefined for anything else (another id, an altered or old value). */
export function openSession(id: string, stored: string): WebSession | undefined {
  if (!stored.startsWith("v1.")) return undefined;
  const bytes = Buffer.from(stored.slice(3), "base64url");
  if (bytes.length < 28) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sessionKey(id), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(storeKey(id)));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const plaintext = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    return JSON.parse(plaintext.toString("utf8")) as WebSession;
  } catch {
    return undefined;
  }
}

export function createWebSessions(options: { kv: KeyValueStore; ids: IdSource }) {
  const { kv, ids } = options;
  return {
    /** A new session id for `tokens`; kept as long as the refresh token lives. */
    async create(tokens: Omit<WebSession, "csrf">, ttlSeconds: number): Promise<{ id: string; session: WebSession }> {
      const id = ids.randomToken(32);
      const session = { ...tokens, csrf: ids.randomToken(32) };
      await kv.set(storeKey(id), sealSession(id, session), ttlSeconds * 1000);
      return { id, session };
    },
    /** Replaces the tokens of a session (after a refresh), keeping its id and CSRF token. */
    async update(id: string, session: WebSession, ttlSeconds: number): Promise<void> {
      await kv.set(storeKey(id), sealSession(id, session), ttlSeconds * 1000);
    },
    /** The session; undefined for an unknown id, and for an entry that does not open (treated as signed out). */
    async read(id: string | undefined): Promise<WebSession | undefined> {
      if (!id || !csrfTokenPattern.test(id)) return undefined;
      const stored = await kv.get(storeKey(id));
      return stored ? openSession(id, stored) : undefined;
    },
    async destroy(id: string | undefined): Promise<void> {
      if (id && csrfTokenPattern.test(id)) await kv.del(storeKey(id));
    },
  };
}

export type WebSessions = ReturnType<typeof createWebSessions>;
