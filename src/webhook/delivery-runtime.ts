// Delivery as a process runs it: the queue (every role that holds the control database, so the routes can enqueue
// a resend), and, in the all-roles and worker processes, the outbox relay over every database, the attempt
// workers, and the access-request expiry sweep.
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import { expireDueAccessRequests } from "../grant/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { createAttemptRunner, type EndpointDisabledNotice } from "./delivery-attempts.js";
import { startDeliveryQueue, type DeliveryQueue } from "./delivery-queue.js";
import { systemResolver, type ResolveHost } from "./endpoint-url.js";
import { createDeliveryQueries } from "./queries/delivery-queries.js";
import { createEndpointQueries } from "./queries/endpoint-queries.js";
import { createRelay, type OutboxSource, type Relay } from "./relay.js";

/**
 * How often the relay looks at every outbox besides being woken by a commit's notification (LISTEN webhook_outbox)
 * or a local nudge: a bound on the delay of an event whose notification was lost (its connection down).
 */
export const relayIntervalMs = 1_000;
/** How often pending access requests past expiry are marked expired (and their events recorded). */
const expirySweepMs = 60_000;

export interface WebhookDelivery {
  queue: DeliveryQueue;
  /** Present where this process delivers (all roles, worker). */
  relay: Relay | undefined;
  /** Relays at once (after a local commit that wrote an event). */
  nudge(): void;
  stop(): Promise<void>;
}

/**
 * The ports a webhook never reaches on loopback or an allowed private network: this deployment's internal port,
 * region hop and metrics port, the database and Redis ports its URLs name and the sentinels' (the PostgreSQL and Redis defaults
 * always).
 */
export function forbiddenWebhookPorts(config: Config, extra: readonly number[] = []): Set<number> {
  const ports = new Set<number>([5432, 6379, config.listen.grpcPort, config.listen.regionGrpcPort, ...extra]);
  if (config.metrics.port) ports.add(config.metrics.port);
  for (const sentinel of config.redisSentinel?.sentinels ?? []) ports.add(sentinel.port);
  for (const url of [
    config.databaseUrl,
    config.redisUrl,
    ...Object.values(config.regions).map((region) => region.databaseUrl),
  ]) {
    if (!url) continue;
    const port = Number(new URL(url).port);
    if (port) ports.add(port);
  }
  return ports;
}

/**
 * The webhook backlog in seconds: the oldest event in any outbox (the relay's lag), and the longest a due attempt
 * has waited for a worker (the attempt slots' lag); 0 when nothing waits.
 */
export async function backlogAges(
  control: postgres.Sql,
  sources: readonly OutboxSource[],
  clock: Clock,
): Promise<{ outbox: number; attempt: number }> {
  const now = clock.now();
  const ageOf = (at: Date | undefined) => (at ? Math.max(0, (now - at.getTime()) / 1000) : 0);
  const outboxes = await Promise.all(
    sources.map(async (source) => ageOf(await createDeliveryQueries(source.sql).oldestOutboxEvent(source.schema))),
  );
  const due = await createDeliveryQueries(control).oldestDueAttempt(new Date(now));
  return { outbox: Math.max(0, ...outboxes), attempt: ageOf(due) };
}

export async function startWebhookDelivery(options: {
  config: Config;
  logger: Logger;
  clock: Clock;
  control: { sql: postgres.Sql; embedded: boolean };
  /** Every outbox to relay (control first); empty: this process does not deliver. */
  sources: readonly OutboxSource[];
  kek: Buffer;
  resolve?: ResolveHost;
  forbiddenPorts: ReadonlySet<number>;
  onDisabled?: EndpointDisabledNotice;
  deliver: boolean;
  /** Where this process's attempts and backlog are counted (a delivering process only). */
  metrics?: Metrics;
}): Promise<WebhookDelivery> {
  const { config, logger, clock } = options;
  const queue = await startDeliveryQueue({
    sql: options.control.sql,
    embedded: options.control.embedded,
    logger,
    clock,
  });
  if (!options.deliver) return { queue, relay: undefined, nudge: () => {}, stop: () => queue.stop() };
  const runAttempt = createAttemptRunner({
    sql: options.control.sql,
    queue,
    kek: options.kek,
    config,
    clock,
    logger,
    resolve: options.resolve ?? systemResolver,
    forbiddenPorts: options.forbiddenPorts,
    onDisabled: options.onDisabled,
    metrics: options.metrics,
  });
  options.metrics?.followWebhookBacklog(() => backlogAges(options.control.sql, options.sources, clock));
  const endpoints = createEndpointQueries(options.control.sql);
  await queue.work(
    runAttempt,
    {
      slots: config.webhooks.workerConcurrency,
      appSlots: config.webhooks.appConcurrency,
      endpointSlots: config.webhooks.endpointConcurrency,
    },
    {
      appsOf: async (ids) => new Map((await endpoints.appsOf(ids)).map((row) => [row.id, row.app_id])),
      endpointsOf: (appIds) => endpoints.liveIdsOfApps(appIds),
    },
  );
  const relay = createRelay({ control: options.control.sql, sources: options.sources, queue, clock, logger });
  await relay.start(relayIntervalMs);
  const sweep = setInterval(() => {
    expireDueAccessRequests(options.control.sql, new Date(clock.now())).catch((error: unknown) =>
      logger.warn("access request expiry sweep failed", { error }),
    );
  }, expirySweepMs);
  sweep.unref();
  let nudging: Promise<unknown> | undefined;
  return {
    queue,
    relay,
    nudge() {
      nudging ??= relay
        .drain()
        .catch(() => 0)
        .finally(() => (nudging = undefined));
    },
    async stop() {
      clearInterval(sweep);
      await relay.stop();
      await queue.stop();
    },
  };
}
