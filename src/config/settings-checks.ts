// The checks across variables that the schema cannot say (a pair set together, a share below its whole) and, with
// NODE_ENV=production, what the process's role must have; a failure is a ConfigError naming each variable.
import { redisSentinelSetting } from "./redis-sentinel.js";
import type { Region } from "./regions.js";
import { productionPasswordHashCost, schema, type Settings } from "./environment-schema.js";

/** Raised when the environment does not describe a valid configuration; the message names each variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * What the process will run, for the production checks: a `--role data --region <r>` process opens only its region's
 * database, so it needs that database and nothing else (no Redis, no token key, no mail: least privilege).
 */
export type ProcessRole = { role: "all" | "front" | "worker" } | { role: "data"; region: Region };

export type ProcessEnvironment = Record<string, string | undefined>;

/** The variables parsed, then the checks across variables and, with NODE_ENV=production, the role's. */
export function checkedSettings(env: ProcessEnvironment, runs: ProcessRole): Settings {
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
