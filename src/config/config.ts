// The one configuration object, read from the environment and validated with zod; every knob has a documented
// default (docs/configuration.md), and bad configuration stops the start with a message naming the variable. The
// variables are one schema (./environment-schema.ts), checked across variables and roles (./settings-checks.ts);
// here they become the nested Config, one reader per section.
import { join } from "node:path";
import { regions, type Region } from "./regions.js";
import { redisSentinelSetting, type RedisSentinelConfig } from "./redis-sentinel.js";
import type { Settings } from "./environment-schema.js";
import { checkedSettings, type ProcessEnvironment, type ProcessRole } from "./settings-checks.js";

export { environmentNames, productionPasswordHashCost, type Environment } from "./environment-schema.js";
export { ConfigError, type ProcessRole } from "./settings-checks.js";

/**
 * The validated configuration as the code reads it: named, nested options (never environment variable names).
 * Every lifetime is in seconds and every limit counts calls in its fixed window; docs/configuration.md lists the
 * variable behind each option and its default.
 */
export interface Config {
  listen: {
    /** The address the public front and the consent site bind to. */
    host: string;
    port: number;
    authPort: number;
    consolePort: number;
    /** The internal port's address (GRPC_HOST): loopback by default, never a public interface. */
    grpcHost: string;
    grpcPort: number;
    /** The region hop's port of a data role (REGION_GRPC_PORT), on grpcHost. */
    regionGrpcPort: number;
  };
  /** Who may call the internal port, and how it is reached (docs/decisions.md, "Internal port"). */
  internal: {
    /** The accepted service credentials (hashes, roles): see src/internal/service-credentials.ts. */
    credentialsFile: string;
    /** Whether credentialsFile is the default one in dataDir (an embedded start may generate it). */
    credentialsFileIsDefault: boolean;
    /**
     * Development mode: NODE_ENV is not production and the credentials are DATA_DIR's own (GRPC_CREDENTIALS_FILE
     * unset). No staff exist there, so a start keeps a staff credential in DATA_DIR/staff-credential for
     * `npm run staff` (src/internal/staff-command.ts), and the console's program page names the command to run.
     */
    localStaff: boolean;
    /** TLS for the internal port; unset: cleartext (h2c and HTTP/1.1), for loopback only. */
    tls: { certFile: string; keyFile: string } | undefined;
  };
  /** How this process calls remote regions' DataServices (REGION_GRPC_URL_<R>). */
  regionHop: {
    /** The file holding the `front` credential presented to them; unset: calls carry none (and are refused). */
    credentialFile: string | undefined;
    /** Extra CA certificates (PEM file) trusted for https region URLs. */
    caFile: string | undefined;
  };
  urls: {
    /** Public base URL with a trailing slash, e.g. http://127.0.0.1:8080/; api_base_url is this plus "v1/". */
    base: string;
    /** Consent site origin without a trailing slash, e.g. http://127.0.0.1:8081 */
    auth: string;
    /** The console's web pages, without a trailing slash; mailed links point here. */
    console: string;
  };
  dataDir: string;
  /** The control-plane database; unset: the embedded PGlite in dataDir. */
  databaseUrl: string | undefined;
  /** Bounds on every wait on PostgreSQL, in seconds: a connection attempt, and one statement. */
  databaseTimeouts: { connectSeconds: number; querySeconds: number };
  /** The shared key-value store; unset: in-process windows (one instance only). */
  redisUrl: string | undefined;
  /** How long a count waits for Redis before counting in process (REDIS_COUNT_TIMEOUT_MS). */
  redisCountTimeoutMs: number;
  /** Redis behind Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME); redisUrl then holds only credentials and database. */
  redisSentinel: RedisSentinelConfig | undefined;
  /** scrypt's cost for new passwords, log2 of N (PASSWORD_HASH_COST). */
  passwordHashCost: number;
  /** The regions this deployment serves, in a fixed order. */
  servedRegions: Region[];
  /** Per region: its own database, and the URL of its DataService when it runs in another process. */
  regions: Record<Region, { databaseUrl: string | undefined; grpcUrl: string | undefined }>;
  /** Region of a sandbox merchant whose country has none of its own. */
  sandboxDefaultRegion: Region;
  /** Trusted proxies (canonical addresses and CIDR ranges); X-Forwarded-For is read only from them. Empty: none. */
  trustProxy: string[];
  bodyLimitBytes: number;
  /** REQUEST_TIMEOUT_SECONDS in milliseconds: the end-to-end deadline of a front request. */
  requestTimeoutMs: number;
  logLevel: "debug" | "info" | "warn" | "error";
  /** LOG_PRETTY=1: pino-pretty lines for development. */
  logPretty: boolean;
  /** METRICS_PORT (absent: no listener of its own) and METRICS_HOST. */
  metrics: { port: number | undefined; host: string };
  shutdownGraceSeconds: number;
  shutdownDrainSeconds: number;
  /** Key-encryption key of the signing keys' private parts; unset: read from (or generated into) dataDir. */
  tokenKeyEncryptionKey: string | undefined;
  /** Events and webhooks (docs/decisions.md, "Events and webhooks (the webhook owner)"). */
  webhooks: {
    /** Sandbox endpoints may be loopback addresses (WEBHOOK_ALLOW_LOOPBACK). */
    allowLoopback: boolean;
    /** Canonical private ranges sandbox endpoints may reach (WEBHOOK_ALLOW_PRIVATE_NETWORKS); empty: none. */
    allowPrivateNetworks: string[];
    timeoutSeconds: number;
    retryScheduleSeconds: number[];
    disableAfterSeconds: number;
    endpointLimit: number;
    workerConcurrency: number;
    /** Attempt slots of one process one app's endpoints may hold (WEBHOOK_APP_CONCURRENCY). */
    appConcurrency: number;
    endpointConcurrency: number;
  };
  /** Lifetimes in seconds; the spec's values are the defaults. */
  lifetimes: {
    authCode: number;
    accessToken: number;
    refreshToken: number;
    refreshGrace: number;
    secretRotationOverlap: number;
    accessRequest: number;
    consoleRefresh: number;
    verifyLink: number;
    resetLink: number;
    invitation: number;
  };
  /** The online orders' timers, in seconds (docs/decisions.md, "Online orders (the data owner)"). */
  onlineOrders: {
    /** ONLINE_ORDER_DECISION_SECONDS: how long a PENDING order waits for the merchant before it times out. */
    decisionSeconds: number;
    /** SANDBOX_ORDER_AUTOPILOT_SECONDS: the automatic sandbox merchant's step; 0: off. */
    autopilotSeconds: number;
    /** SANDBOX_MENU_AUTOPILOT_SECONDS: how often the automatic sandbox merchant pauses or resumes a store; 0: off. */
    menuAutopilotSeconds: number;
  };
  /** How long in-process caches serve an answer, in seconds: the bound on how late a revocation shows. */
  caches: {
    credentialSeconds: number;
    gatewaySeconds: number;
  };
  /** The partner request log: how often its in-process buffer is written, in milliseconds. */
  requestLog: { flushMs: number };
  /** DPoP (RFC 9449): whether proofs must carry a server nonce (DPOP_NONCES). */
  dpop: { nonces: boolean };
  /** Ceilings of the limits and throttles (calls per fixed window; docs/decisions.md says why each is what it is). */
  limits: {
    partnerPerMinute: number;
    sandboxTokenPerMinute: number;
    oauthTokenPerClient: number;
    oauthTokenPerAddress: number;
    oauthInvalidGrants: number;
    consentSignIn: number;
    consoleSignIn: number;
    consoleLockoutSeconds: number;
    consoleSignInPerAddress: number;
    /** Per source address per hour. */
    consoleSignUpPerAddress: number;
    /** Per source address per hour. */
    consoleResetPerAddress: number;
    /** Per organization per day. */
    consoleInvitesPerOrganization: number;
    /** Per organization per day. */
    consoleSandboxProvisionsPerOrganization: number;
  };
  mail: {
    /** `log`, or an smtp:// or smtps:// URL. */
    transport: string;
    from: string;
  };
}

/** Reads the configuration from `env` (process.env by default). Throws ConfigError naming every bad variable. */
export function loadConfig(env: ProcessEnvironment = process.env, runs: ProcessRole = { role: "all" }): Config {
  const v = checkedSettings(env, runs);
  const production = env["NODE_ENV"] === "production";
  return {
    listen: {
      host: v.HOST,
      port: v.PORT,
      authPort: v.AUTH_PORT,
      consolePort: v.CONSOLE_PORT,
      grpcHost: v.GRPC_HOST,
      grpcPort: v.GRPC_PORT,
      regionGrpcPort: v.REGION_GRPC_PORT,
    },
    internal: internalSettings(v, production),
    regionHop: { credentialFile: v.REGION_GRPC_CREDENTIAL_FILE, caFile: v.REGION_GRPC_CA },
    urls: urlSettings(v),
    dataDir: v.DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    databaseTimeouts: {
      connectSeconds: v.DATABASE_CONNECT_TIMEOUT_SECONDS,
      querySeconds: v.DATABASE_QUERY_TIMEOUT_SECONDS,
    },
    redisUrl: v.REDIS_URL,
    redisCountTimeoutMs: v.REDIS_COUNT_TIMEOUT_MS,
    redisSentinel: redisSentinelSetting(v).sentinel,
    passwordHashCost: v.PASSWORD_HASH_COST,
    servedRegions: [...v.REGIONS],
    regions: regionSettings(v),
    sandboxDefaultRegion: v.SANDBOX_DEFAULT_REGION,
    trustProxy: v.TRUST_PROXY,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    requestTimeoutMs: v.REQUEST_TIMEOUT_SECONDS * 1000,
    logLevel: v.LOG_LEVEL,
    logPretty: v.LOG_PRETTY === "1",
    metrics: { port: v.METRICS_PORT, host: v.METRICS_HOST },
    shutdownGraceSeconds: v.SHUTDOWN_GRACE_SECONDS,
    shutdownDrainSeconds: v.SHUTDOWN_DRAIN_SECONDS ?? (v.DATABASE_URL === undefined ? 0 : 5),
    tokenKeyEncryptionKey: v.TOKEN_KEY_ENCRYPTION_KEY,
    lifetimes: lifetimeSettings(v),
    onlineOrders: {
      decisionSeconds: v.ONLINE_ORDER_DECISION_SECONDS,
      autopilotSeconds: v.SANDBOX_ORDER_AUTOPILOT_SECONDS,
      menuAutopilotSeconds: v.SANDBOX_MENU_AUTOPILOT_SECONDS,
    },
    caches: { credentialSeconds: v.CREDENTIAL_CACHE_SECONDS, gatewaySeconds: v.GATEWAY_CACHE_SECONDS },
    requestLog: { flushMs: v.REQUEST_LOG_FLUSH_MS },
    dpop: { nonces: v.DPOP_NONCES === "1" },
    limits: limitSettings(v),
    mail: { transport: v.MAIL_TRANSPORT, from: v.MAIL_FROM },
    webhooks: webhookSettings(v, production),
  };
}

function internalSettings(v: Settings, production: boolean): Config["internal"] {
  return {
    credentialsFile: v.GRPC_CREDENTIALS_FILE ?? join(v.DATA_DIR, "internal-credentials"),
    credentialsFileIsDefault: v.GRPC_CREDENTIALS_FILE === undefined,
    localStaff: v.GRPC_CREDENTIALS_FILE === undefined && !production,
    tls: v.GRPC_TLS_CERT && v.GRPC_TLS_KEY ? { certFile: v.GRPC_TLS_CERT, keyFile: v.GRPC_TLS_KEY } : undefined,
  };
}

/** The public URLs: BASE_URL always ends with "/" (the issuer), the sites' never do. */
function urlSettings(v: Settings): Config["urls"] {
  const baseUrl = v.BASE_URL ?? `http://${hostForUrl(v.HOST)}:${v.PORT}/`;
  return {
    base: baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`,
    auth: (v.AUTH_URL ?? `http://${hostForUrl(v.HOST)}:${v.AUTH_PORT}`).replace(/\/+$/, ""),
    console: (v.CONSOLE_URL ?? `http://${hostForUrl(v.HOST)}:${v.CONSOLE_PORT}`).replace(/\/+$/, ""),
  };
}

/** Each region's database and DataService URL (REGION_DATABASE_URL_<R>, REGION_GRPC_URL_<R>). */
function regionSettings(v: Settings): Config["regions"] {
  const region = (r: Region) => {
    const upper = r.toUpperCase() as Uppercase<Region>;
    return { databaseUrl: v[`REGION_DATABASE_URL_${upper}`], grpcUrl: v[`REGION_GRPC_URL_${upper}`] };
  };
  return Object.fromEntries(regions.map((r) => [r, region(r)])) as Config["regions"];
}

function lifetimeSettings(v: Settings): Config["lifetimes"] {
  return {
    authCode: v.AUTH_CODE_TTL_SECONDS,
    accessToken: v.ACCESS_TOKEN_TTL_SECONDS,
    refreshToken: v.REFRESH_TOKEN_TTL_SECONDS,
    refreshGrace: v.REFRESH_GRACE_SECONDS,
    secretRotationOverlap: v.SECRET_ROTATION_OVERLAP_SECONDS,
    accessRequest: v.ACCESS_REQUEST_TTL_SECONDS,
    consoleRefresh: v.CONSOLE_REFRESH_TTL_SECONDS,
    verifyLink: v.CONSOLE_VERIFY_LINK_TTL_SECONDS,
    resetLink: v.CONSOLE_RESET_LINK_TTL_SECONDS,
    invitation: v.CONSOLE_INVITE_TTL_SECONDS,
  };
}

function limitSettings(v: Settings): Config["limits"] {
  return {
    partnerPerMinute: v.PARTNER_RATE_LIMIT,
    sandboxTokenPerMinute: v.SANDBOX_TOKEN_RATE_LIMIT,
    oauthTokenPerClient: v.OAUTH_TOKEN_CLIENT_RATE_LIMIT,
    oauthTokenPerAddress: v.OAUTH_TOKEN_ADDRESS_RATE_LIMIT,
    oauthInvalidGrants: v.OAUTH_INVALID_GRANT_LIMIT,
    consentSignIn: v.CONSENT_SIGN_IN_LIMIT,
    consoleSignIn: v.CONSOLE_SIGN_IN_LIMIT,
    consoleLockoutSeconds: v.CONSOLE_LOCKOUT_SECONDS,
    consoleSignInPerAddress: v.CONSOLE_SIGN_IN_ADDRESS_LIMIT,
    consoleSignUpPerAddress: v.CONSOLE_SIGN_UP_ADDRESS_LIMIT,
    consoleResetPerAddress: v.CONSOLE_RESET_ADDRESS_LIMIT,
    consoleInvitesPerOrganization: v.CONSOLE_INVITE_LIMIT,
    consoleSandboxProvisionsPerOrganization: v.CONSOLE_SANDBOX_PROVISION_LIMIT,
  };
}

/** Loopback endpoints are allowed by default outside production only (the demo's local receivers). */
function webhookSettings(v: Settings, production: boolean): Config["webhooks"] {
  return {
    allowLoopback: v.WEBHOOK_ALLOW_LOOPBACK === undefined ? !production : v.WEBHOOK_ALLOW_LOOPBACK === "1",
    allowPrivateNetworks: v.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    timeoutSeconds: v.WEBHOOK_TIMEOUT_SECONDS,
    retryScheduleSeconds: v.WEBHOOK_RETRY_SCHEDULE_SECONDS,
    disableAfterSeconds: v.WEBHOOK_DISABLE_AFTER_SECONDS,
    endpointLimit: v.WEBHOOK_ENDPOINT_LIMIT,
    workerConcurrency: v.WEBHOOK_WORKER_CONCURRENCY,
    appConcurrency: v.WEBHOOK_APP_CONCURRENCY ?? Math.floor(v.WEBHOOK_WORKER_CONCURRENCY / 2),
    endpointConcurrency: v.WEBHOOK_ENDPOINT_CONCURRENCY,
  };
}

/** An IPv6 literal goes in brackets inside a URL (RFC 3986 section 3.2.2). */
function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
