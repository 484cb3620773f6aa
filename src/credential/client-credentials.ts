// The credential owner's client credentials: secret rotation with overlap, the one-time reveal of a production secret,
// revocation, and the IP allowlists (of a client id or an API key). Every change clears the verification caches.
import { validateAllowlist } from "./ip-allowlist.js";
import type { NewClient } from "./apps.js";
import { hashSecret, newClientSecret } from "./secrets.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { serviceError } from "../errors/index.js";
import { domain, fail, invalid, lockLiveApp, parseApiKeyId, type CredentialContext } from "./credential-context.js";

/** A secret just made by a rotation (shown once); the previous one works until its overlap ends. */
export interface RotatedSecret {
  clientId: string;
  clientSecret: string;
  /** When the previous secret stops working; undefined when there was none. */
  previousSecretExpiresAt: Date | undefined;
}

export interface ClientCredentials {
  /**
   * A new secret, handed to `shownTo` (recorded when it is the client id's first); the current one keeps working for
   * SECRET_ROTATION_OVERLAP_SECONDS.
   */
  rotateClientSecret(clientId: string, shownTo: string): Promise<RotatedSecret>;
  /**
   * The production secret of an APPROVED app, shown once to `shownTo`: a new one replaces the one issued at approval,
   * which is why it is refused (developer.production_credentials_already_shown) once any secret of it was handed out.
   */
  revealProductionSecret(appId: string, shownTo: string): Promise<NewClient & { allowedIps: string[] }>;
  /**
   * Records that the secrets of an app's live client ids were handed out to `shownTo` (the demo writing demo.json):
   * a later reveal would kill a secret in use, so the console offers rotation instead.
   */
  recordSecretsShown(appId: string, shownTo: string): Promise<void>;
  /** Revokes a client id for good; developer.credential_not_found when it is not live. */
  revokeClientCredential(clientId: string): Promise<void>;
  /**
   * Replaces the allowlist of exactly one of a client id and an API key (the other empty); the entries as stored
   * (canonical form).
   */
  setIpAllowlist(target: { clientId: string; apiKeyId: string }, allowedIps: readonly string[]): Promise<string[]>;
}

export function createClientCredentials(credential: CredentialContext): ClientCredentials {
  const { sql, ids, config, logger, now, forget } = credential;
  return {
    async rotateClientSecret(clientId, shownTo) {
      const result = await sql.begin(async (tx) => {
        const credentials = createCredentialQueries(tx);
        // The credential's row lock serialises rotations: two at once leave at most two working secrets.
        const client = await credentials.findClient(clientId, { lock: true });
        if (!client) throw fail("developer.credential_not_found");
        if (client.state === "ARCHIVED") throw fail("developer.app_archived");
        const at = now();
        const overlapEnd = new Date(at.getTime() + config.lifetimes.secretRotationOverlap * 1000);
        const hadCurrent = (await credentials.workingSecrets(client.client_id, at)).some(
          (secret) => secret.expires_at === null,
        );
        await credentials.startOverlap(client.client_id, at, overlapEnd);
        const clientSecret = newClientSecret(ids, client.environment);
        await credentials.insertSecret(client.client_id, hashSecret(clientSecret), at);
        await credentials.recordSecretShown(client.client_id, at, shownTo);
        return {
          clientId: client.client_id,
          clientSecret,
          previousSecretExpiresAt: hadCurrent ? overlapEnd : undefined,
        };
      });
      forget();
      logger.info("client secret rotated", { clientId: result.clientId });
      return result;
    },

    async revealProductionSecret(appId, shownTo) {
      const production = await sql.begin(async (tx) => {
        const app = await lockLiveApp(tx, appId);
        if (app.state !== "APPROVED") throw fail("developer.app_not_approved");
        const credentials = createCredentialQueries(tx);
        const live = (await credentials.liveClients(app.id)).find((client) => client.environment === "PRODUCTION");
        // The client's row lock orders this after any rotation running now. The reveal revokes the secret issued at
        // approval, so it needs that secret to be the only one ever and handed to nobody (the demo's went to
        // demo.json): a reveal never kills a secret in use.
        const client = live && (await credentials.findClient(live.client_id, { lock: true }));
        if (!client) throw fail("developer.credential_not_found");
        const shown = (await credentials.liveClients(app.id)).find((row) => row.client_id === client.client_id);
        if (shown?.secret_shown_at || (await credentials.countSecrets(client.client_id)) !== 1)
          throw fail("developer.production_credentials_already_shown");
        const at = now();
        await credentials.revokeSecrets(client.client_id, at);
        const clientSecret = newClientSecret(ids, "PRODUCTION");
        await credentials.insertSecret(client.client_id, hashSecret(clientSecret), at);
        await credentials.recordSecretShown(client.client_id, at, shownTo);
        return {
          clientId: client.client_id,
          environment: "PRODUCTION" as const,
          clientSecret,
          allowedIps: await credentials.allowlist({ clientId: client.client_id }),
        };
      });
      forget();
      logger.info("production secret revealed", { appId, clientId: production.clientId });
      return production;
    },

    async recordSecretsShown(appId, shownTo) {
      const at = now();
      await sql.begin(async (tx) => {
        const credentials = createCredentialQueries(tx);
        for (const client of await credentials.liveClients(appId))
          await credentials.recordSecretShown(client.client_id, at, shownTo);
      });
    },

    async revokeClientCredential(clientId) {
      const revoked = await sql.begin((tx) => createCredentialQueries(tx).revokeClient(clientId, now()));
      if (!revoked) throw fail("developer.credential_not_found");
      forget();
      logger.info("client credential revoked", { clientId });
    },

    async setIpAllowlist(request, allowedIps) {
      const apiKeyId = request.apiKeyId ? parseApiKeyId(request.apiKeyId) : undefined;
      if (Boolean(request.clientId) === Boolean(request.apiKeyId)) throw invalid("client_id, api_key_id (exactly one)");
      const checked = validateAllowlist(allowedIps);
      if (!checked.ok)
        throw serviceError(domain, "developer.ip_allowlist_invalid", { field: checked.field, value: checked.value });
      const stored = await sql.begin(async (tx) => {
        const credentials = createCredentialQueries(tx);
        let target: { clientId: string } | { apiKeyId: number };
        if (request.clientId) {
          const client = await credentials.findClient(request.clientId, { lock: true });
          if (!client) throw fail("developer.credential_not_found");
          if (client.state === "ARCHIVED") throw fail("developer.app_archived");
          target = { clientId: client.client_id };
        } else {
          const key = apiKeyId === undefined ? undefined : await credentials.findApiKey(apiKeyId);
          if (!key || key.revoked_at) throw fail("developer.api_key_not_found");
          await lockLiveApp(tx, key.app_id);
          target = { apiKeyId: key.id };
        }
        await credentials.replaceAllowlist(target, checked.entries, now());
        return credentials.allowlist(target);
      });
      forget();
      return stored;
    },
  };
}
