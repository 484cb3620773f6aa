// What the deployment tests (test/deploy/) share: the command every process of our image runs, the role a command
// asks main for (as src/main.ts parses it), and an environment with its secrets filled with sample values.
import { isRegion } from "../../src/config/regions.js";
import type { ProcessRole } from "../../src/config/config.js";

/** The compiled main the Dockerfile's CMD runs (tsconfig.build.json's output). */
export const compiledMain = [
  "node",
  "--enable-source-maps",
  "--require",
  "./dist/src/runtime/thread-pool.cjs",
  "dist/src/main.js",
];

/** The role a command runs, parsed as src/main.ts parses it; undefined when main would refuse it. */
export function roleOf(command: readonly string[]): ProcessRole | undefined {
  if (compiledMain.some((part, index) => command[index] !== part)) return undefined;
  const args = command.slice(compiledMain.length);
  if (args.length === 0) return { role: "all" };
  if (args.length === 2 && args[0] === "--role" && ["front", "all", "worker"].includes(args[1]!))
    return { role: args[1] as "front" | "all" | "worker" };
  if (args.length === 4 && args[0] === "--role" && args[1] === "data" && args[2] === "--region" && isRegion(args[3]))
    return { role: "data", region: args[3] };
  return undefined;
}

/** Sample values for the settings a deployment takes from its secrets, shaped as the program checks them. */
export const sampleSecrets: Readonly<Record<string, string>> = {
  TOKEN_KEY_ENCRYPTION_KEY: "ab".repeat(32),
  MAIL_TRANSPORT: "smtps://mailer:secret@smtp.example.com:465",
  DATABASE_URL: "postgres://partner_api:secret@control-db:5432/partner_api",
  REDIS_URL: "redis://:secret@redis:6379",
};

/** A sample for a secret setting: a region's database URL names its region's server; others a plain string. */
export function sampleSecret(name: string): string {
  const region = /^REGION_DATABASE_URL_([A-Z]+)$/.exec(name)?.[1];
  if (region) return `postgres://partner_api:secret@${region.toLowerCase()}-db:5432/partner_api`;
  return sampleSecrets[name] ?? `sample-${name.toLowerCase()}`;
}
