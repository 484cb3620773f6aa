// Console sign-in limits, the rule of the consent site (docs/decisions.md, "Console"): a hard limit only on what
// the caller controls, the account slowed rather than locked. Every attempt is counted before its password is
// checked (one atomic increment per counter, so N parallel attempts can never all reach the scrypt unbounded), per
// pair (email, source address), per source address and per email (known or not, so nothing tells who has an
// account), in fixed windows of CONSOLE_LOCKOUT_SECONDS in the key-value store (Redis: every instance agrees). An
// attempt that is refused, or whose password is right, is released again, so the counts are failures plus
// attempts in flight.
// - The pair: the failure that brings it to CONSOLE_SIGN_IN_LIMIT locks that pair for CONSOLE_LOCKOUT_SECONDS
//   from that failure, the right password included. A stranger's failures lock the stranger's address only.
// - The address: CONSOLE_SIGN_IN_ADDRESS_LIMIT attempts failing or in flight, over any emails, until the window ends.
// - The email, from every address: each attempt past CONSOLE_SIGN_IN_LIMIT waits 1 s, then 2, 4, ... at most
//   `maxSignInDelayMs`, before its password is checked; never refused, so its owner signs in whatever others do.
// Keys hold a hash of the email, never the address. While Redis is away nothing opens: the counts go on per
// process and a lock holds in the process that set it.
import { sha256 } from "./digest.js";
import { serviceError } from "../errors/index.js";
import { sleep, type Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import { createMemoryStore, type KeyValueStore } from "../storage/key-value.js";

/**
 * The longest an account's sign-in is slowed: its owner waits at most this long, however many strangers failed.
 * Well inside the front's request deadline (REQUEST_TIMEOUT_SECONDS, 15 s by default), which the wait counts against.
 */
export const maxSignInDelayMs = 8_000;

/** An attempt admitted to the password check: say how it ended. */
export interface SignInAttempt {
  /** The password was wrong (or the email unknown): the attempt stays counted and may lock the pair. */
  failed(): Promise<void>;
  /** The password was right: the attempt is released, so successes never count towards a limit or a delay. */
  succeeded(): Promise<void>;
}

export interface SignInLockout {
  /**
   * Counts one attempt of `email` from `addressKey` before anything else; throws developer.too_many_attempts (429,
   * Retry-After) while the pair is locked or when the pair's or the address's count is over its ceiling; else
   * resolves once the email's delay (if it is slowed) has passed on the clock.
   */
  begin(email: string, addressKey: string): Promise<SignInAttempt>;
}

export interface SignInLockoutOptions {
  kv: KeyValueStore;
  clock: Clock;
  logger: Logger;
  /** The raising service's full name, for the error's domain. */
  domain: string;
  /** Failures per pair (email, address) per window, the one that reaches it locks the pair; and per email, past
   * which its attempts are slowed. */
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
  /** Seconds until the pair's lock ends, or 0 when it is not locked. The lock's end is on the injected clock. */
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
      const byEmail = `console-sign-in:${sha256(email)}`;
      const byPair = `console-sign-in:pair:${sha256(email)}:${addressKey}`;
      const byAddress = `console-sign-in:address:${addressKey}`;
      // Releases are read before the hits: each one read belongs to an attempt counted before this one, so of the
      // attempts up to this one at most `count - released` can be failing or in flight (docs/decisions.md).
      const [locked, releasedByPair, releasedByAddress, releasedByEmail] = await Promise.all([
        lockedFor(byPair),
        releases.peek(released(byPair)),
        releases.peek(released(byAddress)),
        releases.peek(released(byEmail)),
      ]);
      if (locked > 0) throw tooMany(locked);
      const [pairCount, addressCount] = await Promise.all([attempts.hit(byPair), attempts.hit(byAddress)]);
      const pendingByPair = pairCount.count - releasedByPair.count;
      const pendingByAddress = addressCount.count - releasedByAddress.count;
      if (pendingByPair > limit || pendingByAddress > addressLimit) {
        await Promise.all([releases.hit(released(byPair)), releases.hit(released(byAddress))]);
        // Over the pair's ceiling with no lock yet: the attempts in flight are about to set one, for a full period.
        const retryAfter = Math.max(
          pendingByPair > limit ? windowSeconds : 0,
          pendingByAddress > addressLimit ? addressCount.retryAfter : 0,
        );
        throw tooMany(retryAfter);
      }
      // Only an admitted attempt counts for the email, from every address: past the ceiling it waits its turn.
      // Counted before the wait, so parallel attempts each wait longer than the one before (up to the cap).
      const pendingByEmail = (await attempts.hit(byEmail)).count - releasedByEmail.count;
      if (pendingByEmail > limit) {
        const delayMs = Math.min(1_000 * 2 ** (pendingByEmail - limit - 1), maxSignInDelayMs);
        logger.info("console sign-in slowed", { ms: delayMs });
        await sleep(clock, delayMs);
      }
      const release = async () => {
        await Promise.all([byPair, byAddress, byEmail].map((key) => releases.hit(released(key))));
      };
      return {
        async failed() {
          if (pendingByPair >= limit) await lock(byPair);
        },
        succeeded: release,
      };
    },
  };
}
