// The composition root: opens storage, builds the services, and starts the roles this process runs (the public
// front, the consent site, the internal gRPC port). Tests start the very same thing on port 0.
import { readFile } from "node:fs/promises";
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
import { WebhookService } from "../gen/partnerapi/v1/webhook_service_pb.js";
import type { Config } from "./config/config.js";
import { createConsentServer } from "./consent/consent-server.js";
import { createRequestLogQueries, createRequestRecorder } from "./request-log/index.js";
import { createConsoleSite } from "./console-site/console-server.js";
import { accountMailText, invitationMailText } from "./web/mail-texts.js";
import { createVouchedClients, type VouchedClients } from "./runtime/vouched-client.js";
import {
  eventDataSchemaNames,
  eventDataSchemas,
  eventDescriptions,
  eventTypes,
  webhookHeaders,
} from "./events/index.js";
import { createSandboxOrderDesk } from "./console-site/sandbox-orders.js";
import type { FirstCallRoute } from "./console-site/first-call.js";
import { startConsoleMail, createConsoleService, type MailOutbox, type MailTransport } from "./console/index.js";
import { merchantUserVerifier } from "./consent/merchant-users.js";
import { createFrontServer } from "./front/front-server.js";
import { loadReferenceFiles } from "./front/reference-page.js";
import type { Route } from "./front/route-table.js";
import { createInProcessCaller, createInProcessClient } from "./runtime/service-caller.js";
import { apiKeyVerifier, createApiKeyAuth } from "./gateway/api-key-auth.js";
import { createMerchantDirectory } from "./gateway/merchant-directory.js";
import { createPartnerGateway } from "./gateway/partner-gateway.js";
import { partnerDpopOptions } from "./gateway/token-auth.js";
import { createRateLimiter } from "./gateway/rate-limiter.js";
import { createRegionalCallers } from "./gateway/regional-data.js";
import { createRegionDispatcher } from "./internal/region-dispatcher.js";
import { createAuthorization, createConnections, createSandboxGrants, createGrantOwner } from "./grant/index.js";
import {
  createTokenService,
  appTokenAudience,
  createAccessTokenVerifier,
  createKeyRing,
  createSigningKeyStore,
  loadKeyEncryptionKey,
} from "./token/index.js";
import { createHealthService, ServingStatus, type HealthService } from "./internal/health.js";
import { createInternalPort } from "./internal/internal-port.js";
import { readPresentedCredential } from "./internal/service-credentials.js";
import { reflectionServices, registerReflection } from "./internal/reflection.js";
import { sleep, systemClock, type Clock } from "./runtime/clock.js";
import { cryptoIds, type IdSource } from "./runtime/ids.js";
import type { Logger } from "./runtime/logger.js";
import { createMetrics, listenForMetrics, type Metrics } from "./runtime/metrics.js";
import { createCredentialOwner, findApp } from "./credential/index.js";
import { createDataService, createOrderTimers, type DataServiceImpl, type OrderTimers } from "./data/index.js";
import type { ServiceContext } from "./runtime/service-context.js";
import { openKeyValueStore, type KeyValueStore } from "./storage/key-value.js";
import { migrateControl, migrateRegion } from "./storage/migrate.js";
import { openDatabase, readinessOf, type Database, type Readiness } from "./storage/postgres.js";
import { regions, type Region } from "./config/regions.js";
import { controlSchema, regionSchema } from "./storage/schemas.js";
import {
  createWebhookOwner,
  forbiddenWebhookPorts,
  startWebhookDelivery,
  systemResolver,
  type ResolveHost,
  type WebhookDelivery,
} from "./webhook/index.js";

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

/** The services of the internal port, in the order `buf curl --list-services` shows them. */
export const internalServices: readonly DescService[] = [
  TokenService,
  GrantService,
  CredentialService,
  DataService,
  ConsoleService,
];

/**
 * Every role in one process: the stores, the owners, the developer side (console, mail, request log, webhooks), the
 * internal port, readiness, the public front and the two sites; then each listener in turn. Each step is a function
 * below; this is the one place that wires them together.
 */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const context = serviceContextOf(options);
  const closers: Closers = [];
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
    await closeAll(closers);
    throw error;
  }
}

/** What a role closes when it stops, in the order it opened them (closed in reverse). */
type Closers = Array<() => Promise<void>>;

/**
 * Each region's database, migrated: its own when REGION_DATABASE_URL_<R> is set, else the control database (one
 * database for everything). A database opened here is closed with the process's other stores.
 */
async function openRegionDatabases(
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
    if (database !== control) closers.push(() => database.close());
    await migrateRegion(database.sql, region, logger);
    regionDatabases.set(region, database);
  }
  return regionDatabases;
}

/** The clock, ids, logger, configuration and metrics every service of a role shares. */
type AppContext = ServiceContext & { metrics: Metrics };

function serviceContextOf(options: AppOptions): AppContext {
  return {
    config: options.config,
    logger: options.logger,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? cryptoIds,
    metrics: options.metrics ?? createMetrics(),
  };
}

/** The control plane's database, migrated; closed with the role. */
async function openControlDatabase(config: Config, logger: Logger, closers: Closers): Promise<Database> {
  const control = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
    timeouts: config.databaseTimeouts,
  });
  closers.push(() => control.close());
  await migrateControl(control.sql, logger);
  return control;
}

/** Storage: the control plane, then each region (its own database when configured, else a schema of the control one), then Redis. */
async function openStores(options: AppOptions, context: AppContext, closers: Closers) {
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
  closers.push(() => keyValue.close());
  return { role, control, regionDatabases, keyValue };
}
type Stores = Awaited<ReturnType<typeof openStores>>;

/** Signing keys: sealed under the key-encryption key; the first start makes the first key. */
async function openSigningKeys(context: AppContext, stores: Stores) {
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
  return { kek, signingKeys };
}
type SigningKeys = Awaited<ReturnType<typeof openSigningKeys>>;

/**
 * The owners, built once and shared by every listener: in process they talk through plain interfaces (the credential
 * owner's `credentials`, the grant owner's `accessRequests`); their Connect services serve the internal port.
 */
async function buildOwners(context: AppContext, stores: Stores, keys: SigningKeys, closers: Closers) {
  const { config, logger, metrics } = context;
  const { control, regionDatabases, keyValue } = stores;
  const { kek, signingKeys } = keys;
  const { credentials, service: credential } = createCredentialOwner(context, {
    sql: control.sql,
    regionSql: (region) => regionDatabases.get(region)?.sql,
    sandboxGrants: createSandboxGrants(),
  });
  const token = createTokenService(context, {
    sql: control.sql,
    keyValue,
    keys: signingKeys,
    verifyClient: credentials.verifyClientCredentials,
    kek,
  });
  const { accessRequests, service: grant } = createGrantOwner(context, {
    sql: control.sql,
    regionSql: (region) => regionDatabases.get(region)?.sql,
  });
  // Each region's DataService on that region's database; the internal port dispatches by the merchant's region.
  const localData = new Map<Region, DataServiceImpl>();
  const orderTimers = new Map<Region, OrderTimers>();
  for (const region of config.servedRegions) {
    const database = regionDatabases.get(region);
    if (!database) continue;
    localData.set(region, createDataService(context, { region, sql: database.sql }));
    // The decision timeout and the sandbox autopilot run where the region's data is; stopped before its pool closes.
    const timers = createOrderTimers(context, { region, sql: database.sql });
    orderTimers.set(region, timers);
    closers.push(timers.start());
  }
  const data = createRegionDispatcher(localData, control.sql);
  const regional = createRegionalCallers(config, localData, await remoteRegionOptions(config, logger, metrics));
  closers.push(async () => regional.close());
  return { credentials, credential, token, accessRequests, grant, data, regional, orderTimers };
}
type Owners = Awaited<ReturnType<typeof buildOwners>>;

/** The partner gateway: tokens verified against the key ring, checks, per-app limits, routing by region. */
async function buildPartnerGateway(context: AppContext, stores: Stores, owners: Owners, keys: SigningKeys) {
  const { config, logger, metrics } = context;
  const { control, keyValue } = stores;
  const keyRing = createKeyRing({ sql: control.sql, clock: context.clock, logger });
  await keyRing.refresh();
  const merchants = createMerchantDirectory({
    controlSql: control.sql,
    clock: context.clock,
    cacheSeconds: config.caches.gatewaySeconds,
  });
  const gateway = createPartnerGateway({
    verifier: createAccessTokenVerifier({
      issuer: config.urls.base,
      audience: appTokenAudience,
      keys: (kid) => keyRing.publicKey(kid),
      clock: context.clock,
      lifetimeSeconds: config.lifetimes.accessToken,
    }),
    controlSql: control.sql,
    merchants,
    regions: owners.regional.callers,
    rateLimiter: createRateLimiter({
      store: keyValue,
      limit: config.limits.partnerPerMinute,
      clock: context.clock,
      logger,
      metrics,
    }),
    clock: context.clock,
    logger,
    cacheSeconds: config.caches.gatewaySeconds,
    dpop: partnerDpopOptions({
      store: keyValue,
      clock: context.clock,
      kek: keys.kek,
      nonces: config.dpop.nonces,
      publicBaseUrl: config.urls.base,
    }),
    apiKeys: createApiKeyAuth({
      verifyApiKey: apiKeyVerifier(owners.credentials),
      controlSql: control.sql,
      merchants,
      clock: context.clock,
      logger,
      cacheSeconds: config.caches.gatewaySeconds,
      metrics,
    }),
  });
  return { gateway, keyRing };
}
type Partner = Awaited<ReturnType<typeof buildPartnerGateway>>;

/**
 * The developer side: the console's outbox, the partner request log, webhook delivery and the ConsoleService (its
 * own sessions, audience partnerapi-console, calling the owners above through their plain interfaces).
 */
async function buildDeveloperSide(
  options: AppOptions,
  context: AppContext,
  stores: Stores,
  keys: SigningKeys,
  owners: Owners,
  partner: Partner,
  closers: Closers,
) {
  const { config, logger } = context;
  const { control, regionDatabases, keyValue } = stores;
  // The outbox's workers stop after the listeners (closers run in reverse) and before the databases close; what is
  // queued stays in the control database for the next start or another process.
  const mail = await startConsoleMail({
    config,
    logger,
    clock: context.clock,
    control,
    kek: keys.kek,
    mailTexts: consoleMailTexts,
    transport: options.mailTransport,
    send: true,
  });
  closers.push(() => mail.close(config.shutdownGraceSeconds * 1000));
  // The partner request log: buffered in process, written every REQUEST_LOG_FLUSH_MS; its last batch is written
  // after the front stops (closers run in reverse) and before the databases close.
  const requestLog = createRequestRecorder({
    sql: control.sql,
    clock: context.clock,
    logger,
    flushIntervalMs: config.requestLog.flushMs,
  });
  closers.push(() => requestLog.close());
  const requestLogQueries = createRequestLogQueries(control.sql);
  // Webhooks: the queue in the control database; an all-roles process also relays every outbox and delivers.
  // The internal port's bound port joins the forbidden ones once it listens (GRPC_PORT=0 picks one).
  const forbiddenPorts = forbiddenWebhookPorts(config);
  const webhooks = await startWebhookDelivery({
    config,
    logger,
    clock: context.clock,
    control,
    sources: stores.role === "all" ? outboxSources(control, regionDatabases) : [],
    kek: keys.kek,
    resolve: options.webhookResolver,
    forbiddenPorts,
    onDisabled: mailEndpointDisabled(mail, control, config, logger),
    deliver: stores.role === "all",
  });
  closers.push(() => webhooks.stop());
  const { endpoints: webhookEndpoints, service: webhookService } = createWebhookOwner(context, {
    sql: control.sql,
    verifyClient: owners.credentials.verifyClientCredentials,
    kek: keys.kek,
    resolve: options.webhookResolver ?? systemResolver,
    forbiddenPorts,
    nudge: webhooks.nudge,
    queue: webhooks.queue,
  });
  const consoleService = createConsoleService(context, {
    sql: control.sql,
    kv: keyValue,
    signingKey: () => keys.signingKeys.signingKey(),
    publicKey: (kid) => partner.keyRing.publicKey(kid),
    mail,
    credentials: owners.credentials,
    accessRequests: owners.accessRequests,
    webhooks: webhookEndpoints,
    requestLog: { beforeRead: () => requestLog.flush() },
  });
  return { mail, requestLog, requestLogQueries, forbiddenPorts, webhooks, webhookService, consoleService };
}
type DeveloperSide = Awaited<ReturnType<typeof buildDeveloperSide>>;

/** The internal port: every service over gRPC, gRPC-Web and Connect, with health and reflection. */
async function buildInternalPort(context: AppContext, stores: Stores, owners: Owners, developer: DeveloperSide) {
  const { config, logger, metrics } = context;
  const health = createHealthService();
  const routes = (router: ConnectRouter) => {
    router.service(TokenService, owners.token);
    router.service(GrantService, owners.grant);
    router.service(CredentialService, owners.credential);
    router.service(DataService, owners.data);
    router.service(ConsoleService, developer.consoleService);
    router.service(Health, health.impl);
    registerReflection(router, [...internalServices, ...reflectionServices, Health], [file_google_rpc_error_details]);
  };
  for (const service of internalServices) health.setStatus(service.typeName, ServingStatus.SERVING);
  const port = await createInternalPort({
    config,
    embedded: stores.control.embedded,
    // The console runs here: in development mode `npm run staff` stands in for its staff.
    localStaff: true,
    routes,
    clock: context.clock,
    ids: context.ids,
    logger,
    metrics,
  });
  return { port, health };
}

/**
 * Readiness: the control database and each region database this process uses, and Redis when configured, each
 * within a second; not ready from the moment shutdown starts. gRPC health follows the same answer.
 */
function followReadiness(context: AppContext, stores: Stores, health: HealthService) {
  const { control, regionDatabases, keyValue } = stores;
  const shutdown = { started: false };
  const probe = readinessWith(
    shutdown,
    readinessOf(
      [
        ["database:control", control],
        ...[...regionDatabases].map(([region, database]) => [`database:region_${region}`, database] as const),
      ],
      probeTimeoutMs,
    ),
    keyValue,
  );
  health.followReadiness(probe, { clock: context.clock, intervalMs: healthPollIntervalMs });
  context.metrics.followAvailability({
    databases: ["database:control", ...[...regionDatabases.keys()].map((region) => `database:region_${region}`)],
    redis: keyValue.shared,
    probe,
  });
  return { probe, shutdown };
}

/** The public front: /v1 over the services in process, the partner gateway, the request log, the OpenAPI document. */
async function buildFront(
  context: AppContext,
  owners: Owners,
  partner: Partner,
  developer: DeveloperSide,
  readiness: () => Promise<Readiness>,
  vouchedClients: VouchedClients,
) {
  const { config, logger, metrics } = context;
  return createFrontServer({
    services: [
      // The token endpoints read the DPoP proof header (RFC 9449 section 5).
      { service: TokenService, caller: createInProcessCaller(TokenService, owners.token), reads: ["dpop"] },
      { service: DataService, caller: createInProcessCaller(DataService, owners.data) },
      // The console authenticates a developer by the Authorization header (its session token).
      {
        service: ConsoleService,
        caller: createInProcessCaller(ConsoleService, developer.consoleService),
        reads: ["authorization"],
      },
      { service: WebhookService, caller: createInProcessCaller(WebhookService, developer.webhookService) },
    ],
    partner: partner.gateway,
    requestLog: developer.requestLog,
    bodyLimitBytes: config.bodyLimitBytes,
    requestTimeoutMs: config.requestTimeoutMs,
    trustProxy: config.trustProxy,
    vouchedClients,
    clock: context.clock,
    ids: context.ids,
    logger,
    readiness,
    metrics,
    openapi: {
      baseUrl: config.urls.base,
      authUrl: config.urls.auth,
      version: await packageVersion(),
      events: {
        types: eventTypes,
        descriptions: eventDescriptions,
        dataSchemaNames: eventDataSchemaNames,
        dataSchemas: eventDataSchemas,
        headers: webhookHeaders,
      },
    },
    reference: await loadReferenceFiles(),
  });
}

/** The consent site: the merchant's pages of the authorization endpoint, their connected apps, access requests. */
function buildConsentSite(
  context: AppContext,
  stores: Stores,
  owners: Owners,
  developer: DeveloperSide,
  readiness: () => Promise<Readiness>,
) {
  const { config, logger } = context;
  const { control, keyValue } = stores;
  return createConsentServer({
    logger,
    config,
    clock: context.clock,
    ids: context.ids,
    sql: control.sql,
    kv: keyValue,
    authorization: createAuthorization({ sql: control.sql, config, clock: context.clock, ids: context.ids, logger }),
    connections: createConnections({ sql: control.sql, clock: context.clock, logger }),
    verifyMerchantUser: merchantUserVerifier(owners.credentials),
    // The app's website, privacy policy and terms as its developer gave them in the console (checked there).
    appLinks: async (appId) => {
      const app = await findApp(control.sql, appId);
      return {
        ...(app?.website_url ? { website: app.website_url } : {}),
        ...(app?.privacy_policy_url ? { privacyUrl: app.privacy_policy_url } : {}),
        ...(app?.terms_url ? { termsUrl: app.terms_url } : {}),
      };
    },
    // Access requests name stores: the names come from the merchant's region (its DataService, in process);
    // the first 500 stores, the limit of one access request.
    storeNames: async (companyId) => {
      const stores = createInProcessClient(DataService, owners.data);
      const names = new Map<number, string>();
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const listed = await stores.listStores({
          companyId: BigInt(companyId),
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        for (const store of listed.stores) names.set(Number(store.id), store.name);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      return names;
    },
    lastCalls: async (companyId) => {
      await developer.requestLog.flush();
      return developer.requestLogQueries.lastCalls(companyId);
    },
    readiness,
  });
}

/** The developer console's pages: the same ConsoleService the /v1/console routes call, in process. */
function buildConsoleSite(
  context: AppContext,
  stores: Stores,
  owners: Owners,
  developer: DeveloperSide,
  readiness: () => Promise<Readiness>,
  firstCall: FirstCallRoute,
) {
  const { config, logger } = context;
  return createConsoleSite({
    config,
    logger,
    clock: context.clock,
    ids: context.ids,
    kv: stores.keyValue,
    console: developer.consoleService,
    // The sandbox merchant page reads and moves orders in the merchant's region, through the gateway's callers.
    sandboxOrders: createSandboxOrderDesk({ callers: owners.regional.callers, ids: context.ids, clock: context.clock }),
    readiness,
    // Development mode: the program page names the `npm run staff` command that approves an application.
    development: config.internal.localStaff,
    // The first call goes to this process's own front, vouching for the developer's address.
    firstCall,
  });
}

/**
 * Each listener in turn: the internal port (its port then forbidden to webhooks), the front (its loopback URL then
 * known to the console's first call), the consent site, metrics when configured, the console site.
 */
async function listenAll(
  context: AppContext,
  servers: {
    internal: Awaited<ReturnType<typeof buildInternalPort>>;
    front: Awaited<ReturnType<typeof buildFront>>;
    consent: ReturnType<typeof buildConsentSite>;
    consoleSite: ReturnType<typeof buildConsoleSite>;
  },
  developer: DeveloperSide,
  frontUrl: { value?: string },
  closers: Closers,
) {
  const { config, metrics } = context;
  const { internal, front, consent, consoleSite } = servers;
  const grace = config.shutdownGraceSeconds * 1000;
  const grpc = await internal.port.listen(config.listen.grpcPort, config.listen.grpcHost);
  developer.forbiddenPorts.add(grpc.port);
  closers.push(() => internal.port.close(grace));
  const frontAddress = await front.listen(config.listen.port, config.listen.host);
  closers.push(() => front.close(grace));
  frontUrl.value = `http://${loopbackOf(frontAddress)}/`;
  const consentAddress = await consent.listen(config.listen.authPort, config.listen.host);
  closers.push(() => consent.close(grace));
  const metricsAddress = await listenForMetricsIfAsked(config, metrics, closers);
  const consoleAddress = await consoleSite.listen(config.listen.consolePort, config.listen.host);
  closers.push(() => consoleSite.close(grace));
  return {
    front: frontAddress,
    consent: consentAddress,
    console: consoleAddress,
    grpc,
    metricsAddress,
  };
}

/** GET /metrics on a listener of its own when METRICS_PORT is set; its address, or undefined. */
async function listenForMetricsIfAsked(config: Config, metrics: Metrics, closers: Closers) {
  if (config.metrics.port === undefined) return undefined;
  const listener = await listenForMetrics(metrics, config.metrics.port, config.metrics.host);
  closers.push(() => listener.close(config.shutdownGraceSeconds * 1000));
  return listener.address;
}

export interface RunningDataRole {
  /** The internal port serving this region's DataService (gRPC, gRPC-Web, Connect), health and reflection. */
  grpc: AddressInfo;
  /** The region hop (REGION_GRPC_PORT): the DataService on grpc-js, where fronts' REGION_GRPC_URL_<R> point. */
  regionGrpc: AddressInfo;
  region: Region;
  database: Database;
  /** The region's online-order timers (the decision timeout, the sandbox autopilot). */
  orderTimers: OrderTimers;
  metrics: Metrics;
  metricsAddress: AddressInfo | undefined;
  stop(): Promise<void>;
}

/**
 * `npm start -- --role data --region <r>`: one region's DataService on that region's database
 * (REGION_DATABASE_URL_<R>, else DATABASE_URL, else the embedded one), served to fronts on the region hop's grpc-js
 * port (REGION_GRPC_PORT, where their REGION_GRPC_URL_<R> point) and, with health and reflection, on the internal
 * port (GRPC_PORT).
 */
export async function startDataRole(options: AppOptions & { region: Region }): Promise<RunningDataRole> {
  const { config, logger, region } = options;
  const context = serviceContextOf(options);
  const { metrics } = context;
  const closers: Closers = [];
  try {
    const url = config.regions[region].databaseUrl ?? config.databaseUrl;
    const database = await openDatabase({ url, dataDir: config.dataDir, logger, timeouts: config.databaseTimeouts });
    closers.push(() => database.close());
    await migrateRegion(database.sql, region, logger);
    const data = createDataService(context, { region, sql: database.sql });
    const orderTimers = createOrderTimers(context, { region, sql: database.sql });
    closers.push(orderTimers.start());
    const health = createHealthService();
    const routes = (router: ConnectRouter) => {
      router.service(DataService, data);
      router.service(Health, health.impl);
      registerReflection(router, [DataService, ...reflectionServices, Health], [file_google_rpc_error_details]);
    };
    health.setStatus(DataService.typeName, ServingStatus.SERVING);
    // The data role's health follows its database (and shutdown), as the front's follows everything it uses.
    const shutdown = { started: false };
    const readiness = readinessWith(shutdown, readinessOf([[`database:region_${region}`, database]], probeTimeoutMs));
    health.followReadiness(readiness, { clock: context.clock, intervalMs: healthPollIntervalMs });
    metrics.followAvailability({ databases: [`database:region_${region}`], redis: false, probe: readiness });
    const internal = await createInternalPort({
      config,
      embedded: database.embedded,
      routes,
      clock: context.clock,
      ids: context.ids,
      logger,
      metrics,
      hop: { service: DataService, impl: data },
    });
    const grpc = await internal.listen(config.listen.grpcPort, config.listen.grpcHost);
    closers.push(() => internal.close(config.shutdownGraceSeconds * 1000));
    const regionGrpc = await internal.hop!.listen(config.listen.regionGrpcPort, config.listen.grpcHost);
    closers.push(() => internal.hop!.close(config.shutdownGraceSeconds * 1000));
    const metricsAddress = await listenForMetricsIfAsked(config, metrics, closers);
    return {
      grpc,
      regionGrpc,
      region,
      database,
      orderTimers,
      metrics,
      metricsAddress,
      stop: stopOnce({
        health,
        shutdown,
        closers,
        loops: [orderTimers.stop],
        drainMs: config.shutdownDrainSeconds * 1000,
        clock: context.clock,
      }),
    };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

/** Every outbox this process relays: the control database's, then each region's. */
function outboxSources(control: Database, regionDatabases: ReadonlyMap<Region, Database>) {
  return [
    { schema: controlSchema, sql: control.sql, listen: control.listen },
    ...[...regionDatabases].map(([region, database]) => ({
      schema: regionSchema(region),
      sql: database.sql,
      listen: database.listen,
    })),
  ];
}

/** The console's mail in its reader's language, from the sites' catalogues. */
const consoleMailTexts = { invitation: invitationMailText, account: accountMailText };

/**
 * An endpoint disabled after days of failures: every member of the app's organization is mailed. Queued on the
 * control database's pool once the attempt runner has disabled it (its notice comes after that commit): a crash
 * between the two loses the notice, the endpoint's state on the app's page still says it.
 */
function mailEndpointDisabled(mail: MailOutbox, control: Database, config: Config, logger: Logger) {
  return (notice: { endpointId: string; url: string; appId: string; emails: string[]; appName: string }) => {
    const days = Math.round(config.webhooks.disableAfterSeconds / 86_400);
    for (const to of notice.emails) {
      const intent = { kind: "webhook endpoint disabled" as const, to, appId: notice.appId, appName: notice.appName };
      mail
        .enqueue(control.sql, { ...intent, url: notice.url, days })
        .catch((error: unknown) => logger.error("console mail not queued", { what: intent.kind, error }));
    }
  };
}

export interface RunningWorkerRole {
  webhooks: WebhookDelivery;
  control: Database;
  regionDatabases: ReadonlyMap<Region, Database>;
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
  const closers: Closers = [];
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
    closers.push(() => mail.close(config.shutdownGraceSeconds * 1000));
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
    });
    closers.push(() => webhooks.stop());
    let stopping: Promise<void> | undefined;
    return { webhooks, control, regionDatabases, stop: () => (stopping ??= closeAll(closers)) };
  } catch (error) {
    await closeAll(closers);
    throw error;
  }
}

/** The front's side of the hop to remote regions: its `front` credential and the CA it trusts for https URLs. */
async function remoteRegionOptions(config: Config, logger: Logger, metrics: Metrics) {
  const { credentialFile, caFile } = config.regionHop;
  const remote = config.servedRegions.filter((region) => config.regions[region].grpcUrl);
  if (remote.length > 0 && !credentialFile) {
    logger.warn("remote regions without REGION_GRPC_CREDENTIAL_FILE: their DataServices will refuse every call", {
      regions: remote,
    });
  }
  return {
    credential: credentialFile ? await readPresentedCredential(credentialFile) : undefined,
    ca: caFile ? await readFile(caFile) : undefined,
    logger,
    metrics,
  };
}

/** How long a readiness probe waits for each database and for Redis. */
const probeTimeoutMs = 1000;
/** How often gRPC health asks readiness for its Watch streams (Check asks afresh each time). */
const healthPollIntervalMs = 2000;

/**
 * The readiness /readyz and gRPC health report: `shutting_down` alone once shutdown has started (nothing is asked
 * then: the pools are about to close), else the databases that did not answer and `redis` when a configured Redis
 * did not. The in-process store is always ready.
 */
function readinessWith(
  shutdown: { started: boolean },
  databases: () => Promise<Readiness>,
  keyValue?: KeyValueStore,
): () => Promise<Readiness> {
  return async () => {
    if (shutdown.started) return { ready: false, down: ["shutting_down"] };
    const [answer, redisAnswers] = await Promise.all([databases(), keyValue ? keyValue.ping(probeTimeoutMs) : true]);
    if (shutdown.started) return { ready: false, down: ["shutting_down"] };
    const down = [...answer.down, ...(redisAnswers ? [] : ["redis"])];
    return { ready: down.length === 0, down };
  };
}

/**
 * The stop of a running role, once however often called: not ready at once (readiness `shutting_down`, health
 * NOT_SERVING) while the listeners keep serving for `drainMs` on the clock, so a load balancer sees the failing
 * probe and stops sending before any connection is refused; then everything closes.
 */
function stopOnce(options: {
  health: { shutdown(): void };
  shutdown: { started: boolean };
  closers: Array<() => Promise<void>>;
  /** Background loops, told to stop when shutdown starts rather than at their closer's turn (issue 36). */
  loops?: Array<() => Promise<void>>;
  drainMs: number;
  clock: Clock;
}): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    options.shutdown.started = true;
    options.health.shutdown();
    // Not awaited: their closers (which wait for them) still run in order, and a stuck one must not hold the rest.
    for (const stopLoop of options.loops ?? []) stopLoop().catch(() => {});
    stopping ??= sleep(options.clock, options.drainMs).then(() => closeAll(options.closers));
    return stopping;
  };
}

/** Closes in reverse order of opening: listeners first (finishing requests in flight), then stores. */
async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of closers.reverse()) {
    await close().catch(() => {});
  }
}

/**
 * The version of this build (package.json), the OpenAPI document's info.version. The nearest package.json above this
 * module: src/ under tsx, dist/src/ once compiled (npm run build), /app/dist/src/ in the container image.
 */
async function packageVersion(): Promise<string> {
  for (let folder = new URL("./", import.meta.url); ; folder = new URL("../", folder)) {
    const text = await readFile(new URL("package.json", folder), "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (text !== undefined) return (JSON.parse(text) as { version: string }).version;
    if (new URL("../", folder).href === folder.href) throw new Error("no package.json above the program");
  }
}

/** Where this process reaches a listener of its own: loopback when it listens on every address. */
function loopbackOf(address: AddressInfo): string {
  const host = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return host.includes(":") ? `[${host}]:${address.port}` : `${host}:${address.port}`;
}
