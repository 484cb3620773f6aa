// The consent site's sign-in throttle (docs/decisions.md, "Hostile input and silent dependencies"): a hard limit
// only on what the caller controls, its address (every attempt, ten times the ceiling) and the pair (account,
// address) (failures and attempts in flight, the ceiling); the account as a whole, failed from anywhere, is slowed
// and its guesses queued one per delay step rather than locked, and a pair the owner signed in from before is only
// slowed, never queued, so that a stranger cannot lock an owner out at will. Every attempt is reserved before its
// password is checked, on all its keys in one atomic store operation (src/consent/sign-in-reservation.ts); a
// successful sign-in gives its reservations back, so it counts toward nothing but the address.
// Fails closed: a store failure ends the sign-in with the 503 page before the password is checked, so no attempt
// goes uncounted (and no session could be kept anyway).
import { createHash } from "node:crypto";
import { addressKey } from "../config/ip-addresses.js";
import type { Clock } from "../runtime/clock.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { onStore } from "../web/session-store.js";
import { releaseScript, reserveArgs, reserveKeys, reserveOutcome, reserveScript } from "./sign-in-reservation.js";

/** Sign-in window: 15 minutes, fixed. */
export const signInWindowMs = 15 * 60_000;
/** The longest an account's sign-in is slowed: the owner waits at most this long, however many strangers failed. */
export const maxSignInDelayMs = 30_000;
/** How long a pair (account, address) with a successful sign-in stays the owner's: only slowed, never queued. */
export const ownerAddressMs = 30 * 24 * 3_600_000;
/** The account's delays shorter than the longest (1, 2, 4, 8 and 16 s): the only gaps between its slots under it. */
const shortDelays = Math.ceil(Math.log2(maxSignInDelayMs / 1000));

/**
 * The most passwords of one account checked in one window from addresses it never signed in from: the ceiling at
 * once, then its queue's slots. Those lie at least their delay apart, and of the gaps between the slots that fall in
 * one window only the short delays of this window's and of the previous window's queue (whose slots may fall up to
 * maxSignInDelayMs into this one) are under the longest delay: 2 x 5 + 15 min / 30 s = 40 slots.
 */
export function accountEvaluationsPerWindow(ceiling: number): number {
  return ceiling + 2 * shortDelays + Math.ceil(signInWindowMs / maxSignInDelayMs);
}

/** What the throttle said of an attempt. */
export type SignInAdmission =
  | {
      admitted: false;
      /** Seconds the refusal lasts (Retry-After). */
      retryAfter: number;
      /** What refused it, for the log. */
      by: "address" | "pair" | "account";
    }
  | {
      admitted: true;
      /** How long to wait, on the clock, before checking the password (the account is slowed). */
      waitMs: number;
      /** The password was right: the reservations are given back and the pair is the owner's from now on. */
      succeeded(): Promise<void>;
    };

export interface SignInThrottle {
  /**
   * Counts the attempt of `email` from `address` and reserves it on the pair and the account, or refuses it; a
   * wrong password leaves the reservation counted as a failure.
   */
  begin(email: string, address: string): Promise<SignInAdmission>;
}

export function createSignInThrottle(deps: {
  kv: KeyValueStore;
  clock: Clock;
  /** CONSENT_SIGN_IN_LIMIT: failures of a pair per window, and a tenth of an address's attempts. */
  ceiling: number;
}): SignInThrottle {
  const { kv, clock, ceiling } = deps;
  // Emails are kept out of the store's keys: only their hashes name the counts.
  const hashedKey = (value: string) => createHash("sha256").update(value).digest("base64url");
  const windowRefusal = Math.ceil(signInWindowMs / 1000);

  return {
    async begin(email, address) {
      const now = clock.now();
      const window = Math.floor(now / signInWindowMs);
      const account = `consent:sign-in:email:${hashedKey(email)}`;
      const pair = `consent:sign-in:pair:${hashedKey(email)}:${addressKey(address)}`;
      const keys = {
        address: `consent:sign-in:address:${addressKey(address)}:${window}`,
        pair: `${pair}:${window}`,
        account: `${account}:${window}`,
        accountQueue: `${account}:queue`,
        known: `${pair}:owner`,
      };
      // A window's counts are kept one window past its end, as src/storage/fixed-window.ts keeps them.
      const counterTtlMs = (window + 2) * signInWindowMs - now;
      const args = { nowMs: now, addressLimit: ceiling * 10, ceiling, maxDelayMs: maxSignInDelayMs, counterTtlMs };
      const [outcome, ms] = (await onStore(() => kv.run(reserveScript, reserveKeys(keys), reserveArgs(args)))) as [
        number,
        number,
      ];
      switch (outcome) {
        case reserveOutcome.admitted:
          return {
            admitted: true,
            waitMs: ms,
            succeeded: async () => {
              await onStore(() => kv.run(releaseScript, [keys.pair, keys.account, keys.known], [ownerAddressMs]));
            },
          };
        case reserveOutcome.accountQueueFull:
          return { admitted: false, retryAfter: Math.max(1, Math.ceil(ms / 1000)), by: "account" };
        case reserveOutcome.pairFull:
          return { admitted: false, retryAfter: windowRefusal, by: "pair" };
        default:
          return { admitted: false, retryAfter: windowRefusal, by: "address" };
      }
    },
  };
}
