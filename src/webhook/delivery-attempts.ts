// One attempt of one delivery, as a worker runs it: claim the attempt (no two workers send the same one), sign the
// stored body with the endpoint's live secrets, send it (sender.ts), and in one transaction record the outcome,
// settle the delivery, keep the endpoint's failure streak, and enqueue the next attempt on the retry schedule.
// An endpoint failing for WEBHOOK_DISABLE_AFTER_SECONDS in a row is disabled and its organization's members mailed.
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import type { SqlClient } from "../storage/sql-client.js";
import { privateNetworksOf, type AddressPolicy } from "./address-policy.js";
import type { AttemptJob, DeliveryQueue } from "./delivery-queue.js";
import type { ResolveHost } from "./endpoint-url.js";
import { gatheredReads, inBatches } from "./batches.js";
import {
  createDeliveryQueries,
  type AttemptClaim,
  type ClaimedAttempt,
  type SucceededAttempt,
} from "./queries/delivery-queries.js";
import { createEndpointQueries } from "./queries/endpoint-queries.js";
import { retryDelaySeconds } from "./retry-schedule.js";
import { openEndpointKey } from "./endpoint-secrets.js";
import { sendWebhook, type AttemptResult } from "./sender.js";
import { signedHeaders } from "./signing.js";
import { inAttemptSpan } from "./attempt-span.js";

/** Told when an endpoint was disabled (the console's mail outbox, in the app). */
export type EndpointDisabledNotice = (notice: {
  endpointId: string;
  url: string;
  appId: string;
  emails: string[];
  appName: string;
}) => void;

export interface AttemptDeps {
  sql: postgres.Sql;
  queue: DeliveryQueue;
  kek: Buffer;
  config: Pick<Config, "webhooks">;
  clock: Clock;
  logger: Logger;
  resolve: ResolveHost;
  /** Ports never reached on loopback or an allowed private network (the internal port, the databases, Redis). */
  forbiddenPorts: ReadonlySet<number>;
  onDisabled?: EndpointDisabledNotice;
  /** Counts each recorded attempt by outcome and each endpoint disabled; absent in tests that do not look. */
  metrics?: Pick<Metrics, "webhookAttempts" | "webhookEndpointsDisabled">;
}

/** An attempt started this long ago whose outcome was never recorded is taken to have died with its worker. */
const staleAttemptMs = 60_000;

export function createAttemptRunner(deps: AttemptDeps): (job: AttemptJob) => Promise<void> {
  const { webhooks } = deps.config;
  const privateNetworks = privateNetworksOf(webhooks.allowPrivateNetworks);
  // Successes recorded while one record is on its way go together in the next statement (issue 43). The job is
  // completed only after its success is recorded, so a crash between them leaves a job that pg-boss retries and whose
  // claim finds the delivery settled: nothing sent twice, nothing lost.
  const recordSucceeded = inBatches<SucceededAttempt>((rows) => createDeliveryQueries(deps.sql).recordSucceeded(rows));
  // The attempts of one fetch start together and are claimed in one statement, as are those started while a claim
  // is on its way (issue 43); each runner learns its own claim, so what one claim decides is unchanged.
  const claim = gatheredReads<AttemptClaim, ClaimedAttempt | undefined>((claims) =>
    createDeliveryQueries(deps.sql).claimMany(claims),
  );
  return async (job) => {
    const now = new Date(deps.clock.now());
    const claimed = await claim({
      deliveryId: job.deliveryId,
      attempt: job.attempt,
      now,
      staleBefore: new Date(now.getTime() - staleAttemptMs),
    });
    if (!claimed) return await retryOnceStale(job); // sent already, settled, or another worker holds it
    const result: AttemptResult = claimed.endpoint_disabled
      ? { outcome: "CONNECTION_ERROR", durationMs: 0, excerpt: "" }
      : await inAttemptSpan(claimed, job.attempt, () => send(claimed, now));
    const outcome = claimed.endpoint_disabled ? "ENDPOINT_DISABLED" : result.outcome;
    const settledAt = new Date(deps.clock.now());
    const delay =
      outcome === "SUCCEEDED" || outcome === "ENDPOINT_DISABLED"
        ? undefined
        : retryDelaySeconds(webhooks.retryScheduleSeconds, job.attempt);
    const nextAt = delay === undefined ? null : new Date(settledAt.getTime() + delay * 1000);
    const attemptRow = {
      delivery_id: claimed.id,
      attempt: job.attempt,
      attempted_at: now,
      ...(result.statusCode !== undefined ? { status_code: result.statusCode } : {}),
      duration_ms: result.durationMs,
      response_excerpt: result.excerpt,
    };
    if (outcome === "SUCCEEDED") {
      await recordSucceeded({ ...attemptRow, endpoint_id: claimed.endpoint_id });
      deps.metrics?.webhookAttempts.inc({ outcome });
      return;
    }
    const disabled = await deps.sql.begin(async (tx: SqlClient) => {
      const deliveries = createDeliveryQueries(tx);
      await deliveries.recordAttempt({ ...attemptRow, outcome });
      await deliveries.settle(claimed.id, job.attempt, nextAt ? "PENDING" : "FAILED", nextAt);
      if (nextAt)
        await deps.queue.enqueue(tx, [
          {
            job: { deliveryId: claimed.id, attempt: job.attempt + 1 },
            endpointId: claimed.endpoint_id,
            startAfter: nextAt,
          },
        ]);
      if (outcome === "ENDPOINT_DISABLED") return false;
      return createEndpointQueries(tx).recordFailure(
        claimed.endpoint_id,
        settledAt,
        new Date(settledAt.getTime() - webhooks.disableAfterSeconds * 1000),
      );
    });
    deps.metrics?.webhookAttempts.inc({ outcome });
    if (disabled) {
      deps.metrics?.webhookEndpointsDisabled.inc({ environment: claimed.environment });
      await noticeDisabled(claimed);
    }
  };

  /**
   * A claim refused because the attempt was started and its outcome never recorded: another worker sends it now, or
   * a worker's record failed after the send (the database away for a moment) and pg-boss retried its job within the
   * second, long before the attempt is stale. Completing this job then left the delivery PENDING with no job to
   * finish it. A job for the same attempt is queued for when the claim would take it (the start + staleAttemptMs):
   * if the outcome is recorded by then, that claim finds it so and does nothing.
   */
  async function retryOnceStale(job: AttemptJob): Promise<void> {
    const held = await createDeliveryQueries(deps.sql).startedUnrecorded(job.deliveryId, job.attempt);
    if (!held) return;
    await deps.queue.enqueue(deps.sql, [
      {
        job,
        endpointId: held.endpoint_id,
        startAfter: new Date(held.attempt_started_at.getTime() + staleAttemptMs + 1000),
      },
    ]);
  }

  async function send(claimed: ClaimedAttempt, now: Date): Promise<AttemptResult> {
    const keys = [openEndpointKey(deps.kek, claimed.endpoint_id, claimed.secret_sealed)];
    if (
      claimed.previous_secret_sealed &&
      claimed.previous_secret_expires_at &&
      claimed.previous_secret_expires_at.getTime() > now.getTime()
    ) {
      keys.push(openEndpointKey(deps.kek, claimed.endpoint_id, claimed.previous_secret_sealed));
    }
    const sandbox = claimed.environment === "SANDBOX";
    const policy: AddressPolicy = {
      allowLoopback: sandbox && webhooks.allowLoopback,
      privateNetworks: sandbox ? privateNetworks : undefined,
      forbiddenPorts: deps.forbiddenPorts,
    };
    return sendWebhook({
      url: claimed.url,
      body: claimed.payload,
      headers: signedHeaders(claimed.event_id, Math.floor(now.getTime() / 1000), claimed.payload, keys),
      timeoutMs: webhooks.timeoutSeconds * 1000,
      policy,
      resolve: deps.resolve,
    });
  }

  async function noticeDisabled(claimed: ClaimedAttempt): Promise<void> {
    deps.logger.warn("webhook endpoint disabled after failing for days in a row", {
      endpointId: claimed.endpoint_id,
      appId: claimed.app_id,
    });
    const members = await createEndpointQueries(deps.sql).memberEmails(claimed.app_id);
    deps.onDisabled?.({
      endpointId: claimed.endpoint_id,
      url: claimed.url,
      appId: claimed.app_id,
      emails: members.map((m) => m.email),
      appName: members[0]?.app_name ?? claimed.app_id,
    });
  }
}
