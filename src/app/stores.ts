// Storage a role opens: the control database, each region's, Redis, the signing keys; and the outboxes webhook
// delivery relays.
import type { Config } from "../config/config.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "../token/index.js";
import type { Closers } from "../runtime/closers.js";
import type { Logger } from "../runtime/logger.js";
import { openKeyValueStore } from "../storage/key-value.js";
import { migrateControl, migrateRegion } from "../storage/migrate.js";
import { openDatabase, type Database } from "../storage/postgres.js";
import { regions, type Region } from "../config/regions.js";
import { controlSchema, regionSchema } from "../storage/schemas.js";
import type { AppOptions, AppContext } from "./context.js";

/**
 * Each region's database, migrated: its own when REGION_DATABASE_URL_<R> is set, else the control database (one
 * database for everything). A database opened here is closed with the process's other stores.
 */
export async function openRegionDatabases(
  config: Config,
  regions: readonly Region[],
  control: Database,
  logger: Logger,
  closers: Closers,
): Promise<Map<Region, Database>> {
  const regionDatabases = new Map<Region, Database>();
  for (const region of regions) {
    const url = config.regions[region].databaseUrl;
    const database = url
      ? await openDatabase({ url, dataDir: config.dataDir, logger, timeouts: config.databaseTimeouts })
      : control;
    if (database !== control) closers.add(`database:region_${region}`, () => database.close());
    await migrateRegion(database.sql, region, logger);
    regionDatabases.set(region, database);
  }
  return regionDatabases;
}

/** The control plane's database, migrated; closed with the role. */
export async function openControlDatabase(config: Config, logger: Logger, closers: Closers): Promise<Database> {
  const control = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
    timeouts: config.databaseTimeouts,
  });
  closers.add("database:control", () => control.close());
  await migrateControl(control.sql, logger);
  return control;
}

/** Storage: the control plane, then each region (its own database when configured, else a schema of the control one), then Redis. */
export async function openStores(options: AppOptions, context: AppContext, closers: Closers) {
  const { config, logger } = context;
  const control = await openControlDatabase(config, logger, closers);
  const role = options.role ?? "all";
  const regionDatabases = await openRegionDatabases(config, role === "all" ? regions : [], control, logger, closers);
  const keyValue = await openKeyValueStore({
    url: config.redisUrl,
    sentinel: config.redisSentinel,
    clock: context.clock,
    logger,
    prefix: options.keyValuePrefix,
    countTimeoutMs: config.redisCountTimeoutMs,
  });
  closers.add("redis", () => keyValue.close());
  return { role, control, regionDatabases, keyValue };
}
export type Stores = Awaited<ReturnType<typeof openStores>>;

/** Signing keys: sealed under the key-encryption key; the first start makes the first key. */
export async function openSigningKeys(context: AppContext, stores: Stores) {
  const { config, logger } = context;
  const kek = await loadKeyEncryptionKey({
    configured: config.tokenKeyEncryptionKey,
    dataDir: config.dataDir,
    logger,
  });
  const signingKeys = createSigningKeyStore({
    sql: stores.control.sql,
    kek,
    clock: context.clock,
    logger,
    accessTokenTtlSeconds: config.lifetimes.accessToken,
  });
  await signingKeys.ensure();
  context.metrics.followSigningKey(() => signingKeys.signingAgeSeconds());
  return { kek, signingKeys };
}
export type SigningKeys = Awaited<ReturnType<typeof openSigningKeys>>;

/** Every outbox this process relays: the control database's, then each region's. */
export function outboxSources(control: Database, regionDatabases: ReadonlyMap<Region, Database>) {
  return [
    { schema: controlSchema, sql: control.sql, listen: control.listen },
    ...[...regionDatabases].map(([region, database]) => ({
      schema: regionSchema(region),
      sql: database.sql,
      listen: database.listen,
    })),
  ];
}
