// The credential owner's API keys (ADSR apps only): creation under a per-app ceiling, and revocation for good.
import type { CredentialEnvironment } from "./products.js";
import { newApiKey } from "./secrets.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { serviceError } from "../errors/index.js";
import { domain, fail, invalid, lockLiveApp, type CredentialContext } from "./credential-context.js";

/**
 * Live (not revoked) API keys per app, across both environments. Spec: a ceiling exists, its value is ours.
 * Ten covers a key per integration and environment with room to rotate by overlap (create, switch, revoke).
 */
export const apiKeyLimit = 10;

/** A key just made: the key itself is shown once, here, and stored only as a hash of its random part. */
export interface NewApiKey {
  apiKeyId: number;
  name: string;
  environment: CredentialEnvironment;
  apiKey: string;
}

export interface ApiKeys {
  /** `environment` undefined is a bad request; production keys need an APPROVED app. */
  createApiKey(
    appId: string,
    key: { name: string; environment: CredentialEnvironment | undefined },
  ): Promise<NewApiKey>;
  /** Revokes a live key for good; developer.api_key_not_found otherwise. */
  revokeApiKey(apiKeyId: number): Promise<void>;
}

export function createApiKeys(credential: CredentialContext): ApiKeys {
  const { sql, ids, logger, now, forget } = credential;
  return {
    async createApiKey(appId, request) {
      const name = request.name.trim();
      const environment = request.environment;
      if (!name || !environment)
        throw invalid([!name && "name", !environment && "environment"].filter(Boolean).join(", "));
      return sql.begin(async (tx) => {
        // The app's row lock serialises key creation, so parallel calls cannot pass the ceiling together.
        const app = await lockLiveApp(tx, appId);
        if (app.product !== "ADSR") throw invalid("app_id (API keys exist for ADSR apps only)");
        if (environment === "PRODUCTION" && app.state !== "APPROVED") throw fail("developer.app_not_approved");
        const credentials = createCredentialQueries(tx);
        // A name tells the app's keys apart (the console's revoke and allowlist controls are named by it).
        if (await credentials.liveApiKeyNamed(app.id, name)) throw serviceError(domain, "developer.api_key_name_taken");
        if ((await credentials.countLiveApiKeys(app.id)) >= apiKeyLimit) {
          throw serviceError(domain, "developer.api_key_limit", { limit: apiKeyLimit });
        }
        const made = newApiKey(ids, environment);
        const id = await credentials.insertApiKey(
          { appId: app.id, environment, name, lookupId: made.lookupId, hash: made.hash },
          now(),
        );
        logger.info("api key created", { appId: app.id, apiKeyId: id, environment });
        return { apiKeyId: id, name, environment, apiKey: made.key };
      });
    },

    async revokeApiKey(id) {
      const revoked = await createCredentialQueries(sql).revokeApiKey(id, now());
      if (!revoked) throw fail("developer.api_key_not_found");
      forget();
      logger.info("api key revoked", { apiKeyId: id });
    },
  };
}
