// The composition root: opens storage, builds the services, and starts the roles this process runs (the public
// front, the consent site, the internal gRPC port). Tests start the very same thing on port 0.
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";
import { file_google_rpc_error_details } from "../gen/google/rpc/error_details_pb.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { CredentialService } from "../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../gen/partnerapi/v1/token_service_pb.js";
import type { Config } from "./config/config.js";
import { createConsentServer } from "./consent/consent-server.js";
import { merchantUserVerifier } from "./consent/merchant-users.js";
import { createFrontServer } from "./front/front-server.js";
import { createInProcessCaller } from "./front/service-caller.js";
import { createAuthorization } from "./oauth/authorization.js";
import { clientVerifier } from "./oauth/clients.js";
import { createConnections } from "./oauth/connections.js";
import { createHealthService, ServingStatus } from "./grpc/health.js";
import { createInternalServer } from "./grpc/internal-server.js";
import { reflectionServices, registerReflection } from "./grpc/reflection.js";
import { systemClock, type Clock } from "./runtime/clock.js";
import { cryptoIds, type IdSource } from "./runtime/ids.js";
import type { Logger } from "./runtime/logger.js";
import { createCredentialService } from "./services/credential-service.js";
import { createDataService } from "./services/data-service.js";
import type { ServiceContext } from "./services/dependencies.js";
import { createGrantService } from "./services/grant-service.js";
import { createTokenService } from "./services/token-service.js";
import { openKeyValueStore, type KeyValueStore } from "./storage/key-value.js";
import { migrateControl, migrateRegion } from "./storage/migrate.js";
import { openDatabase, type Database } from "./storage/postgres.js";
import { regions, type Region } from "./storage/regions.js";
import { createSigningKeyStore, loadKeyEncryptionKey } from "./tokens/index.js";

export interface AppOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  ids?: IdSource;
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
export const internalServices: readonly DescService[] = [TokenService, GrantService, CredentialService, DataService];

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config, logger } = options;
  const context: ServiceContext = { config, logger, clock: options.clock ?? systemClock, ids: options.ids ?? cryptoIds };
  const closers: Array<() => Promise<void>> = [];
  try {
    // Storage: the control plane, then each region (its own database when configured, else a schema of the control one).
    const control = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, logger });
    closers.push(() => control.close());
    await migrateControl(control.sql, logger);
    const regionDatabases = new Map<Region, Database>();
    for (const region of regions) {
      const url = config[`REGION_DATABASE_URL_${region.toUpperCase() as Uppercase<Region>}`];
      const database = url ? await openDatabase({ url, dataDir: config.DATA_DIR, logger }) : control;
      if (database !== control) closers.push(() => database.close());
      await migrateRegion(database.sql, region, logger);
      regionDatabases.set(region, database);
    }
    const keyValue = await openKeyValueStore({ url: config.REDIS_URL, clock: context.clock, logger });
    closers.push(() => keyValue.close());

    // Signing keys: sealed under the key-encryption key; the first start makes the first key.
    const kek = await loadKeyEncryptionKey({ configured: config.TOKEN_KEY_ENCRYPTION_KEY, dataDir: config.DATA_DIR, logger });
    const signingKeys = createSigningKeyStore({
      sql: control.sql,
      kek,
      clock: context.clock,
      logger,
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    });
    await signingKeys.ensure();

    // Services, built once and shared by every listener.
    const credential = createCredentialService(context, { sql: control.sql, regionSql: (region) => regionDatabases.get(region)?.sql });
    const token = createTokenService(context, { sql: control.sql, keyValue, keys: signingKeys, verifyClient: clientVerifier(credential), kek });
    const grant = createGrantService(context, { sql: control.sql });
    const data = createDataService(context, { region: "uk", sql: regionDatabases.get("uk")!.sql });
    const health = createHealthService();

    const routes = (router: ConnectRouter) => {
      router.service(TokenService, token);
      router.service(GrantService, grant);
      router.service(CredentialService, credential);
      router.service(DataService, data);
      router.service(Health, health.impl);
      registerReflection(router, [...internalServices, ...reflectionServices, Health], [file_google_rpc_error_details]);
    };
    for (const service of internalServices) health.setStatus(service.typeName, ServingStatus.SERVING);

    const internal = createInternalServer({ routes, logger });
    const front = createFrontServer({
      services: [
        { service: TokenService, caller: createInProcessCaller(TokenService, token) },
        { service: DataService, caller: createInProcessCaller(DataService, data) },
      ],
      bodyLimitBytes: config.BODY_LIMIT_BYTES,
      trustProxy: config.TRUST_PROXY,
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

    const grace = config.SHUTDOWN_GRACE_SECONDS * 1000;
    const grpcAddress = await internal.listen(config.GRPC_PORT, config.HOST);
    closers.push(() => internal.close(grace));
    const frontAddress = await front.listen(config.PORT, config.HOST);
    closers.push(() => front.close(grace));
    const consentAddress = await consent.listen(config.AUTH_PORT, config.HOST);
    closers.push(() => consent.close(grace));

    let stopping: Promise<void> | undefined;
    return {
      front: frontAddress,
      consent: consentAddress,
      grpc: grpcAddress,
      control,
      regionDatabases,
      keyValue,
      stop: () => {
        health.shutdown();
        stopping ??= closeAll(closers);
        return stopping;
      },
    };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

/** Closes in reverse order of opening: listeners first (finishing requests in flight), then stores. */
async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of closers.reverse()) {
    await close().catch(() => {});
  }
}
