// The console's limits on the flows that mail someone or cost a scrypt or a merchant: sign-up, password reset,
// organization invitations and sandbox merchant provisioning. Each flow counts per source address and per target
// (email, organization) in fixed windows of the one counter, before it does any work; over a ceiling it answers 429
// developer.rate_limited with Retry-After. Why each ceiling is what it is: docs/decisions.md, "Console".
import { sha256 } from "./digest.js";
import type { HandlerContext } from "@connectrpc/connect";
import type { Config } from "../config/config.js";
import { serviceError } from "../errors/index.js";
import { addressKey } from "../config/ip-addresses.js";
import { callerInfoKey } from "../runtime/caller-context.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createFixedWindowCounter, type FixedWindowCounter } from "../storage/fixed-window.js";
import type { KeyValueStore } from "../storage/key-value.js";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** Sign-ups per email per hour: a taken address is mailed a notice each time, so this bounds mail to one person. */
export const signUpsPerEmail = 3;
/** Password-reset requests per email per hour (known or not): a user who lost two mails still gets a third. */
export const resetsPerEmail = 5;
/** Invitations to one email per day, over every organization: nobody can be flooded by making organizations. */
export const invitesPerEmail = 5;
/** Invitations per source address per day: bounds one signed-in caller spreading over many organizations. */
export const invitesPerAddress = 100;
/** Sandbox merchant provisions per source address per day, over every organization. */
export const provisionsPerAddress = 30;

/**
 * The one place a caller's source address becomes a limit key: the address the front saw (after TRUST_PROXY);
 * callers of the internal port, which have none, share one key. IPv6 sources count by their /64 (addressKey).
 */
export function addressKeyOf(ctx: HandlerContext): string {
  const address = ctx.values.get(callerInfoKey)?.clientAddress;
  return address === undefined ? "internal" : addressKey(address);
}

export interface ConsoleLimits {
  /** Counts a sign-up of `email` from `address`; throws developer.rate_limited over a ceiling. */
  signUp(email: string, address: string): Promise<void>;
  /** Counts a password-reset request for `email` (whether or not it has an account) from `address`. */
  passwordReset(email: string, address: string): Promise<void>;
  /** Counts an invitation of `email` to `organizationId` from `address`. */
  invitation(organizationId: number, email: string, address: string): Promise<void>;
  /** Counts a sandbox merchant provision for `organizationId` from `address`. */
  sandboxProvision(organizationId: number, address: string): Promise<void>;
}

export interface ConsoleLimitsOptions {
  kv: KeyValueStore;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, "limits">;
  /** The raising service's full name, for the error's domain. */
  domain: string;
}

export function createConsoleLimits(options: ConsoleLimitsOptions): ConsoleLimits {
  const { kv, clock, logger, config, domain } = options;
  // While the store fails each instance counts on its own: the ceilings hold per instance rather than not at all.
  const counter = (windowMs: number) =>
    createFixedWindowCounter({
      store: kv,
      clock,
      logger,
      name: "console limits",
      windowMs,
      whenStoreFails: "count-in-process",
    });
  const perHour = counter(hourMs);
  const perDay = counter(dayMs);
  const emailKey = sha256;

  /** Counts every ceiling of one call at once (count first); the longest wait of those passed is the Retry-After. */
  async function admit(ceilings: Array<[FixedWindowCounter, string, number]>) {
    const counts = await Promise.all(ceilings.map(([window, key]) => window.hit(key)));
    const passed = counts.filter((count, i) => count.count > ceilings[i]![2]);
    if (passed.length > 0)
      throw serviceError(domain, "developer.rate_limited", {
        retryAfter: Math.max(...passed.map((count) => count.retryAfter)),
      });
  }

  return {
    signUp: (email, address) =>
      admit([
        [perHour, `console:sign-up:email:${emailKey(email)}`, signUpsPerEmail],
        [perHour, `console:sign-up:address:${address}`, config.limits.consoleSignUpPerAddress],
      ]),
    passwordReset: (email, address) =>
      admit([
        [perHour, `console:password-reset:email:${emailKey(email)}`, resetsPerEmail],
        [perHour, `console:password-reset:address:${address}`, config.limits.consoleResetPerAddress],
      ]),
    invitation: (organizationId, email, address) =>
      admit([
        [perDay, `console:invitation:organization:${organizationId}`, config.limits.consoleInvitesPerOrganization],
        [perDay, `console:invitation:email:${emailKey(email)}`, invitesPerEmail],
        [perDay, `console:invitation:address:${address}`, invitesPerAddress],
      ]),
    sandboxProvision: (organizationId, address) =>
      admit([
        [
          perDay,
          `console:sandbox-provision:organization:${organizationId}`,
          config.limits.consoleSandboxProvisionsPerOrganization,
        ],
        [perDay, `console:sandbox-provision:address:${address}`, provisionsPerAddress],
      ]),
  };
}
