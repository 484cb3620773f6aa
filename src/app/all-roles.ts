// startApp: every role in one process (or the front role alone). It opens the stores, builds the owners, the
// developer side, the internal port, readiness, the front and the two sites, then listens; each step is a file here.
import type { AddressInfo } from "node:net";
import { createVouchedClients } from "../runtime/vouched-client.js";
import type { MailOutbox } from "../console/index.js";
import type { Route } from "../front/route-table.js";
import type { Metrics } from "../runtime/metrics.js";
import type { OrderTimers } from "../data/index.js";
import type { KeyValueStore } from "../storage/key-value.js";
import type { Database } from "../storage/postgres.js";
import type { Region } from "../config/regions.js";
import type { WebhookDelivery } from "../webhook/index.js";
import { type AppOptions, serviceContextOf } from "./context.js";
import { closersFor, stopOnce } from "./shutdown.js";
import { openStores, openSigningKeys } from "./stores.js";
import { buildOwners } from "./owners.js";
import { buildPartnerGateway } from "./partner-gateway.js";
import { buildDeveloperSide } from "./developer-side.js";
import { buildInternalPort } from "./internal-port.js";
import { followReadiness } from "./readiness.js";
import { buildFront, buildConsentSite, buildConsoleSite } from "./sites.js";
import { listenAll } from "./listeners.js";

export interface RunningApp {
  /** Bound addresses; a port of 0 in the configuration shows the one the system picked. */
  front: AddressInfo;
  /** Every route of the public front (its route table): what the fuzzer in CI covers. */
  frontRoutes: readonly Route[];
  consent: AddressInfo;
  /** The developer console's web pages (CONSOLE_PORT). */
  console: AddressInfo;
  grpc: AddressInfo;
  control: Database;
  regionDatabases: ReadonlyMap<Region, Database>;
  /** The online orders' timers of each region served in process (tests run them on their clock with runDue). */
  orderTimers: ReadonlyMap<Region, OrderTimers>;
  keyValue: KeyValueStore;
  /** The console's outbox (mail leaves off the request path). */
  mail: MailOutbox;
  /** Webhook delivery: the queue, and (all roles) the relay and the attempt workers. */
  webhooks: WebhookDelivery;
  /** Served at GET /metrics on the internal port, and on METRICS_PORT when set. */
  metrics: Metrics;
  /** METRICS_PORT's listener, when configured. */
  metricsAddress: AddressInfo | undefined;
  /**
   * Reports not ready at once (/readyz 503 `shutting_down`, gRPC health NOT_SERVING) while still serving for
   * SHUTDOWN_DRAIN_SECONDS, then stops accepting, finishes requests in flight (up to SHUTDOWN_GRACE_SECONDS), closes pools.
   */
  stop(): Promise<void>;
}

/**
 * Every role in one process: the stores, the owners, the developer side (console, mail, request log, webhooks), the
 * internal port, readiness, the public front and the two sites; then each listener in turn. Each step is a function
 * of its own file beside this one (src/app/); this is the one place that wires them together.
 */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const context = serviceContextOf(options);
  const closers = closersFor(options);
  try {
    const stores = await openStores(options, context, closers);
    const keys = await openSigningKeys(context, stores);
    const owners = await buildOwners(context, stores, keys, closers);
    const partner = await buildPartnerGateway(context, stores, owners, keys);
    const developer = await buildDeveloperSide(options, context, stores, keys, owners, partner, closers);
    const internal = await buildInternalPort(context, stores, owners, developer);
    const readiness = followReadiness(context, stores, internal.health);
    // The console's first call speaks for a developer to this front (src/runtime/vouched-client.ts); its URL is
    // known once the front listens.
    const frontUrl: { value?: string } = {};
    const firstCall = { apiUrl: () => frontUrl.value, vouchedClients: createVouchedClients() };
    const front = await buildFront(context, owners, partner, developer, readiness.probe, firstCall.vouchedClients);
    const consent = buildConsentSite(context, stores, owners, developer, readiness.probe);
    const consoleSite = buildConsoleSite(context, stores, owners, developer, readiness.probe, firstCall);
    const listening = await listenAll(context, { internal, front, consent, consoleSite }, developer, frontUrl, closers);
    return {
      ...listening,
      frontRoutes: front.routes,
      control: stores.control,
      regionDatabases: stores.regionDatabases,
      orderTimers: owners.orderTimers,
      keyValue: stores.keyValue,
      mail: developer.mail,
      webhooks: developer.webhooks,
      metrics: context.metrics,
      stop: stopOnce({
        health: internal.health,
        shutdown: readiness.shutdown,
        closers,
        loops: [...owners.orderTimers.values()].map((timers) => timers.stop),
        drainMs: context.config.shutdownDrainSeconds * 1000,
        clock: context.clock,
      }),
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
