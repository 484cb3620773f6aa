// The composition root: opens storage, builds the services, and starts the roles this process runs (the public
// front, the consent site, the internal gRPC port). Tests start the very same thing on port 0.
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";
import { file_google_rpc_error_details } from "../gen/google/rpc/error_details_pb.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { ConsoleService } from "../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../gen/partnerapi/v1/token_service_pb.js";
import type { Config } from "./config/config.js";
import { createConsentServer } from "./consent/consent-server.js";
import { createMailTransport, createConsoleService } from "./console/index.js";
import { merchantUserVerifier } from "./consent/merchant-users.js";
import { createFrontServer } from "./front/front-server.js";
import { createInProcessCaller } from "./runtime/service-caller.js";
import { apiKeyVerifier, createApiKeyAuth } from "./gateway/api-key-auth.js";
import { createMerchantDirectory } from "./gateway/merchant-directory.js";
import { createPartnerGateway } from "./gateway/partner-gateway.js";
import { createRateLimiter } from "./gateway/rate-limiter.js";
import { createRegionalCallers } from "./gateway/regional-data.js";
import { createRegionDispatcher } from "./internal/region-dispatcher.js";
import { createAuthorization, createConnections, createSandboxGrants, createGrantService } from "./grant/index.js";
import {
  clientVerifier,
  createTokenService,
  appTokenAudience,
  createAccessTokenVerifier,
  createKeyRing,
  createSigningKeyStore,
  loadKeyEncryptionKey,
} from "./token/index.js";
import { createHealthService, ServingStatus } from "./internal/health.js";
import { createInternalServer } from "./internal/internal-server.js";
import { reflectionServices, registerReflection } from "./internal/reflection.js";
import { systemClock, type Clock } from "./runtime/clock.js";
import { cryptoIds, type IdSource } from "./runtime/ids.js";
import type { Logger } from "./runtime/logger.js";
import { createCredentialService } from "./credential/index.js";
import { createDataService, type DataServiceImpl } from "./data/index.js";
import type { ServiceContext } from "./runtime/service-context.js";
import { openKeyValueStore, type KeyValueStore } from "./storage/key-value.js";
import { migrateControl, migrateRegion } from "./storage/migrate.js";
import { openDatabase, type Database } from "./storage/postgres.js";
import { regions, type Region } from "./config/regions.js";

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
}

export interface RunningApp {
  /** Bound addresses; a port of 0 in the configuration shows the one the system picked. */
  front: AddressInfo;
  consent: AddressInfo;
  grpc: AddressInfo;
  control: Database;
  regionDatabases: ReadonlyMap<Region, Database>;
  keyValue: KeyValueStore;
  /** Stops accepting, finishes requests in flight (up to SHUTDOWN_GRACE_SECONDS), closes pools. */
  stop(): Promise<void>;
}

/** The services of the internal port, in the order `buf curl --list-services` shows them. */
export const internalServices: readonly DescService[] = [TokenService, GrantService, CredentialService, DataService, ConsoleService];

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  const context: ServiceContext = { config, logger, clock: options.clock ?? systemClock, ids: options.ids ?? cryptoIds };
  const closers: Array<() => Promise<void>> = [];
  try {
    // Storage: the control plane, then each region (its own database when configured, else a schema of the control one).
    const control = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, logger });
    closers.push(() => control.close());
    await migrateControl(control.sql, logger);
    const role = options.role ?? "all";
    const regionDatabases = new Map<Region, Database>();
    for (const region of role === "all" ? regions : []) {
      const url = config.regions[region].databaseUrl;
      const database = url ? await openDatabase({ url, dataDir: config.dataDir, logger }) : control;
      if (database !== control) closers.push(() => database.close());
      await migrateRegion(database.sql, region, logger);
      regionDatabases.set(region, database);
    }
    const keyValue = await openKeyValueStore({ url: config.redisUrl, clock: context.clock, logger });
    closers.push(() => keyValue.close());

    // Signing keys: sealed under the key-encryption key; the first start makes the first key.
    const kek = await loadKeyEncryptionKey({ configured: config.tokenKeyEncryptionKey, dataDir: config.dataDir, logger });
    const signingKeys = createSigningKeyStore({
      sql: control.sql,
      kek,
      clock: context.clock,
      logger,
      accessTokenTtlSeconds: config.lifetimes.accessToken,
    });
    await signingKeys.ensure();

    // Services, built once and shared by every listener.
    const credential = createCredentialService(context, {
      sql: control.sql,
      regionSql: (region) => regionDatabases.get(region)?.sql,
      sandboxGrants: createSandboxGrants(),
    });
    const token = createTokenService(context, { sql: control.sql, keyValue, keys: signingKeys, verifyClient: clientVerifier(credential), kek });
    const grant = createGrantService(context, { sql: control.sql, regionSql: (region) => regionDatabases.get(region)?.sql });
    // Each region's DataService on that region's database; the internal port dispatches by the merchant's region.
    const localData = new Map<Region, DataServiceImpl>();
    for (const region of config.servedRegions) {
      const database = regionDatabases.get(region);
      if (database) localData.set(region, createDataService(context, { region, sql: database.sql }));
    }
    const data = createRegionDispatcher(localData, control.sql);
    const regional = createRegionalCallers(config, localData);
    closers.push(async () => regional.close());

    // The partner gateway: tokens verified against the key ring, checks, per-app limits, routing by region.
    const keyRing = createKeyRing({ sql: control.sql, clock: context.clock, logger });
    await keyRing.refresh();
    const merchants = createMerchantDirectory({ controlSql: control.sql, clock: context.clock, cacheSeconds: config.caches.gatewaySeconds });
    const partner = createPartnerGateway({
      verifier: createAccessTokenVerifier({
        issuer: config.urls.base,
        audience: appTokenAudience,
        keys: (kid) => keyRing.publicKey(kid),
        clock: context.clock,
      }),
      controlSql: control.sql,
      merchants,
      regions: regional.callers,
      rateLimiter: createRateLimiter({ store: keyValue, limit: config.limits.partnerPerMinute, clock: context.clock, logger }),
      clock: context.clock,
      logger,
      cacheSeconds: config.caches.gatewaySeconds,
      apiKeys: createApiKeyAuth({
        verifyApiKey: apiKeyVerifier(credential),
        controlSql: control.sql,
        merchants,
        clock: context.clock,
        logger,
        cacheSeconds: config.caches.gatewaySeconds,
      }),
    });
    // The developer console: its own sessions (audience partnerapi-console), calling the services above in process.
    const consoleService = createConsoleService(context, {
      sql: control.sql,
      kv: keyValue,
      signingKey: () => signingKeys.signingKey(),
      publicKey: (kid) => keyRing.publicKey(kid),
      mail: createMailTransport(config, logger),
      credential,
      grant,
    });
    const health = createHealthService();

    const routes = (router: ConnectRouter) => {
      router.service(TokenService, token);
      router.service(GrantService, grant);
      router.service(CredentialService, credential);
      router.service(DataService, data);
      router.service(ConsoleService, consoleService);
      router.service(Health, health.impl);
      registerReflection(router, [...internalServices, ...reflectionServices, Health], [file_google_rpc_error_details]);
    };
    for (const service of internalServices) health.setStatus(service.typeName, ServingStatus.SERVING);

    const internal = createInternalServer({ routes, logger });
    const front = createFrontServer({
      services: [
        { service: TokenService, caller: createInProcessCaller(TokenService, token) },
        { service: DataService, caller: createInProcessCaller(DataService, data) },
        { service: ConsoleService, caller: createInProcessCaller(ConsoleService, consoleService) },
      ],
      partner,
      bodyLimitBytes: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
      clock: context.clock,
      ids: context.ids,
      logger,
    });
    const consent = createConsentServer({
      logger,
      config,
      clock: context.clock,
      ids: context.ids,
      sql: control.sql,
      kv: keyValue,
      authorization: createAuthorization({ sql: control.sql, config, clock: context.clock, ids: context.ids, logger }),
      connections: createConnections({ sql: control.sql, clock: context.clock, logger }),
      verifyMerchantUser: merchantUserVerifier(credential),
    });

    const grace = config.shutdownGraceSeconds * 1000;
    const grpcAddress = await internal.listen(config.listen.grpcPort, config.listen.host);
    closers.push(() => internal.close(grace));
    const frontAddress = await front.listen(config.listen.port, config.listen.host);
    closers.push(() => front.close(grace));
    const consentAddress = await consent.listen(config.listen.authPort, config.listen.host);
    closers.push(() => consent.close(grace));

    return {
      front: frontAddress,
      consent: consentAddress,
      grpc: grpcAddress,
      control,
      regionDatabases,
      keyValue,
      stop: stopOnce(health, closers),
    };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

export interface RunningDataRole {
  /** The internal port serving this region's DataService (gRPC, gRPC-Web, Connect), health and reflection. */
  grpc: AddressInfo;
  region: Region;
  database: Database;
  stop(): Promise<void>;
}

/**
 * `npm start -- --role data --region <r>`: one region's DataService alone on the internal port (GRPC_PORT), on
 * that region's database (REGION_DATABASE_URL_<R>, else DATABASE_URL, else the embedded one). Fronts reach it
 * through REGION_GRPC_URL_<R>.
 */
export async function startDataRole(options: AppOptions & { region: Region }): Promise<RunningDataRole> {
  const { config, logger, region } = options;
  const context: ServiceContext = { config, logger, clock: options.clock ?? systemClock, ids: options.ids ?? cryptoIds };
  const closers: Array<() => Promise<void>> = [];
  try {
    const url = config.regions[region].databaseUrl ?? config.databaseUrl;
    const database = await openDatabase({ url, dataDir: config.dataDir, logger });
    closers.push(() => database.close());
    await migrateRegion(database.sql, region, logger);
    const data = createDataService(context, { region, sql: database.sql });
    const health = createHealthService();
    const routes = (router: ConnectRouter) => {
      router.service(DataService, data);
      router.service(Health, health.impl);
      registerReflection(router, [DataService, ...reflectionServices, Health], [file_google_rpc_error_details]);
    };
    health.setStatus(DataService.typeName, ServingStatus.SERVING);
    const internal = createInternalServer({ routes, logger });
    const grpc = await internal.listen(config.listen.grpcPort, config.listen.host);
    closers.push(() => internal.close(config.shutdownGraceSeconds * 1000));
    return {
      grpc,
      region,
      database,
      stop: stopOnce(health, closers),
    };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

/** The stop of a running role: health says NOT_SERVING at once, then everything closes, once however often called. */
function stopOnce(health: { shutdown(): void }, closers: Array<() => Promise<void>>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    health.shutdown();
    return (stopping ??= closeAll(closers));
  };
}

/** Closes in reverse order of opening: listeners first (finishing requests in flight), then stores. */
async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of closers.reverse()) {
    await close().catch(() => {});
  }
}
