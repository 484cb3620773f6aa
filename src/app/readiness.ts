// Readiness: what /readyz and gRPC health report, from the stores a role uses and whether shutdown has started.
import type { HealthService } from "../internal/health.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { readinessOf, type Readiness } from "../storage/postgres.js";
import type { AppContext } from "./context.js";
import type { Stores } from "./stores.js";

/**
 * Readiness: the control database and each region database this process uses, and Redis when configured, each
 * within a second; not ready from the moment shutdown starts. gRPC health follows the same answer.
 */
export function followReadiness(context: AppContext, stores: Stores, health: HealthService) {
  const { control, regionDatabases, keyValue } = stores;
  const shutdown = { started: false };
  const probe = readinessWith(
    shutdown,
    readinessOf(
      [
        ["database:control", control],
        ...[...regionDatabases].map(([region, database]) => [`database:region_${region}`, database] as const),
      ],
      probeTimeoutMs,
    ),
    keyValue,
  );
  health.followReadiness(probe, { clock: context.clock, intervalMs: healthPollIntervalMs });
  context.metrics.followAvailability({
    databases: ["database:control", ...[...regionDatabases.keys()].map((region) => `database:region_${region}`)],
    redis: keyValue.shared,
    probe,
  });
  return { probe, shutdown };
}

/** How long a readiness probe waits for each database and for Redis. */
export const probeTimeoutMs = 1000;
/** How often gRPC health asks readiness for its Watch streams (Check asks afresh each time). */
export const healthPollIntervalMs = 2000;

/**
 * The readiness /readyz and gRPC health report: `shutting_down` alone once shutdown has started (nothing is asked
 * then: the pools are about to close), else the databases that did not answer and `redis` when a configured Redis
 * did not. The in-process store is always ready.
 */
export function readinessWith(
  shutdown: { started: boolean },
  databases: () => Promise<Readiness>,
  keyValue?: KeyValueStore,
): () => Promise<Readiness> {
  return async () => {
    if (shutdown.started) return { ready: false, down: ["shutting_down"] };
    const [answer, redisAnswers] = await Promise.all([databases(), keyValue ? keyValue.ping(probeTimeoutMs) : true]);
    if (shutdown.started) return { ready: false, down: ["shutting_down"] };
    const down = [...answer.down, ...(redisAnswers ? [] : ["redis"])];
    return { ready: down.length === 0, down };
  };
}
