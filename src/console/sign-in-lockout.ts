// Console sign-in lockout: failed attempts per email (known or not, so the lock tells nothing about who has an
// account) counted in the key-value store (Redis: every instance agrees) in fixed windows of
// CONSOLE_LOCKOUT_SECONDS. At CONSOLE_SIGN_IN_LIMIT failures the email is locked for the rest of the window,
// the right password included. Keys hold a hash of the email, never the address.
import { createHash } from "node:crypto";
import type { Clock } from "../runtime/clock.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";

export interface SignInLockout {
  /** True when the email is locked now. A store outage answers false (fail open: the password still applies). */
  locked(email: string): Promise<boolean>;
  /** Counts a failed attempt. */
  failed(email: string): Promise<void>;
}

export function createSignInLockout(options: { kv: KeyValueStore; clock: Clock; logger: Logger; limit: number; windowSeconds: number }): SignInLockout {
  const { kv, clock, logger, limit } = options;
  const failures = createFixedWindowCounter({ store: kv, clock, logger, name: "console sign-in lockout", windowMs: options.windowSeconds * 1000, whenStoreFails: "admit" });
  const keyOf = (email: string) => `console-sign-in:${createHash("sha256").update(email).digest("base64url")}`;
  return {
    locked: async (email) => (await failures.peek(keyOf(email))).count >= limit,
    failed: async (email) => {
      await failures.hit(keyOf(email));
    },
  };
}
