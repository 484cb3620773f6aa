// What every service implementation is built from; passed to the `createXService` factories.
import type { Config } from "../config/config.js";
import type { Clock } from "./clock.js";
import type { IdSource } from "./ids.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

/** The dependencies common to the five services; each factory takes what it needs beside these. */
export interface ServiceContext {
  config: Config;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  /** Where counters go (./metrics.ts); absent in unit tests that do not look at them. */
  metrics?: Metrics;
}
