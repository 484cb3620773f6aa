// What every service implementation is built from; passed to the `createXService` factories.
import type { Config } from "../config/config.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";

/** The dependencies common to the four services; each factory takes what it needs beside these. */
export interface ServiceContext {
  config: Config;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
}
