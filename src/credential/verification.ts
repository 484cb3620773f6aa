// The credential owner's verifications, as plain functions: a client id and secret (the token endpoint), an API key
// (ADSR partner calls), a merchant user's email and password (the consent site's sign-in). Successful answers are
// cached (credential-context.ts); failures never are. Secrets are compared as hashes in constant time.
import { createHash } from "node:crypto";
import { verifyPassword, unknownPasswordHash } from "./passwords.js";
import { clientIdEnvironment, clientSecretEnvironment, hashesEqual, hashSecret, parseApiKey } from "./secrets.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { createMerchantQueries } from "./queries/merchant-queries.js";
import { merchantUserOf, type MerchantUser } from "./merchant-directory.js";
import { fail, type CredentialContext } from "./credential-context.js";
import type { VerifiedApp, VerifiedClient, VerifiedKey } from "./verified.js";

export interface Verification {
  /** Checks a client id and secret (one in its rotation overlap works); rejects with developer.invalid_client. */
  verifyClientCredentials(clientId: string, clientSecret: string): Promise<VerifiedClient>;
  /** Checks an API key; rejects with partner.api_key_invalid (unknown, revoked, malformed, archived app). */
  verifyApiKey(apiKey: string): Promise<VerifiedKey>;
  /** Checks a merchant user's sign-in; rejects with developer.merchant_user_invalid (unknown email or wrong password). */
  verifyMerchantUser(email: string, password: string): Promise<MerchantUser>;
}

/** A hash of what was presented: the cache key, so the cache never holds a secret in clear. */
const cacheKey = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("base64url");

/** A copy of a cached answer's allowlist, so no caller can change what the next one is given. */
const fresh = <T extends VerifiedApp>(answer: T): T => ({ ...answer, allowedIps: [...answer.allowedIps] });

export function createVerification(credential: CredentialContext): Verification {
  const { sql, now, clientCache, keyCache, config } = credential;
  const unknownUserHash = unknownPasswordHash(config.passwordHashCost);
  return {
    async verifyClientCredentials(clientId, clientSecret) {
      const environment = clientIdEnvironment(clientId);
      // A secret of the other environment can never match; refuse it before touching the database.
      if (!environment || clientSecretEnvironment(clientSecret) !== environment) throw fail("developer.invalid_client");
      const key = cacheKey(clientId, clientSecret);
      const cached = clientCache.peek(key);
      if (cached !== undefined) return fresh(await cached);
      const credentials = createCredentialQueries(sql);
      const client = await credentials.findClient(clientId);
      const presented = hashSecret(clientSecret);
      const secrets =
        client && client.environment === environment ? await credentials.workingSecrets(clientId, now()) : [];
      // Compare against every working secret (at most two) without stopping early.
      let matched: (typeof secrets)[number] | undefined;
      for (const secret of secrets) if (hashesEqual(presented, secret.secret_hash)) matched = secret;
      if (!client || !matched) throw fail("developer.invalid_client");
      const verified: VerifiedClient = {
        clientId,
        appId: client.app_id,
        organizationId: client.organization_id,
        product: client.product,
        environment,
        appState: client.state,
        requireDpop: client.require_dpop,
        allowedIps: await credentials.allowlist({ clientId }),
      };
      clientCache.set(key, verified, matched.expires_at?.getTime());
      return fresh(verified);
    },

    async verifyApiKey(apiKey) {
      const parsed = parseApiKey(apiKey);
      if (!parsed) throw fail("partner.api_key_invalid");
      const key = cacheKey(apiKey);
      const cached = keyCache.peek(key);
      if (cached !== undefined) return fresh(await cached);
      const credentials = createCredentialQueries(sql);
      const row = await credentials.findApiKeyByLookup(parsed.lookupId);
      const matches = row !== undefined && hashesEqual(hashSecret(parsed.secret), row.key_hash);
      // An archived app's keys stop at once: there is no partner-side "archived" code, a dead key is invalid.
      if (!row || !matches || row.environment !== parsed.environment || row.state === "ARCHIVED") {
        throw fail("partner.api_key_invalid");
      }
      const verified: VerifiedKey = {
        apiKeyId: row.id,
        appId: row.app_id,
        organizationId: row.organization_id,
        product: row.product,
        environment: row.environment,
        appState: row.state,
        allowedIps: await credentials.allowlist({ apiKeyId: row.id }),
      };
      keyCache.set(key, verified);
      return fresh(verified);
    },

    async verifyMerchantUser(email, password) {
      const user = await createMerchantQueries(sql).findUserByEmail(email.trim().toLowerCase());
      // Unknown email and wrong password answer alike, and both cost one scrypt.
      const ok = await verifyPassword(password, user?.password_hash ?? unknownUserHash);
      if (!user || !ok) throw fail("developer.merchant_user_invalid");
      return merchantUserOf(user);
    },
  };
}
