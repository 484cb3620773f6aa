// Console sign-in lockout: every attempt is counted before its password is checked (one atomic increment per
// counter, so N parallel attempts can never all reach the scrypt), per email (known or not, so the lock tells
// nothing about who has an account) and per source address, in fixed windows of CONSOLE_LOCKOUT_SECONDS in the
// key-value store (Redis: every instance agrees). An attempt that is refused, or whose password is right, is
// released again, so the counts are failures plus attempts in flight. A failure that brings an email to
// CONSOLE_SIGN_IN_LIMIT locks it for CONSOLE_LOCKOUT_SECONDS from that failure, the right password included; the
// address limit refuses until its window ends. Keys hold a hash of the email, never the address. While Redis is
// away nothing opens: the counts go on per process and a lock holds in the process that set it.
// Decisions: docs/decisions.md, "Console".
import { sha256 } from "./digest.js";
import { serviceError } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import { createMemoryStore, type KeyValueStore } from "../storage/key-value.js";

/** An attempt admitted to the password check: say how it ended. */
export interface SignInAttempt {
  /** The password was wrong (or the email unknown): the attempt stays counted and may lock the email. */
  failed(): Promise<void>;
  /** The password was right: the attempt is released, so successes never count towards a lock. */
  succeeded(): Promise<void>;
}

export interface SignInLockout {
  /**
   * Counts one attempt of `email` from `addressKey` before anything else; throws developer.too_many_attempts (429,
   * Retry-After) while the email is locked or when either count is over its ceiling.
   */
  begin(email: string, addressKey: string): Promise<SignInAttempt>;
}

export interface SignInLockoutOptions {
  kv: KeyValueStore;
  clock: Clock;
  logger: Logger;
  /** The raising service's full name, for the error's domain. */
  domain: string;
  /** Failures per email per window; the one that reaches it sets the lock. */
  limit: number;
  /** Failures per source address per window. */
  addressLimit: number;
  /** The window, and how long a lock lasts from the failure that set it. */
  windowSeconds: number;
}

export function createSignInLockout(options: SignInLockoutOptions): SignInLockout {
  const { kv, clock, logger, domain, limit, addressLimit, windowSeconds } = options;
  const windowMs = windowSeconds * 1000;
  // While the store fails, every count goes on in this process (never admitted uncounted), and a lock set then holds
  // for its full period in this process: docs/decisions.md, store-failure policy.
  const counter = (name: string) =>
    createFixedWindowCounter({ store: kv, clock, logger, name, windowMs, whenStoreFails: "count-in-process" });
  const attempts = counter("console sign-in lockout");
  const releases = counter("console sign-in lockout releases");
  // Every lock is also kept here (expiring on the injected clock), so one set or read while Redis is away still holds.
  const localLocks = createMemoryStore({ clock });
  const emailKey = (email: string) => `console-sign-in:${sha256(email)}`;
  const lockKey = (key: string) => `${key}:lock`;
  const released = (key: string) => `${key}:released`;
  const tooMany = (retryAfter: number) => serviceError(domain, "developer.too_many_attempts", { retryAfter });
  const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

  /** The shared lock's end, or 0 when the store cannot say (the local lock still applies). */
  const sharedLockEnd = async (key: string): Promise<number> => {
    try {
      return Number((await kv.get(lockKey(key))) ?? 0);
    } catch (error) {
      logger.warn("console sign-in lock unreadable; this process's locks apply", { error: messageOf(error) });
      return 0;
    }
  };
  /** Seconds until the email's lock ends, or 0 when it is not locked. The lock's end is on the injected clock. */
  const lockedFor = async (key: string): Promise<number> => {
    const [shared, local] = await Promise.all([sharedLockEnd(key), localLocks.get(lockKey(key))]);
    const until = Math.max(shared, Number(local ?? 0));
    return until > clock.now() ? Math.max(1, Math.ceil((until - clock.now()) / 1000)) : 0;
  };
  const lock = async (key: string) => {
    // The value is the lock's end on the injected clock; the store's own expiry only clears the key afterwards.
    const until = String(clock.now() + windowMs);
    await localLocks.set(lockKey(key), until, windowMs);
    try {
      await kv.set(lockKey(key), until, windowMs);
    } catch (error) {
      logger.warn("console sign-in lock kept in this process only", { error: messageOf(error) });
    }
  };

  return {
    async begin(email, addressKey) {
      const byEmail = emailKey(email);
      const byAddress = `console-sign-in:address:${addressKey}`;
      // Releases are read before the hit: each one read belongs to an attempt counted before this one, so of the
      // attempts up to this one at most `count - released` can be failing or in flight (docs/decisions.md).
      const [locked, releasedByEmail, releasedByAddress] = await Promise.all([
        lockedFor(byEmail),
        releases.peek(released(byEmail)),
        releases.peek(released(byAddress)),
      ]);
      if (locked > 0) throw tooMany(locked);
      const [emailCount, addressCount] = await Promise.all([attempts.hit(byEmail), attempts.hit(byAddress)]);
      const pendingByEmail = emailCount.count - releasedByEmail.count;
      const pendingByAddress = addressCount.count - releasedByAddress.count;
      const release = async () => {
        await Promise.all([releases.hit(released(byEmail)), releases.hit(released(byAddress))]);
      };
      if (pendingByEmail > limit || pendingByAddress > addressLimit) {
        await release();
        // Over the email's ceiling with no lock yet: the attempts in flight are about to set one, for a full period.
        const retryAfter = Math.max(
          pendingByEmail > limit ? windowSeconds : 0,
          pendingByAddress > addressLimit ? addressCount.retryAfter : 0,
        );
        throw tooMany(retryAfter);
      }
      return {
        async failed() {
          if (pendingByEmail >= limit) await lock(byEmail);
        },
        succeeded: release,
      };
    },
  };
}
