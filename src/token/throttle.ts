// The token endpoint's throttles, counted in the shared key-value store (Redis in production): fixed one-minute
// windows per client id and per source address, and a slowdown for a client that keeps getting invalid_grant.
// Ceilings are configuration (README); why these values: docs/decisions.md, "OAuth".
import type { Config } from "../config/config.js";
import { serviceError } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import { createFixedWindowCounter, type WhenStoreFails } from "../storage/fixed-window.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";

const minuteMs = 60_000;
/** The invalid_grant window: ten minutes, long enough to catch a client looping over dead tokens. */
const invalidGrantWindowMs = 10 * minuteMs;
/** Token calls per minute a slowed-down client keeps: enough to recover with a fresh code, not to loop. */
export const slowedClientLimit = 2;

export interface TokenThrottle {
  /** Counts one call; throws oauth.rate_limited (429, Retry-After) when a ceiling is passed. */
  admit(clientId: string, address: string): Promise<void>;
  /** Records an invalid_grant answer for the client. */
  invalidGrant(clientId: string): Promise<void>;
}

export interface TokenThrottleOptions {
  kv: KeyValueStore;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, "limits">;
  /** The raising service's full name, for the error's domain. */
  domain: string;
}

export function createTokenThrottle(options: TokenThrottleOptions): TokenThrottle {
  const { kv, clock, logger, config, domain } = options;
  // A store outage must not stop token refreshes: the throttle fails open (client authentication still applies).
  const whenStoreFails: WhenStoreFails = "admit";
  const counter = (windowMs: number) => createFixedWindowCounter({ store: kv, clock, logger, name: "token throttle", windowMs, whenStoreFails });
  const perMinute = counter(minuteMs);
  const invalidGrants = counter(invalidGrantWindowMs);
  return {
    async admit(clientId, address) {
      const [perClient, perAddress, slowdown] = await Promise.all([
        perMinute.hit(`oauth:token:client:${clientId}`),
        perMinute.hit(`oauth:token:address:${address}`),
        invalidGrants.peek(`oauth:invalid-grant:${clientId}`),
      ]);
      const slowed = slowdown.count >= config.limits.oauthInvalidGrants;
      const clientLimit = slowed ? slowedClientLimit : config.limits.oauthTokenPerClient;
      if (perAddress.count > config.limits.oauthTokenPerAddress || perClient.count > clientLimit) {
        throw serviceError(domain, "oauth.rate_limited", { retryAfter: perClient.retryAfter });
      }
    },
    async invalidGrant(clientId) {
      await invalidGrants.hit(`oauth:invalid-grant:${clientId}`);
    },
  };
}
