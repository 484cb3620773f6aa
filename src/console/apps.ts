// ConsoleService, apps self-service: apps, their review, client secrets, redirect URIs, allowlists and API keys.
// Each handler checks the caller's organization role, then calls the credential owner's plain interface; its
// answers are described by the credential owner's own mapping (src/credential/*-handlers.ts).
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { ConsoleContext } from "./console-context.js";
import {
  appChangeOf,
  appIdsOfOrganization,
  describeApp,
  describeClient,
  describeNewApiKey,
  describeProductionClient,
  describeRotatedSecret,
  findApp,
  newAppOf,
  requestedEnvironment,
} from "../credential/index.js";

export function createAppHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<
    ConsoleContext,
    "authenticate" | "credentials" | "fail" | "requireAppRole" | "requireProgram" | "requireRole" | "sql"
  >,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  | "createDeveloperApp"
  | "listDeveloperApps"
  | "getDeveloperApp"
  | "updateDeveloperApp"
  | "submitDeveloperApp"
  | "archiveDeveloperApp"
  | "rotateAppClientSecret"
  | "revealProductionCredentials"
  | "setAppRedirectUris"
  | "setAppClientIpAllowlist"
  | "createAppApiKey"
  | "revokeAppApiKey"
  | "setAppApiKeyIpAllowlist"
> {
  const { sql, fail, authenticate, requireRole, requireAppRole, requireProgram, credentials } = shared;

  /** The app's live client id; developer.credential_not_found when the app has no such one. */
  async function requireClient(appId: string, clientId: string) {
    const app = await credentials.getApp(appId);
    if (!app.credentials.some((client) => client.clientId === clientId)) throw fail("developer.credential_not_found");
  }

  /** The app's API key by its id as the wire spells it; developer.api_key_not_found when the app has no such one. */
  async function requireApiKey(appId: string, apiKeyId: string) {
    const app = await credentials.getApp(appId);
    const key = app.apiKeys.find((candidate) => String(candidate.apiKeyId) === apiKeyId);
    if (!key) throw fail("developer.api_key_not_found");
    return key;
  }

  return {
    async createDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_apps");
      await requireProgram(account.id);
      const created = await credentials.createApp(Number(request.organizationId), newAppOf(request));
      return { app: describeApp(created.app), sandbox: describeClient(created.sandbox) };
    },

    async listDeveloperApps(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "read");
      const ids = await appIdsOfOrganization(sql, Number(request.organizationId));
      const apps = await Promise.all(ids.map((appId) => credentials.getApp(appId)));
      return { apps: apps.map(describeApp) };
    },

    async getDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      return { app: describeApp(await credentials.getApp(request.appId)) };
    },

    async updateDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { app: describeApp(await credentials.updateApp(request.appId, appChangeOf(request))) };
    },

    async submitDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { app: describeApp(await credentials.submitApp(request.appId)) };
    },

    async archiveDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "archive_apps");
      return { app: describeApp(await credentials.archiveApp(request.appId)) };
    },

    async rotateAppClientSecret(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      await requireClient(request.appId, request.clientId);
      return describeRotatedSecret(await credentials.rotateClientSecret(request.clientId, account.email));
    },

    async revealProductionCredentials(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_apps");
      // The app in the path must be the organization's: any other app is unknown here.
      const app = await findApp(sql, request.appId);
      if (!app || app.organization_id !== Number(request.organizationId)) throw fail("developer.app_not_found");
      return {
        production: describeProductionClient(await credentials.revealProductionSecret(request.appId, account.email)),
      };
    },

    async setAppRedirectUris(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { redirectUris: await credentials.setRedirectUris(request.appId, request.redirectUris) };
    },

    async setAppClientIpAllowlist(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      await requireClient(request.appId, request.clientId);
      return {
        allowedIps: await credentials.setIpAllowlist({ clientId: request.clientId, apiKeyId: "" }, request.allowedIps),
      };
    },

    async createAppApiKey(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const made = await credentials.createApiKey(request.appId, {
        name: request.name,
        environment: requestedEnvironment(request.environment),
      });
      return { apiKey: describeNewApiKey(made) };
    },

    async revokeAppApiKey(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const key = await requireApiKey(request.appId, request.apiKeyId);
      await credentials.revokeApiKey(key.apiKeyId);
      return { revoked: true };
    },

    async setAppApiKeyIpAllowlist(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      await requireApiKey(request.appId, request.apiKeyId);
      return {
        allowedIps: await credentials.setIpAllowlist({ clientId: "", apiKeyId: request.apiKeyId }, request.allowedIps),
      };
    },
  };
}
