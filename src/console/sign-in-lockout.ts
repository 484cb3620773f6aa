// Console sign-in lockout: failed attempts per email (known or not, so the lock tells nothing about who has an
// account) counted in the key-value store (Redis: every instance agrees) in fixed windows of
// CONSOLE_LOCKOUT_SECONDS. At CONSOLE_SIGN_IN_LIMIT failures the email is locked for the rest of the window,
// the right password included. Keys hold a hash of the email, never the address.
import { createHash } from "node:crypto";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";

export interface SignInLockout {
  /** True when the email is locked now. A store outage answers false (fail open: the password still applies). */
  locked(email: string): Promise<boolean>;
  /** Counts a failed attempt. */
  failed(email: string): Promise<void>;
}

export function createSignInLockout(options: { kv: KeyValueStore; clock: Clock; logger: Logger; limit: number; windowSeconds: number }): SignInLockout {
  const windowMs = options.windowSeconds * 1000;
  const keyOf = (email: string) => {
    const start = Math.floor(options.clock.now() / windowMs) * windowMs;
    const hash = createHash("sha256").update(email).digest("base64url");
    return { key: `console-sign-in:${hash}:${start}`, end: start + windowMs };
  };
  return {
    async locked(email) {
      try {
        return Number(await options.kv.get(keyOf(email).key)) >= options.limit;
      } catch (error) {
        options.logger.warn("console sign-in lockout unavailable", { error });
        return false;
      }
    },
    async failed(email) {
      const { key, end } = keyOf(email);
      await options.kv.hit(key, end).catch((error: unknown) => options.logger.warn("console sign-in lockout unavailable", { error }));
    },
  };
}
