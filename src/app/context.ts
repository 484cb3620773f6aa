// The options every role starts from, and the context (clock, ids, logger, configuration, metrics) its services share.
import type { Config } from "../config/config.js";
import type { MailTransport } from "../console/index.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import { cryptoIds, type IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { createMetrics, type Metrics } from "../runtime/metrics.js";
import type { ServiceContext } from "../runtime/service-context.js";
import type { ResolveHost } from "../webhook/index.js";

export interface AppOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  ids?: IdSource;
  /**
   * "all" (default): every role, with each region's DataService in process unless REGION_GRPC_URL_<R> names a
   * remote one. "front": no DataService in process and no regional database; regions only over REGION_GRPC_URL_<R>.
   */
  role?: "all" | "front";
  /** The console's mail transport; default: the one MAIL_TRANSPORT names. */
  mailTransport?: MailTransport;
  /** Prepended to every Redis key (tests whose databases restart their ids share one Redis); default none. */
  keyValuePrefix?: string;
  /** This app's metrics (one registry per app); default: a new one with process metrics. */
  metrics?: Metrics;
  /** How webhook hosts are resolved; default: the system's resolver (tests answer as a rebinding DNS would). */
  webhookResolver?: ResolveHost;
}

/** The clock, ids, logger, configuration and metrics every service of a role shares. */
export type AppContext = ServiceContext & { metrics: Metrics };

export function serviceContextOf(options: AppOptions): AppContext {
  return {
    config: options.config,
    logger: options.logger,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? cryptoIds,
    metrics: options.metrics ?? createMetrics(),
  };
}
