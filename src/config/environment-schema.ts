// The environment the configuration reads, as one zod schema: each variable, its type, its default and its doc
// (docs/configuration.md). ./config.ts reads the parsed settings into the nested Config; ./settings-checks.ts checks
// what a single variable cannot say.
import { commaList } from "./comma-list.js";
import { z } from "zod";
import { canonicalRange, privateRanges, rangeWithin } from "./ip-addresses.js";
import { regions } from "./regions.js";
import { sentinelList, sentinelName } from "./redis-sentinel.js";

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

export const schema = z.object({
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
   * The automatic sandbox merchant's menu: every this many seconds it pauses its second store's online ordering,
   * or resumes it, so a partner sees store.updated events. 0 (the default) turns it off.
   */
  SANDBOX_MENU_AUTOPILOT_SECONDS: z.coerce.number().int().min(0).max(86_400).default(0),
  /**
   * How long the gateway serves a merchant's routing facts (region, demo, active, provisioned) and an app's live
   * grant from its in-process cache: a revoked grant or deactivated merchant is refused within this bound.
   */
  GATEWAY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  /**
   * "1": DPoP proofs must carry a server nonce (RFC 9449 section 8), handed out in `DPoP-Nonce` with a use_dpop_nonce
   * refusal; "0" (default): no nonce needed, each proof's iat window and jti bound its replay (docs/decisions.md, "DPoP").
   */
  DPOP_NONCES: z.enum(["0", "1"]).default("0"),
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

/** Every variable the configuration reads (NODE_ENV aside), for tools that check an environment (compose.yaml). */
export const environmentNames: readonly string[] = Object.keys(schema.shape);

/** The variables as parsed: what the section readers and the checks read. */
export type Settings = z.output<typeof schema>;
