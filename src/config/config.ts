// The one configuration object, read from the environment and validated with zod; every knob has a documented
// default (docs/configuration.md), and bad configuration stops the start with a message naming the variable.
import { commaList } from "./comma-list.js";
import { join } from "node:path";
import { z } from "zod";
import { canonicalRange, privateRanges, rangeWithin } from "./ip-addresses.js";
import { regions, type Region } from "./regions.js";
import { redisSentinelSetting, sentinelList, sentinelName, type RedisSentinelConfig } from "./redis-sentinel.js";

/** scrypt's least cost (log2 N) for passwords in production, and the default: OWASP's minimum, N = 2^15. */
export const productionPasswordHashCost = 15;

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().int().positive();
const secondsOrZero = z.coerce.number().int().min(0);
const url = z.string().url();

/** An smtp:// or smtps:// URL with a host. */
function smtpUrl(value: string): boolean {
  const parsed = URL.parse(value);
  return (parsed?.protocol === "smtp:" || parsed?.protocol === "smtps:") && parsed.hostname !== "";
}

/** Turns "" into undefined so an empty variable means "unset", as shells commonly produce. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

const schema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: port.default(8080),
  AUTH_PORT: port.default(8081),
  /** The developer console's web pages (its own listener, like the consent site's AUTH_PORT). */
  CONSOLE_PORT: port.default(8082),
  GRPC_PORT: port.default(8090),
  /** The internal port's own bind address, independent of HOST: it must never be published. */
  GRPC_HOST: z.string().min(1).default("127.0.0.1"),
  /**
   * A `--role data` process's region hop: its DataService on a @grpc/grpc-js server of its own, bound to GRPC_HOST
   * with the internal port's TLS and credentials; fronts' REGION_GRPC_URL_<R> point here.
   */
  REGION_GRPC_PORT: port.default(8091),
  /**
   * The internal port's accepted service credentials: a file of "<role> <id> <sha256 hex>" lines. Unset:
   * DATA_DIR/internal-credentials (generated with an operator credential on a brand-new embedded start).
   */
  GRPC_CREDENTIALS_FILE: optional(z.string().min(1)),
  /** PEM certificate chain and private key: the internal port then speaks TLS only (h2 and HTTP/1.1 by ALPN). */
  GRPC_TLS_CERT: optional(z.string().min(1)),
  GRPC_TLS_KEY: optional(z.string().min(1)),
  /** A file holding the `front` service credential this process presents to remote regions' DataServices. */
  REGION_GRPC_CREDENTIAL_FILE: optional(z.string().min(1)),
  /** PEM CA certificates trusted for https REGION_GRPC_URL_<R> (a private PKI); unset: the system's CAs. */
  REGION_GRPC_CA: optional(z.string().min(1)),
  /** Public base of the API as partners reach it; api_base_url is this plus "v1/". */
  BASE_URL: optional(url),
  /** Where merchants' browsers reach the consent site. */
  AUTH_URL: optional(url),
  DATABASE_URL: optional(url),
  REGION_DATABASE_URL_UK: optional(url),
  REGION_DATABASE_URL_US: optional(url),
  REGION_DATABASE_URL_IN: optional(url),
  REGION_DATABASE_URL_AE: optional(url),
  /**
   * A region whose DataService runs in another process (`npm start -- --role data --region <r>`), reached over
   * gRPC at this URL (h2c for http:, TLS for https:); unset: the DataService runs in this process on the region's database.
   */
  REGION_GRPC_URL_UK: optional(url),
  REGION_GRPC_URL_US: optional(url),
  REGION_GRPC_URL_IN: optional(url),
  REGION_GRPC_URL_AE: optional(url),
  /** The regions this deployment serves, comma separated; a partner call for another answers partner.region_unavailable. */
  REGIONS: z
    .string()
    .default("uk,us,in,ae")
    .transform((text, context) => {
      const names = commaList(text);
      const unknown = names.filter((name) => !(regions as readonly string[]).includes(name));
      if (unknown.length > 0)
        context.addIssue({
          code: "custom",
          message: `unknown region ${unknown.join(", ")} (known: ${regions.join(", ")})`,
        });
      return regions.filter((region) => names.includes(region));
    }),
  DATA_DIR: z.string().min(1).default(".data"),
  REDIS_URL: optional(url),
  /** Redis behind Sentinel: the sentinels (host:port, comma separated) and the primary's name (./redis-sentinel.ts). */
  REDIS_SENTINELS: optional(sentinelList),
  REDIS_SENTINEL_NAME: optional(sentinelName),
  /**
   * How long a limit's count waits for Redis before counting in this process instead (src/storage/fixed-window.ts):
   * a slow Redis must not slow every call. Under CPU saturation Redis's answer can sit unread past a short bound.
   */
  REDIS_COUNT_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  /**
   * The proxies whose X-Forwarded-For is believed: addresses and CIDR ranges, IPv4 and IPv6, comma separated;
   * unset trusts none (src/runtime/client-address.ts). The old hop count is refused with a message saying so.
   */
  TRUST_PROXY: z
    .string()
    .default("")
    .transform((text, context) => {
      const entries = commaList(text);
      if (entries.some((entry) => /^\d+$/.test(entry))) {
        context.addIssue({
          code: "custom",
          message:
            "a hop count is no longer accepted (it trusted X-Forwarded-For even on requests that reached us directly); " +
            "list the trusted proxies' addresses or CIDR ranges, comma separated (e.g. 10.0.0.0/8,::1), or leave it unset to trust none",
        });
        return [];
      }
      const unreadable = entries.filter((entry) => canonicalRange(entry) === undefined);
      if (unreadable.length > 0)
        context.addIssue({ code: "custom", message: `not an address or CIDR range: ${unreadable.join(", ")}` });
      return [...new Set(entries.map((entry) => canonicalRange(entry) ?? entry))];
    }),
  /** Largest request body the front reads, in bytes; larger ones are a 413 and are not read further. */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** 1: human-readable colored log lines (pino-pretty) for development; default 0, JSON lines. */
  LOG_PRETTY: z.enum(["0", "1"]).default("0"),
  /**
   * A listener of its own for GET /metrics (Prometheus text format), on METRICS_HOST; unset: none (the internal
   * port serves GET /metrics in any case). Never publish it.
   */
  METRICS_PORT: optional(port),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** How long shutdown waits for requests in flight before closing connections. */
  SHUTDOWN_GRACE_SECONDS: seconds.default(10),
  /**
   * How long shutdown keeps serving while /readyz answers 503, before it stops accepting (docs/decisions.md). Unset:
   * 5 s, or 0 on the embedded PGlite (no DATABASE_URL): a local process has no balancer to tell.
   */
  SHUTDOWN_DRAIN_SECONDS: optional(secondsOrZero.max(300)),
  AUTH_CODE_TTL_SECONDS: seconds.default(300),
  ACCESS_TOKEN_TTL_SECONDS: seconds.default(900),
  REFRESH_TOKEN_TTL_SECONDS: seconds.default(8_640_000),
  /** A lost refresh response can be replayed this long (docs/decisions.md, "Refresh grace window"). */
  REFRESH_GRACE_SECONDS: seconds.default(60),
  SECRET_ROTATION_OVERLAP_SECONDS: seconds.default(86_400),
  /** Verified client secrets and API keys are cached in process this long; a revocation takes effect within it. */
  CREDENTIAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  /** Region of a sandbox merchant whose country is not GB, US, IN or AE. */
  SANDBOX_DEFAULT_REGION: z.enum(regions).default("us"),
  ACCESS_REQUEST_TTL_SECONDS: seconds.default(2_592_000),
  /** A PENDING online order with no decision this long after it was placed is REJECTED with reason TIMED_OUT. */
  ONLINE_ORDER_DECISION_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  /**
   * The automatic sandbox merchant's step: an order placed on a sandbox merchant is accepted (or, for customer name
   * REJECT, rejected) this long after it was placed, then becomes READY and COMPLETED a step apart. 0 turns it off.
   */
  SANDBOX_ORDER_AUTOPILOT_SECONDS: z.coerce.number().int().min(0).max(3_600).default(10),
  /**
   * How long the gateway serves a merchant's routing facts (region, demo, active, provisioned) and an app's live
   * grant from its in-process cache: a revoked grant or deactivated merchant is refused within this bound.
   */
  GATEWAY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  /**
   * How often the partner request log's buffer is written (src/request-log/): the console shows a call from another
   * instance within this bound, and this process's own calls at once.
   */
  REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  /** A connection attempt to PostgreSQL gives up after this long (docs/decisions.md, "Storage"). */
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(30).default(2),
  /** PostgreSQL cancels a statement after this long (statement_timeout): a call's wait on the database is bounded. */
  DATABASE_QUERY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(5),
  /**
   * A request to the public front answers 504 server.timeout after this long, whatever it waits for (docs/decisions.md,
   * "Hostile input and silent dependencies"). Above the database's reply deadline (query timeout + 1 s) and the
   * region hop's 10 s, so a dependency that stops answering is told as such (503) before the request's own time ends.
   */
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  /** Partner calls per app per fixed minute. */
  PARTNER_RATE_LIMIT: z.coerce.number().int().positive().default(300),
  /** POST /v1/token calls per source address per fixed minute. */
  SANDBOX_TOKEN_RATE_LIMIT: z.coerce.number().int().positive().default(30),
  /**
   * Key-encryption key of the signing keys' private parts: 32 bytes as 64 hex digits or base64/base64url.
   * Unset: read from (or generated into) DATA_DIR/token-key-encryption-key, with a warning.
   */
  TOKEN_KEY_ENCRYPTION_KEY: optional(z.string().min(1)),
  /** POST /v1/oauth/token calls per client id per fixed minute (docs/decisions.md, "OAuth"). */
  OAUTH_TOKEN_CLIENT_RATE_LIMIT: z.coerce.number().int().positive().default(600),
  /** POST /v1/oauth/token calls per source address per fixed minute. */
  OAUTH_TOKEN_ADDRESS_RATE_LIMIT: z.coerce.number().int().positive().default(300),
  /**
   * invalid_grant answers for one presented code or refresh token (of one client) in a fixed 10-minute window
   * before that credential is slowed down; the spec says never to retry one, so the default slows the first retry.
   */
  OAUTH_INVALID_GRANT_LIMIT: z.coerce.number().int().positive().default(1),
  /**
   * scrypt's cost for new passwords (merchant users, developer accounts), as log2 of N: 15 is 32 MiB and tens of
   * milliseconds a hash (OWASP's minimum); each step doubles both. Below 15 only outside NODE_ENV=production (the
   * test suite hashes hundreds of passwords). Stored hashes keep their own cost.
   */
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(productionPasswordHashCost),
  /** Consent-site sign-in attempts per email, and ten times as many per source address, per fixed 15 minutes. */
  CONSENT_SIGN_IN_LIMIT: z.coerce.number().int().positive().default(10),
  /**
   * How the console mails links: `log` writes each mail (link included) to the log, for local use; an `smtp://` or
   * `smtps://` URL (credentials in it if the server wants them) sends through nodemailer.
   */
  MAIL_TRANSPORT: z
    .string()
    .default("log")
    .refine((value) => value === "log" || smtpUrl(value), { message: 'must be "log" or an smtp:// or smtps:// URL' }),
  /** The sender of the console's mails over SMTP. */
  MAIL_FROM: z.string().trim().min(1).default("Partner API <no-reply@localhost>"),
  /**
   * Whether sandbox webhook endpoints may be http(s)://127.0.0.1 / localhost / [::1] (a developer's own machine).
   * Unset: on, except under NODE_ENV=production. Production endpoints never may.
   */
  WEBHOOK_ALLOW_LOOPBACK: optional(z.enum(["0", "1"])),
  /**
   * The private networks (CIDR ranges or addresses, comma separated) sandbox webhook endpoints may reach: an
   * operator's own test receivers. Each must lie inside RFC 1918, carrier-grade NAT or unique-local space; loopback
   * is WEBHOOK_ALLOW_LOOPBACK's, and link-local (the metadata address) is never allowed. Unset: none.
   */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .string()
    .default("")
    .transform((text, context) => {
      const entries = commaList(text);
      const unreadable = entries.filter((entry) => canonicalRange(entry) === undefined);
      if (unreadable.length > 0) {
        context.addIssue({ code: "custom", message: `not an address or CIDR range: ${unreadable.join(", ")}` });
        return [];
      }
      const outside = entries.filter((entry) => !rangeWithin(entry, privateRanges));
      if (outside.length > 0)
        context.addIssue({
          code: "custom",
          message: `not inside a private network (${privateRanges.join(", ")}): ${outside.join(", ")}`,
        });
      return [...new Set(entries.map((entry) => canonicalRange(entry)!))];
    }),
  /** A delivery attempt's whole budget (connect, headers, body): a 2xx within it is success. */
  WEBHOOK_TIMEOUT_SECONDS: seconds.default(15),
  /** The pauses before each retry of a failed delivery, comma-separated seconds (Standard Webhooks' schedule). */
  WEBHOOK_RETRY_SCHEDULE_SECONDS: z
    .string()
    .default("5,300,1800,7200,18000,36000,36000")
    .transform((text) => text.split(",").map((part) => Number(part.trim())))
    .refine(
      (list) => list.length > 0 && list.every((n) => Number.isInteger(n) && n >= 0),
      "comma-separated whole seconds",
    ),
  /** An endpoint failing every attempt for this long in a row is disabled and its organization mailed (5 days). */
  WEBHOOK_DISABLE_AFTER_SECONDS: seconds.default(432_000),
  /** Webhook endpoints per app and environment. */
  WEBHOOK_ENDPOINT_LIMIT: z.coerce.number().int().positive().default(10),
  /** Delivery attempts one process runs at once. */
  WEBHOOK_WORKER_CONCURRENCY: z.coerce.number().int().min(2).default(16),
  /** Of which one app's endpoints hold at most this many (tenant isolation; below WEBHOOK_WORKER_CONCURRENCY).
   * Unset: half of WEBHOOK_WORKER_CONCURRENCY. */
  WEBHOOK_APP_CONCURRENCY: optional(z.coerce.number().int().positive()),
  /** Attempts in flight to one endpoint at once across every worker (fair scheduling: one slow receiver's backlog
   * never holds more than this many of the slots). */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** Where the console's web pages live; mailed links point here. Unset: the console listener, http://HOST:CONSOLE_PORT. */
  CONSOLE_URL: optional(url),
  /**
   * Failed console sign-ins per (email, source address) per fixed window, the one that reaches it locks that pair for
   * CONSOLE_LOCKOUT_SECONDS; past as many failures of an email from everywhere, its sign-ins are slowed, never locked.
   */
  CONSOLE_SIGN_IN_LIMIT: z.coerce.number().int().positive().default(5),
  /** The console's sign-in window, and how long a pair's lock lasts from the failure that set it. */
  CONSOLE_LOCKOUT_SECONDS: seconds.default(900),
  /** Failed console sign-ins per source address per CONSOLE_LOCKOUT_SECONDS window (any emails). */
  CONSOLE_SIGN_IN_ADDRESS_LIMIT: z.coerce.number().int().positive().default(20),
  /** Console sign-ups per source address per fixed hour. */
  CONSOLE_SIGN_UP_ADDRESS_LIMIT: z.coerce.number().int().positive().default(10),
  /** Console password-reset requests per source address per fixed hour. */
  CONSOLE_RESET_ADDRESS_LIMIT: z.coerce.number().int().positive().default(20),
  /** Organization invitations per organization per fixed day (UTC). */
  CONSOLE_INVITE_LIMIT: z.coerce.number().int().positive().default(50),
  /** Sandbox merchant provisions per organization per fixed day (UTC), deactivated ones included. */
  CONSOLE_SANDBOX_PROVISION_LIMIT: z.coerce.number().int().positive().default(10),
  /** A console refresh token's lifetime (rolling: each rotation issues a fresh one). */
  CONSOLE_REFRESH_TTL_SECONDS: seconds.default(1_209_600),
  /** Email verification links. */
  CONSOLE_VERIFY_LINK_TTL_SECONDS: seconds.default(86_400),
  /** Password reset links. */
  CONSOLE_RESET_LINK_TTL_SECONDS: seconds.default(3_600),
  /** Organization invitation links. */
  CONSOLE_INVITE_TTL_SECONDS: seconds.default(604_800),
});

export type Environment = z.input<typeof schema>;

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
  };
  /** How long in-process caches serve an answer, in seconds: the bound on how late a revocation shows. */
  caches: {
    credentialSeconds: number;
    gatewaySeconds: number;
  };
  /** The partner request log: how often its in-process buffer is written, in milliseconds. */
  requestLog: { flushMs: number };
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

/** Raised when the environment does not describe a valid configuration; the message names each variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Every variable the configuration reads (NODE_ENV aside), for tools that check an environment (compose.yaml). */
export const environmentNames: readonly string[] = Object.keys(schema.shape);

/**
 * What the process will run, for the production checks: a `--role data --region <r>` process opens only its region's
 * database, so it needs that database and nothing else (no Redis, no token key, no mail: least privilege).
 */
export type ProcessRole = { role: "all" | "front" | "worker" } | { role: "data"; region: Region };

type Settings = z.output<typeof schema>;
type ProcessEnvironment = Record<string, string | undefined>;

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
    },
    caches: { credentialSeconds: v.CREDENTIAL_CACHE_SECONDS, gatewaySeconds: v.GATEWAY_CACHE_SECONDS },
    requestLog: { flushMs: v.REQUEST_LOG_FLUSH_MS },
    limits: limitSettings(v),
    mail: { transport: v.MAIL_TRANSPORT, from: v.MAIL_FROM },
    webhooks: webhookSettings(v, production),
  };
}

/** The variables parsed, then the checks across variables and, with NODE_ENV=production, the role's. */
function checkedSettings(env: ProcessEnvironment, runs: ProcessRole): Settings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const v = parsed.data;
  // An app's share of the slots must leave some to every other app (issue 36: one tenant's dead endpoints).
  if (v.WEBHOOK_APP_CONCURRENCY !== undefined && v.WEBHOOK_APP_CONCURRENCY >= v.WEBHOOK_WORKER_CONCURRENCY) {
    throw new ConfigError(
      `invalid configuration: WEBHOOK_APP_CONCURRENCY (${v.WEBHOOK_APP_CONCURRENCY}) must be below WEBHOOK_WORKER_CONCURRENCY (${v.WEBHOOK_WORKER_CONCURRENCY}), or one app's endpoints could hold every slot`,
    );
  }
  if ((v.GRPC_TLS_CERT === undefined) !== (v.GRPC_TLS_KEY === undefined)) {
    throw new ConfigError("invalid configuration: GRPC_TLS_CERT and GRPC_TLS_KEY go together: set both or neither");
  }
  const redis = redisSentinelSetting(v);
  if (redis.problems.length > 0) throw new ConfigError(`invalid configuration: ${redis.problems.join("; ")}`);
  if (env["NODE_ENV"] === "production") {
    const problems = runs.role === "data" ? dataRoleProductionProblems(v, runs.region) : productionProblems(v);
    if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  return v;
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

/**
 * What NODE_ENV=production refuses: the settings that exist so `npm start` works on a laptop. REDIS_URL is required
 * outright: one process cannot know whether a second front exists, and limits kept per process are wrong as soon
 * as one does (docs/decisions.md, "Storage").
 */
function productionProblems(v: Settings): string[] {
  const problems: string[] = [];
  if (v.DATABASE_URL === undefined)
    problems.push("DATABASE_URL: required when NODE_ENV=production (the embedded PGlite is for development)");
  if (v.REDIS_URL === undefined && v.REDIS_SENTINELS === undefined) {
    problems.push(
      "REDIS_URL: required when NODE_ENV=production, or REDIS_SENTINELS (without Redis every process keeps its own limits and throttles)",
    );
  }
  if (v.TOKEN_KEY_ENCRYPTION_KEY === undefined) {
    problems.push(
      "TOKEN_KEY_ENCRYPTION_KEY: required when NODE_ENV=production (a key generated into DATA_DIR is for development)",
    );
  }
  if (v.PASSWORD_HASH_COST < productionPasswordHashCost) {
    problems.push(
      `PASSWORD_HASH_COST: at least ${productionPasswordHashCost} when NODE_ENV=production (OWASP's minimum for scrypt; lower is for tests)`,
    );
  }
  if (v.MAIL_TRANSPORT === "log") {
    problems.push(
      "MAIL_TRANSPORT: must be an smtp:// or smtps:// URL when NODE_ENV=production (log writes mailed links to the log)",
    );
  }
  return problems;
}

/** A data role in production: its region's PostgreSQL (REGION_DATABASE_URL_<R>, else DATABASE_URL), never PGlite. */
function dataRoleProductionProblems(v: Settings, region: Region): string[] {
  const variable = `REGION_DATABASE_URL_${region.toUpperCase()}` as const;
  const url = v[variable as keyof typeof v] ?? v.DATABASE_URL;
  return url === undefined
    ? [`${variable} or DATABASE_URL: required when NODE_ENV=production (the embedded PGlite is for development)`]
    : [];
}

/** An IPv6 literal goes in brackets inside a URL (RFC 3986 section 3.2.2). */
function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
