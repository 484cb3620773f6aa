// startWorkerRole: webhook delivery alone (outbox relay, attempt workers) with the console's mail queue.
import type { AddressInfo } from "node:net";
import { mailStopBoundMs } from "./shutdown.js";
import { startConsoleMail } from "../console/index.js";
import { loadKeyEncryptionKey } from "../token/index.js";
import { systemClock } from "../runtime/clock.js";
import { createMetrics, type Metrics } from "../runtime/metrics.js";
import type { Database } from "../storage/postgres.js";
import { regions, type Region } from "../config/regions.js";
import {
  forbiddenWebhookPorts,
  deliveryStopBoundMs,
  startWebhookDelivery,
  type WebhookDelivery,
} from "../webhook/index.js";
import type { AppOptions } from "./context.js";
import { closersFor } from "./shutdown.js";
import { openRegionDatabases, openControlDatabase, outboxSources } from "./stores.js";
import { consoleMailTexts, mailEndpointDisabled } from "./developer-side.js";
import { listenForMetricsIfAsked } from "./listeners.js";

export interface RunningWorkerRole {
  webhooks: WebhookDelivery;
  control: Database;
  regionDatabases: ReadonlyMap<Region, Database>;
  /** The attempts by outcome, endpoints disabled and the backlog's age: on METRICS_PORT when set. */
  metrics: Metrics;
  metricsAddress: AddressInfo | undefined;
  stop(): Promise<void>;
}

/**
 * `npm start -- --role worker`: webhook delivery alone (the outbox relay over the control database and every
 * region's, the attempt workers, the access-request expiry sweep), on the same databases as the other roles. Any
 * number of workers share the work (docs/decisions.md, "Events and webhooks").
 */
export async function startWorkerRole(options: AppOptions): Promise<RunningWorkerRole> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const closers = closersFor(options);
  const metrics = options.metrics ?? createMetrics();
  try {
    const control = await openControlDatabase(config, logger, closers);
    const regionDatabases = await openRegionDatabases(config, regions, control, logger, closers);
    const kek = await loadKeyEncryptionKey({
      configured: config.tokenKeyEncryptionKey,
      dataDir: config.dataDir,
      logger,
    });
    const mail = await startConsoleMail({
      config,
      logger,
      clock,
      control,
      kek,
      mailTexts: consoleMailTexts,
      transport: options.mailTransport,
      // A worker queues (an endpoint disabled) and leaves the sending to the console's processes.
      send: false,
    });
    closers.add("console mail", () => mail.close(config.shutdownGraceSeconds * 1000), mailStopBoundMs(config));
    const webhooks = await startWebhookDelivery({
      config,
      logger,
      clock,
      control,
      sources: outboxSources(control, regionDatabases),
      kek,
      resolve: options.webhookResolver,
      forbiddenPorts: forbiddenWebhookPorts(config),
      onDisabled: mailEndpointDisabled(mail, control, config, logger),
      deliver: true,
      metrics,
    });
    closers.add("webhook delivery", () => webhooks.stop(), deliveryStopBoundMs);
    // The worker has no other listener: its metrics (webhook attempts, backlog) are scraped on METRICS_PORT.
    const metricsAddress = await listenForMetricsIfAsked(config, metrics, closers);
    return { webhooks, control, regionDatabases, metrics, metricsAddress, stop: () => closers.closeAll() };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
