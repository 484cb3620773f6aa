// CredentialService, verification: a client id and secret (token endpoint), an API key (ADSR partner calls).
// Successful answers are cached (context.ts); failures never are.
import { environmentEnum, productEnum } from "./products.js";
import { createHash } from "node:crypto";
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { clientIdEnvironment, clientSecretEnvironment, hashesEqual, hashSecret, parseApiKey } from "./secrets.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { fail, type CredentialContext, type VerifiedAppInit } from "./credential-context.js";

/** A hash of what was presented: the cache key, so the cache never holds a secret in clear. */
const cacheKey = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("base64url");

export function createVerificationHandlers(
  credential: CredentialContext,
): Pick<ServiceImpl<typeof CredentialService>, "verifyClientCredentials" | "verifyApiKey"> {
  const { sql, now, clientCache, keyCache } = credential;
  return {
    async verifyClientCredentials(request) {
      const { clientId, clientSecret } = request;
      const environment = clientIdEnvironment(clientId);
      // A secret of the other environment can never match; refuse it before touching the database.
      if (!environment || clientSecretEnvironment(clientSecret) !== environment) throw fail("developer.invalid_client");
      const key = cacheKey(clientId, clientSecret);
      const cached = clientCache.peek(key);
      if (cached) return { app: await cached, clientId };
      const credentials = createCredentialQueries(sql);
      const client = await credentials.findClient(clientId);
      const presented = hashSecret(clientSecret);
      const secrets =
        client && client.environment === environment ? await credentials.workingSecrets(clientId, now()) : [];
      // Compare against every working secret (at most two) without stopping early.
      let matched: (typeof secrets)[number] | undefined;
      for (const secret of secrets) if (hashesEqual(presented, secret.secret_hash)) matched = secret;
      if (!client || !matched) throw fail("developer.invalid_client");
      const app: VerifiedAppInit = {
        appId: client.app_id,
        organizationId: BigInt(client.organization_id),
        product: productEnum(client.product),
        environment: environmentEnum(environment),
        appState: client.state,
        allowedIps: await credentials.allowlist({ clientId }),
      };
      clientCache.set(key, app, matched.expires_at?.getTime());
      return { app, clientId };
    },

    async verifyApiKey(request) {
      const parsed = parseApiKey(request.apiKey);
      if (!parsed) throw fail("partner.api_key_invalid");
      const key = cacheKey(request.apiKey);
      const cached = keyCache.peek(key);
      if (cached) return cached;
      const credentials = createCredentialQueries(sql);
      const row = await credentials.findApiKeyByLookup(parsed.lookupId);
      const matches = row !== undefined && hashesEqual(hashSecret(parsed.secret), row.key_hash);
      // An archived app's keys stop at once: there is no partner-side "archived" code, a dead key is invalid.
      if (!row || !matches || row.environment !== parsed.environment || row.state === "ARCHIVED") {
        throw fail("partner.api_key_invalid");
      }
      const answer = {
        app: {
          appId: row.app_id,
          organizationId: BigInt(row.organization_id),
          product: productEnum(row.product),
          environment: environmentEnum(row.environment),
          appState: row.state,
          allowedIps: await credentials.allowlist({ apiKeyId: row.id }),
        },
        apiKeyId: String(row.id),
      };
      keyCache.set(key, answer);
      return answer;
    },
  };
}
