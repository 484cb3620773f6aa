// CredentialService, API keys (ADSR apps only): creation under a per-app ceiling, and revocation for good.
import type { ServiceImpl } from "@connectrpc/connect";
import { Environment, type CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum, type CredentialEnvironment } from "./products.js";
import { newApiKey } from "./secrets.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { serviceError } from "../errors/index.js";
import { domain, fail, invalid, lockLiveApp, parseApiKeyId, type CredentialContext } from "./credential-context.js";

/**
 * Live (not revoked) API keys per app, across both environments. Spec: a ceiling exists, its value is ours.
 * Ten covers a key per integration and environment with room to rotate by overlap (create, switch, revoke).
 */
export const apiKeyLimit = 10;

/** The environment a request names; UNSPECIFIED is a bad request here, not a default. */
const requestedEnvironment = (environment: Environment): CredentialEnvironment | undefined =>
  environment === Environment.SANDBOX ? "SANDBOX" : environment === Environment.PRODUCTION ? "PRODUCTION" : undefined;

export function createApiKeyHandlers(
  credential: CredentialContext,
): Pick<ServiceImpl<typeof CredentialService>, "createApiKey" | "revokeApiKey"> {
  const { sql, ids, logger, now, forget } = credential;
  return {
    async createApiKey(request) {
      const name = request.name.trim();
      const environment = requestedEnvironment(request.environment);
      if (!name || !environment)
        throw invalid([!name && "name", !environment && "environment"].filter(Boolean).join(", "));
      return sql.begin(async (tx) => {
        // The app's row lock serialises key creation, so parallel calls cannot pass the ceiling together.
        const app = await lockLiveApp(tx, request.appId);
        if (app.product !== "ADSR") throw invalid("app_id (API keys exist for ADSR apps only)");
        if (environment === "PRODUCTION" && app.state !== "APPROVED") throw fail("developer.app_not_approved");
        const credentials = createCredentialQueries(tx);
        if ((await credentials.countLiveApiKeys(app.id)) >= apiKeyLimit) {
          throw serviceError(domain, "developer.api_key_limit", { limit: apiKeyLimit });
        }
        const made = newApiKey(ids, environment);
        const id = await credentials.insertApiKey(
          { appId: app.id, environment, name, lookupId: made.lookupId, hash: made.hash },
          now(),
        );
        logger.info("api key created", { appId: app.id, apiKeyId: id, environment });
        return {
          apiKey: {
            apiKeyId: String(id),
            name,
            environment: environmentEnum(environment),
            apiKey: made.key,
            revoked: false,
            allowedIps: [],
          },
        };
      });
    },

    async revokeApiKey(request) {
      const id = parseApiKeyId(request.apiKeyId);
      const revoked = id !== undefined && (await createCredentialQueries(sql).revokeApiKey(id, now()));
      if (!revoked) throw fail("developer.api_key_not_found");
      forget();
      logger.info("api key revoked", { apiKeyId: id });
      return { revoked };
    },
  };
}
