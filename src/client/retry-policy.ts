// The spec's retry table ("Retry rules"), as one pure function: given what happened to an attempt and what was
// tried before, retry after a wait, renew the access token and retry, or fail. The transport runs it; tests run it
// on its own. Waits are computed here and slept by the injected `sleep`.

/** Tunables of the table; the defaults are the spec's numbers. */
export interface RetryLimits {
  /** Other 5xx, and network errors: retries after the first attempt (spec: up to three). */
  serverRetries: number;
  /** First backoff of a 5xx or network retry; doubles each time, then jittered. */
  serverBaseDelayMs: number;
  /** company.not_provisioned: first backoff, doubling up to `provisioningMaxDelayMs`. */
  provisioningBaseDelayMs: number;
  provisioningMaxDelayMs: number;
  /** company.not_provisioned: total waiting before giving up (spec: about a minute). */
  provisioningBudgetMs: number;
  /** 429: how many windows to wait for before giving up (each wait ends at X-RateLimit-Reset). */
  rateLimitWaits: number;
}

export const defaultRetryLimits: RetryLimits = {
  serverRetries: 3,
  serverBaseDelayMs: 500,
  provisioningBaseDelayMs: 1_000,
  provisioningMaxDelayMs: 16_000,
  provisioningBudgetMs: 60_000,
  rateLimitWaits: 3,
};

/** What one attempt came to. */
export type AttemptOutcome =
  | { kind: "network" }
  | {
      kind: "response";
      status: number;
      code: string | undefined;
      /** X-RateLimit-Reset in ms since the epoch, when the answer had it. */
      resetAtMs?: number | undefined;
      /** Retry-After (or the body's `retryAfter` param) in seconds, when the answer had it. */
      retryAfterSeconds?: number | undefined;
    };

/** What the request is, and what has been tried for it so far. */
export interface RetryState {
  /** POST, PATCH: writes are not idempotent (spec: "Writes are not idempotent"). */
  write: boolean;
  /** Whether a 401 can be answered by getting a fresh access token (bearer calls; not API keys, not token calls). */
  renewable: boolean;
  /** A 401 was already answered by a renewal. */
  renewed: boolean;
  serverRetries: number;
  rateLimitWaits: number;
  provisioningRetries: number;
  provisioningWaitedMs: number;
}

export type RetryDecision =
  | { action: "fail" }
  | { action: "renew" }
  | { action: "wait"; ms: number; reason: "rate_limit" | "provisioning" | "server" | "network" };

export function initialRetryState(write: boolean, renewable: boolean): RetryState {
  return {
    write,
    renewable,
    renewed: false,
    serverRetries: 0,
    rateLimitWaits: 0,
    provisioningRetries: 0,
    provisioningWaitedMs: 0,
  };
}

/** `delay` jittered into [delay/2, delay): spread out so a fleet of clients does not retry in step. */
const jitter = (delayMs: number, random: () => number) => Math.floor(delayMs / 2 + (random() * delayMs) / 2);

/**
 * The decision for one outcome. `now` is the client's clock; `random` is in [0, 1).
 *
 * | outcome                          | reads (GET)                         | writes (POST, PATCH)        |
 * |----------------------------------|-------------------------------------|-----------------------------|
 * | no response (network error)      | up to 3 retries, jittered backoff   | same (the spec allows it)   |
 * | 429                              | wait until X-RateLimit-Reset        | same (refused, not written) |
 * | 503 company.not_provisioned      | exponential backoff, ~1 minute      | same (refused, not written) |
 * | other 5xx                        | up to 3 retries, jittered backoff   | never: sent once            |
 * | 401 with a renewable token       | renew once, retry once              | same (refused, not written) |
 * | any other 4xx                    | never                               | never                       |
 */
export function decideRetry(
  outcome: AttemptOutcome,
  state: RetryState,
  now: number,
  random: () => number,
  limits: RetryLimits = defaultRetryLimits,
): RetryDecision {
  if (outcome.kind === "network") {
    if (state.serverRetries >= limits.serverRetries) return { action: "fail" };
    return {
      action: "wait",
      ms: jitter(limits.serverBaseDelayMs * 2 ** state.serverRetries, random),
      reason: "network",
    };
  }
  const { status, code } = outcome;
  if (status === 429) {
    if (state.rateLimitWaits >= limits.rateLimitWaits) return { action: "fail" };
    // Never inside the window: until the reset the server named; its Retry-After when the reset has passed by our
    // clock (our clock runs ahead of the server's) or is missing; a whole minute when the answer says neither.
    const untilReset = outcome.resetAtMs === undefined ? undefined : outcome.resetAtMs - now;
    const fallback = outcome.retryAfterSeconds === undefined ? 60_000 : Math.max(1, outcome.retryAfterSeconds) * 1000;
    return {
      action: "wait",
      ms: untilReset !== undefined && untilReset > 0 ? untilReset : fallback,
      reason: "rate_limit",
    };
  }
  if (status === 503 && code === "company.not_provisioned") {
    const delay = jitter(
      Math.min(limits.provisioningMaxDelayMs, limits.provisioningBaseDelayMs * 2 ** state.provisioningRetries),
      random,
    );
    if (state.provisioningWaitedMs + delay > limits.provisioningBudgetMs) return { action: "fail" };
    return { action: "wait", ms: delay, reason: "provisioning" };
  }
  if (status >= 500) {
    if (state.write || state.serverRetries >= limits.serverRetries) return { action: "fail" };
    return {
      action: "wait",
      ms: jitter(limits.serverBaseDelayMs * 2 ** state.serverRetries, random),
      reason: "server",
    };
  }
  if (status === 401 && state.renewable && !state.renewed) return { action: "renew" };
  return { action: "fail" };
}

/** Records a decision that is carried out in the state, so the next decision sees it. */
export function afterDecision(state: RetryState, decision: RetryDecision): void {
  if (decision.action === "renew") state.renewed = true;
  if (decision.action !== "wait") return;
  if (decision.reason === "rate_limit") state.rateLimitWaits++;
  else if (decision.reason === "provisioning") {
    state.provisioningRetries++;
    state.provisioningWaitedMs += decision.ms;
  } else state.serverRetries++;
}
