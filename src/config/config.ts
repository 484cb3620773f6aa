// The one configuration object, read from the environment and validated with zod; every knob has a documented
// default (README, "Configuration"), and bad configuration stops the start with a message naming the variable.
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().int().positive();
const url = z.string().url();

/** An smtp:// or smtps:// URL with a host. */
function smtpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === "smtp:" || parsed.protocol === "smtps:") && parsed.hostname !== "";
  } catch {
    return false;
  }
}

/** Turns "" into undefined so an empty variable means "unset", as shells commonly produce. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema.optional());

const schema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: port.default(8080),
  AUTH_PORT: port.default(8081),
  GRPC_PORT: port.default(8090),
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
   * gRPC at this URL (h2c); unset: the DataService runs in this process on the region's database.
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
      const names = text.split(",").map((name) => name.trim()).filter((name) => name !== "");
      const known = ["uk", "us", "in", "ae"] as const;
      const unknown = names.filter((name) => !(known as readonly string[]).includes(name));
      if (unknown.length > 0) context.addIssue({ code: "custom", message: `unknown region ${unknown.join(", ")} (known: uk, us, in, ae)` });
      return known.filter((region) => names.includes(region));
    }),
  DATA_DIR: z.string().min(1).default(".data"),
  REDIS_URL: optional(url),
  /** How many proxies in front of us may be trusted to append to X-Forwarded-For; 0 ignores the header. */
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  /** Largest request body the front reads, in bytes; larger ones are a 413 and are not read further. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(64 * 1024),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** How long shutdown waits for requests in flight before closing connections. */
  SHUTDOWN_GRACE_SECONDS: seconds.default(10),
  AUTH_CODE_TTL_SECONDS: seconds.default(300),
  ACCESS_TOKEN_TTL_SECONDS: seconds.default(900),
  REFRESH_TOKEN_TTL_SECONDS: seconds.default(8_640_000),
  /** A lost refresh response can be replayed this long (docs/decisions.md, "Refresh grace window"). */
  REFRESH_GRACE_SECONDS: seconds.default(60),
  SECRET_ROTATION_OVERLAP_SECONDS: seconds.default(86_400),
  /** Verified client secrets and API keys are cached in process this long; a revocation takes effect within it. */
  CREDENTIAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  /** Region of a sandbox merchant whose country is not GB, US, IN or AE. */
  SANDBOX_DEFAULT_REGION: z.enum(["uk", "us", "in", "ae"]).default("us"),
  ACCESS_REQUEST_TTL_SECONDS: seconds.default(2_592_000),
  /**
   * How long the gateway serves a merchant's routing facts (region, demo, active, provisioned) and an app's live
   * grant from its in-process cache: a revoked grant or deactivated merchant is refused within this bound.
   */
  GATEWAY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
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
  /** invalid_grant answers per client id in a fixed 10-minute window before that client is slowed down. */
  OAUTH_INVALID_GRANT_LIMIT: z.coerce.number().int().positive().default(20),
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
  /** Where the console's web pages live; mailed links point here. Unset: BASE_URL plus "console". */
  CONSOLE_URL: optional(url),
  /** Failed console sign-ins per email per fixed window before the account is locked for the rest of it. */
  CONSOLE_SIGN_IN_LIMIT: z.coerce.number().int().positive().default(5),
  /** The console's sign-in lockout window. */
  CONSOLE_LOCKOUT_SECONDS: seconds.default(900),
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

/** The validated configuration, with derived URLs filled in. */
export type Config = Omit<z.output<typeof schema>, "BASE_URL" | "AUTH_URL"> & {
  /** Public base URL with a trailing slash, e.g. http://127.0.0.1:8080/ */
  BASE_URL: string;
  /** Consent site origin without a trailing slash, e.g. http://127.0.0.1:8081 */
  AUTH_URL: string;
};

/** Raised when the environment does not describe a valid configuration; the message names each variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the configuration from `env` (process.env by default). Throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const values = parsed.data;
  const base = values.BASE_URL ?? `http://${hostForUrl(values.HOST)}:${values.PORT}/`;
  const auth = values.AUTH_URL ?? `http://${hostForUrl(values.HOST)}:${values.AUTH_PORT}`;
  return {
    ...values,
    BASE_URL: base.endsWith("/") ? base : base + "/",
    AUTH_URL: auth.replace(/\/+$/, ""),
  };
}

/** An IPv6 literal goes in brackets inside a URL (RFC 3986 section 3.2.2). */
function hostForUrl(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
