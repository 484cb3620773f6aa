// The control database of a fleet of processes (the topology test, bench:chaos), made ready once before they start:
// migrated, its first signing key made (rather than raced by two fronts starting together), and the delivery
// queue's tables installed (pg-boss installs them at its first start; several processes racing the install retry it
// with a growing backoff: 1, 2, 4, 8 s).
import type postgres from "postgres";
import { systemClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { migrateControl } from "../../src/storage/migrate.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "../../src/token/index.js";
import { startDeliveryQueue } from "../../src/webhook/delivery-queue.js";
import { testKek } from "./gateway.js";

export async function prepareFleetControl(sql: postgres.Sql, dataDir: string): Promise<void> {
  await migrateControl(sql, silentLogger);
  const kek = await loadKeyEncryptionKey({ configured: testKek, dataDir, logger: silentLogger });
  await createSigningKeyStore({
    sql,
    kek,
    clock: systemClock,
    logger: silentLogger,
    accessTokenTtlSeconds: 900,
  }).ensure();
  await (await startDeliveryQueue({ sql, embedded: false, logger: silentLogger, clock: systemClock })).stop();
}
