// The consent site's sign-in throttle (docs/decisions.md, "Hostile input and silent dependencies"): a hard limit
// only on what the caller controls, its address (every attempt, ten times the ceiling) and the pair (account,
// address) (failures, the ceiling); the account as a whole, failed from anywhere, is slowed rather than locked, so
// that a stranger cannot lock an owner out at will. A successful sign-in counts toward nothing but the address.
// Fails closed: a store failure ends the sign-in with the 503 page before the password is checked, so no attempt
// goes uncounted (and no session could be kept anyway).
import { createHash } from "node:crypto";
import { addressKey } from "../config/ip-addresses.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { onStore } from "../web/session-store.js";

/** Sign-in window: 15 minutes, fixed. */
export const signInWindowMs = 15 * 60_000;
/** The longest an account's sign-in is slowed: the owner waits at most this long, however many strangers failed. */
export const maxSignInDelayMs = 30_000;

export interface SignInThrottle {
  /** Counts the attempt of `address`; true when the address or the pair (email, address) is over its ceiling. */
  throttled(email: string, address: string): Promise<boolean>;
  /** The wait before checking a password of `email`: none up to the ceiling of failures, then doubling from 1 s. */
  delayMs(email: string): Promise<number>;
  /** A failed attempt counts for the pair and for the account. */
  failed(email: string, address: string): Promise<void>;
}

export function createSignInThrottle(deps: {
  kv: KeyValueStore;
  clock: Clock;
  logger: Logger;
  /** CONSENT_SIGN_IN_LIMIT: failures of a pair per window, and a tenth of an address's attempts. */
  ceiling: number;
}): SignInThrottle {
  const { ceiling } = deps;
  const attempts = createFixedWindowCounter({
    store: deps.kv,
    clock: deps.clock,
    logger: deps.logger,
    name: "consent sign-in throttle",
    windowMs: signInWindowMs,
    whenStoreFails: "throw",
  });
  // Emails are kept out of the store's keys: only their hashes name the counts.
  const hashedKey = (value: string) => createHash("sha256").update(value).digest("base64url");
  const pairKey = (email: string, address: string) => `consent:sign-in:pair:${hashedKey(email)}:${addressKey(address)}`;
  const accountKey = (email: string) => `consent:sign-in:email:${hashedKey(email)}`;

  return {
    async throttled(email, address) {
      const [perAddress, perPair] = await onStore(() =>
        Promise.all([
          attempts.hit(`consent:sign-in:address:${addressKey(address)}`),
          attempts.peek(pairKey(email, address)),
        ]),
      );
      return perPair.count >= ceiling || perAddress.count > ceiling * 10;
    },
    async delayMs(email) {
      const failures = (await onStore(() => attempts.peek(accountKey(email)))).count;
      return failures < ceiling ? 0 : Math.min(1_000 * 2 ** (failures - ceiling), maxSignInDelayMs);
    },
    async failed(email, address) {
      await onStore(() => Promise.all([attempts.hit(pairKey(email, address)), attempts.hit(accountKey(email))]));
    },
  };
}
