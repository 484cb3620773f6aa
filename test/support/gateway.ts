// A running app for the gateway's end-to-end tests, and the control-plane fixtures they need: an organization, an
// app of a product, a merchant in a region (demo or live, provisioned or not), a grant, and access tokens signed
// with the app's own signing key (the key ring verifies them as it would a minted one).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startApp, type RunningApp } from "../../src/app.js";
import { loadConfig, type Config } from "../../src/config/config.js";
import { seedMerchantData } from "../../src/data/sandbox-data.js";
import { createManualClock, epochSeconds, type ManualClock } from "../../src/runtime/clock.js";
import { createLogger, silentLogger } from "../../src/runtime/logger.js";
import { createGrantQueries } from "../../src/grant/queries/grant-queries.js";
import { createMerchantQueries } from "../../src/credential/queries/merchant-queries.js";
import type { SqlClient } from "../../src/storage/sql-client.js";
import type { Region } from "../../src/config/regions.js";
import type { Product } from "../../src/credential/products.js";
import { scopesForProduct } from "../../src/credential/scopes.js";
import {
  appTokenAudience,
  signAccessToken,
  type AccessTokenClaims,
  type SigningKey,
} from "../../src/token/access-token.js";
import { loadKeyEncryptionKey } from "../../src/token/key-encryption.js";
import { createSigningKeyStore } from "../../src/token/signing-keys.js";
import { seedEmbeddedDatabase } from "./embedded-template.js";
import { dropDatabase, freshDatabaseUrl } from "./storage.js";

/** A fixed key-encryption key, so every process of a test unseals the same signing key. */
export const testKek = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/**
 * A manual clock starting one second into a minute that has not begun yet in real time: a fresh window per run, so
 * counters a crashed earlier run left in a shared Redis database cannot reach into this one.
 */
export function gatewayClock(): ManualClock {
  return createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 + 1_000);
}

/** The signing key the app made at its first start, read with the same key-encryption key. */
export async function appSigningKey(sql: SqlClient, dataDir: string, clock: ManualClock): Promise<SigningKey> {
  const kek = await loadKeyEncryptionKey({ configured: testKek, dataDir, logger: silentLogger });
  return createSigningKeyStore({
    sql: sql as never,
    kek,
    clock,
    logger: silentLogger,
    accessTokenTtlSeconds: 900,
  }).signingKey();
}

export interface Fixture {
  appId: string;
  organizationId: number;
  companyId: number;
  region: Region;
  product: Product;
  env: "SANDBOX" | "PRODUCTION";
}

export interface FixtureOptions {
  /** The merchant's company id; generated when absent. */
  companyId?: number;
  product?: Product;
  region?: Region;
  /** The merchant's demo flag; the token's env follows it unless `env` says otherwise. */
  demo?: boolean;
  provisioned?: boolean;
  grant?: boolean;
  /** Seed the merchant's business data in its region's database. */
  seed?: { itemCount: number } | false;
}

/** Makes an organization, an approved app, a merchant and (by default) a live grant; seeds the region's data. */
export async function createFixture(
  control: SqlClient,
  regionSql: (region: Region) => SqlClient | undefined,
  clock: ManualClock,
  options: FixtureOptions = {},
): Promise<Fixture> {
  const product = options.product ?? "FULL";
  const region = options.region ?? "in";
  const demo = options.demo ?? false;
  const now = new Date(clock.now());
  const [organization] = await control<
    { id: number }[]
  >`insert into control.organizations (name) values ('Gateway test') returning id`;
  const appId = `app_gw_${Math.random().toString(36).slice(2, 12)}`;
  await control`
    insert into control.apps (id, organization_id, name, product, state)
    values (${appId}, ${organization!.id}, 'Gateway test app', ${product}, 'APPROVED')`;
  const merchants = createMerchantQueries(control);
  const merchant = await merchants.insert(
    { companyId: options.companyId, name: "Gateway test merchant", region, demo },
    now,
  );
  await merchants.updateStatus(merchant.company_id, { provisioned: options.provisioned ?? true });
  const env = demo ? "SANDBOX" : "PRODUCTION";
  if (options.grant ?? true) await createGrantQueries(control).ensureLive(appId, merchant.company_id, env, now);
  const seed = options.seed ?? { itemCount: 12 };
  const sql = regionSql(region);
  if (seed && sql) {
    await seedMerchantData(sql as never, region, merchant.company_id, {
      storeCount: 2,
      itemCount: seed.itemCount,
      salesDays: 5,
      onlineOrderCount: seed.itemCount > 0 ? 2 : 0,
      now,
    });
  }
  return { appId, organizationId: organization!.id, companyId: merchant.company_id, region, product, env };
}

/** An access token for the fixture, as the token endpoint would mint it, with `overrides` applied. */
export function tokenFor(
  key: SigningKey,
  config: Config,
  clock: ManualClock,
  fixture: Fixture,
  overrides: Partial<AccessTokenClaims> = {},
): string {
  const iat = epochSeconds(clock);
  return signAccessToken(key, {
    iss: config.urls.base,
    aud: appTokenAudience,
    sub: fixture.appId,
    client_id: `lp_app_pk${fixture.appId}`,
    orgId: fixture.organizationId,
    companyId: fixture.companyId,
    region: fixture.region,
    product: fixture.product,
    scopes: scopesForProduct(fixture.product),
    env: fixture.env,
    jti: `jti-${Math.random()}`,
    iat,
    exp: iat + 900,
    ...overrides,
  });
}

export interface GatewayApp {
  app: RunningApp;
  config: Config;
  clock: ManualClock;
  key: SigningKey;
  base: string;
  logs: string[];
  fixture(options?: FixtureOptions): Promise<Fixture>;
  token(fixture: Fixture, overrides?: Partial<AccessTokenClaims>): string;
  stop(): Promise<void>;
}

/** Starts the whole app on port 0 with its own database, the manual clock and `env` on top of the test defaults. */
export async function startGatewayApp(env: Record<string, string> = {}): Promise<GatewayApp> {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-gateway-"));
  const databaseUrl = await freshDatabaseUrl();
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  const clock = gatewayClock();
  const config = loadConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    AUTH_PORT: "0",
    CONSOLE_PORT: "0",
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env["TEST_REDIS_URL"],
    REDIS_COUNT_TIMEOUT_MS: "10000",
    TOKEN_KEY_ENCRYPTION_KEY: testKek,
    SHUTDOWN_GRACE_SECONDS: "1",
    SHUTDOWN_DRAIN_SECONDS: "0",
    ...env,
  });
  const logs: string[] = [];
  // Its own key prefix in TEST_REDIS_URL: no counter is shared with an app of another test file running beside it.
  const keyValuePrefix = `pa_test_${process.pid}_${randomBytes(4).toString("hex")}:`;
  const app = await startApp({
    config,
    logger: createLogger({ write: (line) => logs.push(line) }),
    clock,
    keyValuePrefix,
  });
  const key = await appSigningKey(app.control.sql, dataDir, clock);
  return {
    app,
    config,
    clock,
    key,
    base: `http://127.0.0.1:${app.front.port}`,
    logs,
    fixture: (options) =>
      createFixture(app.control.sql, (region) => app.regionDatabases.get(region)?.sql, clock, options),
    token: (fixture, overrides) => tokenFor(key, config, clock, fixture, overrides),
    stop: async () => {
      await app.stop();
      if (databaseUrl) await dropDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
