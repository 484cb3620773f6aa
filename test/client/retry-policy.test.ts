// The retry table as a pure function: every row of the spec's "Retry rules", reads and writes.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { decideRetry, defaultRetryLimits, type AttemptOutcome, type RetryDecision } from "../../src/client/index.js";
import { afterDecision, initialRetryState } from "../../src/client/retry-policy.js";

const Policy = suite("client/retry-policy");
const now = 1_800_000_000_000;
const half = () => 0.5;

const response = (
  status: number,
  code?: string,
  extra: Partial<Extract<AttemptOutcome, { kind: "response" }>> = {},
): AttemptOutcome => ({ kind: "response", status, code, ...extra });

/** Runs the policy until it stops retrying; the decisions it made. */
function run(outcome: AttemptOutcome, write: boolean, renewable = true, random = half): RetryDecision[] {
  const state = initialRetryState(write, renewable);
  const decisions: RetryDecision[] = [];
  for (let i = 0; i < 100; i++) {
    const decision = decideRetry(outcome, state, now, random);
    decisions.push(decision);
    afterDecision(state, decision);
    if (decision.action === "fail") return decisions;
  }
  throw new Error("no end");
}

Policy("other 5xx: three jittered retries for a read, none for a write", () => {
  assert.equal(run(response(500), false), [
    { action: "wait", ms: 375, reason: "server" },
    { action: "wait", ms: 750, reason: "server" },
    { action: "wait", ms: 1500, reason: "server" },
    { action: "fail" },
  ]);
  assert.equal(run(response(503, "server.unavailable"), true), [{ action: "fail" }]);
  assert.equal(run(response(502), true), [{ action: "fail" }]);
  // Jitter stays within [delay/2, delay).
  assert.equal(
    run(response(500), false, true, () => 0)
      .slice(0, 3)
      .map((d) => (d as { ms: number }).ms),
    [250, 500, 1000],
  );
  assert.equal(
    run(response(500), false, true, () => 0.999999)
      .slice(0, 3)
      .map((d) => (d as { ms: number }).ms),
    [499, 999, 1999],
  );
});

Policy("network error (no response): three jittered retries, for writes too", () => {
  for (const write of [false, true]) {
    assert.equal(run({ kind: "network" }, write), [
      { action: "wait", ms: 375, reason: "network" },
      { action: "wait", ms: 750, reason: "network" },
      { action: "wait", ms: 1500, reason: "network" },
      { action: "fail" },
    ]);
  }
});

Policy("503 company.not_provisioned: exponential backoff for about a minute, reads and writes alike", () => {
  for (const write of [false, true]) {
    const decisions = run(response(503, "company.not_provisioned"), write);
    const waits = decisions.filter((d): d is Extract<RetryDecision, { action: "wait" }> => d.action === "wait");
    assert.equal(
      waits.map((d) => d.ms),
      [750, 1500, 3000, 6000, 12000, 12000, 12000, 12000],
    );
    assert.ok(waits.every((d) => d.reason === "provisioning"));
    assert.is(
      waits.reduce((sum, d) => sum + d.ms, 0),
      59250,
    );
    assert.equal(decisions.at(-1), { action: "fail" });
  }
  // With the longest jitter the minute is used up sooner; the total never exceeds it.
  const longest = run(response(503, "company.not_provisioned"), false, true, () => 0.999999);
  const total = longest.reduce((sum, d) => sum + (d.action === "wait" ? d.ms : 0), 0);
  assert.ok(total <= defaultRetryLimits.provisioningBudgetMs && total > 45_000, String(total));
});

Policy("429: wait until X-RateLimit-Reset, never inside the window; at most three windows", () => {
  const reset = now + 12_345;
  assert.equal(run(response(429, "partner.rate_limited", { resetAtMs: reset, retryAfterSeconds: 13 }), true), [
    { action: "wait", ms: 12_345, reason: "rate_limit" },
    { action: "wait", ms: 12_345, reason: "rate_limit" },
    { action: "wait", ms: 12_345, reason: "rate_limit" },
    { action: "fail" },
  ]);
  // A reset that our clock already shows as past (clock ahead of the server's): Retry-After, never 0.
  assert.equal(
    decideRetry(
      response(429, "partner.rate_limited", { resetAtMs: now - 1000, retryAfterSeconds: 7 }),
      initialRetryState(false, true),
      now,
      half,
    ),
    { action: "wait", ms: 7000, reason: "rate_limit" },
  );
  // Neither header: a whole window.
  assert.equal(decideRetry(response(429, "oauth.rate_limited"), initialRetryState(false, false), now, half), {
    action: "wait",
    ms: 60_000,
    reason: "rate_limit",
  });
});

Policy("401: renew once and retry once on a renewable call; never with an API key", () => {
  assert.equal(run(response(401, "partner.token_invalid"), false), [{ action: "renew" }, { action: "fail" }]);
  assert.equal(run(response(401, "partner.token_invalid"), true), [{ action: "renew" }, { action: "fail" }]);
  assert.equal(run(response(401, "partner.api_key_invalid"), false, false), [{ action: "fail" }]);
});

Policy("other 4xx: never retried", () => {
  for (const [status, code] of [
    [400, undefined],
    [400, "partner.invalid_window"],
    [403, "partner.scope_denied"],
    [404, "partner.order_not_found"],
    [409, "db.duplicate"],
    [400, "oauth.grant_revoked"],
  ] as const) {
    assert.equal(run(response(status, code), false), [{ action: "fail" }], `${status} ${code}`);
  }
});

Policy.run();
