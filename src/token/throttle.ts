// The token endpoint's throttles, counted in the shared key-value store (Redis in production), each keyed on what
// the caller has proved at that point: fixed one-minute windows per source address (IPv6 by its /64) before client
// authentication, per client id after it, and a slowdown of a code or refresh token that keeps getting invalid_grant.
// Nothing here is keyed on a public identifier alone, so no caller can spend another's budget.
// Ceilings are configuration (docs/configuration.md); why these values: docs/decisions.md, "OAuth".
import type { Config } from "../config/config.js";
import { serviceError } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import { addressKey } from "../config/ip-addresses.js";
import { createFixedWindowCounter, type WhenStoreFails } from "../storage/fixed-window.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { hashToken } from "./refresh-token-secrets.js";

const minuteMs = 60_000;
/** The invalid_grant window: ten minutes, long enough to catch a client looping over a dead token. */
const invalidGrantWindowMs = 10 * minuteMs;
/** Calls per minute a slowed-down credential keeps: enough for a corrected retry, not for a loop. */
export const slowedCredentialLimit = 2;

export interface TokenThrottle {
  /** Before client authentication: counts one call of the source address; throws oauth.rate_limited (429, Retry-After) past its ceiling. */
  admitAddress(address: string): Promise<void>;
  /**
   * After client authentication: counts one call of the client, and of `credential` (the code or refresh token
   * presented) when it is slowed down; throws oauth.rate_limited past either ceiling.
   */
  admitClient(clientId: string, credential: string | undefined): Promise<void>;
  /** Records an invalid_grant answer to `clientId` for the code or refresh token it presented. */
  invalidGrant(clientId: string, credential: string): Promise<void>;
}

export interface TokenThrottleOptions {
  kv: KeyValueStore;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, "limits">;
  /** The raising service's full name, for the error's domain. */
  domain: string;
  /** Counts refusals by throttle (oauth_address, oauth_client, oauth_credential); absent: not counted. */
  metrics?: Metrics;
}

export function createTokenThrottle(options: TokenThrottleOptions): TokenThrottle {
  const { kv, clock, logger, config, domain } = options;
  // A store outage must not stop token refreshes, nor open the throttle: each process counts on its own until the
  // store answers again (a ceiling per instance rather than none; docs/decisions.md, store-failure policy).
  const whenStoreFails: WhenStoreFails = "count-in-process";
  const counter = (windowMs: number) =>
    createFixedWindowCounter({ store: kv, clock, logger, name: "token throttle", windowMs, whenStoreFails });
  const perMinute = counter(minuteMs);
  const invalidGrants = counter(invalidGrantWindowMs);
  const limited = (retryAfter: number, throttle: "oauth_address" | "oauth_client" | "oauth_credential") => {
    options.metrics?.throttleRefusals.inc({ throttle });
    return serviceError(domain, "oauth.rate_limited", { retryAfter });
  };
  // The credential's SHA-256 (as stored), never the credential, goes into a key; with the client id, so another
  // client presenting someone's code (it travels in a redirect URL) cannot slow it down.
  const credentialKey = (clientId: string, credential: string) =>
    `${clientId}:${hashToken(credential).toString("base64url")}`;
  return {
    async admitAddress(address) {
      const perAddress = await perMinute.hit(`oauth:token:address:${addressKey(address)}`);
      if (perAddress.count > config.limits.oauthTokenPerAddress) throw limited(perAddress.retryAfter, "oauth_address");
    },
    async admitClient(clientId, credential) {
      const key = credential === undefined ? undefined : credentialKey(clientId, credential);
      const [perClient, answered] = await Promise.all([
        perMinute.hit(`oauth:token:client:${clientId}`),
        key === undefined ? undefined : invalidGrants.peek(`oauth:invalid-grant:${key}`),
      ]);
      if (perClient.count > config.limits.oauthTokenPerClient) throw limited(perClient.retryAfter, "oauth_client");
      // A credential that already got invalid_grant is dead (spec: never retry it); only its retries are slowed,
      // so a partner whose merchants disconnect one by one keeps refreshing the others at full speed.
      if (key === undefined || answered!.count < config.limits.oauthInvalidGrants) return;
      const retries = await perMinute.hit(`oauth:token:credential:${key}`);
      if (retries.count > slowedCredentialLimit) throw limited(retries.retryAfter, "oauth_credential");
    },
    async invalidGrant(clientId, credential) {
      await invalidGrants.hit(`oauth:invalid-grant:${credentialKey(clientId, credential)}`);
    },
  };
}
