// The scrypt cost (PASSWORD_HASH_COST, log2 N) of the apps and processes the suite starts: 2^10 (1 MiB, about a
// millisecond) instead of production's 2^15 (32 MiB, about 60 ms of CPU and 8,000 fresh pages a hash). The suite
// hashes thousands of passwords (sign-ups, merchant users, sandbox owners, the demo); at the production cost that
// was a third of its CPU. scrypt at the production cost has its own tests (test/credential/passwords.test.ts), and
// so has NODE_ENV=production's refusal of less (test/config/config.test.ts).
export const testPasswordHashCost = "10";

/** The suite's cost as a program's environment entry, except under NODE_ENV=production, which refuses it. */
export function testPasswordCostEnv(env: Record<string, string | undefined>): Record<string, string> {
  return env["NODE_ENV"] === "production" ? {} : { PASSWORD_HASH_COST: testPasswordHashCost };
}
