// ConsoleService, apps self-service: apps, their review, client secrets, redirect URIs, allowlists and API keys.
// Each handler checks the caller's organization role, then calls the CredentialService in process with the console
// call's headers and values.
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { ConsoleContext } from "./console-context.js";
import { appIdsOfOrganization, findApp } from "../credential/index.js";
import { forwardedFrom } from "../runtime/service-caller.js";

export function createAppHandlers(
  shared: ConsoleContext,
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
  return {
    async createDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_apps");
      await requireProgram(account.id);
      const created = await credentials.createApp(
        {
          organizationId: BigInt(request.organizationId),
          name: request.name,
          product: request.product,
          websiteUrl: request.websiteUrl,
          privacyPolicyUrl: request.privacyPolicyUrl,
          termsUrl: request.termsUrl,
        },
        forwardedFrom(ctx),
      );
      return { app: created.app, sandbox: created.sandbox };
    },

    async listDeveloperApps(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "read");
      const ids = await appIdsOfOrganization(sql, Number(request.organizationId));
      const apps = await Promise.all(
        ids.map(async (appId) => (await credentials.getApp({ appId }, forwardedFrom(ctx))).app),
      );
      return { apps: apps.filter((app) => app !== undefined) };
    },

    async getDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      return { app: (await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx))).app };
    },

    async updateDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return {
        app: (
          await credentials.updateApp(
            {
              appId: request.appId,
              name: request.name,
              product: request.product,
              websiteUrl: request.websiteUrl,
              privacyPolicyUrl: request.privacyPolicyUrl,
              termsUrl: request.termsUrl,
            },
            forwardedFrom(ctx),
          )
        ).app,
      };
    },

    async submitDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { app: (await credentials.submitApp({ appId: request.appId }, forwardedFrom(ctx))).app };
    },

    async archiveDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "archive_apps");
      return { app: (await credentials.archiveApp({ appId: request.appId }, forwardedFrom(ctx))).app };
    },

    async rotateAppClientSecret(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.credentials.some((client) => client.clientId === request.clientId))
        throw fail("developer.credential_not_found");
      const rotated = await credentials.rotateClientSecret({ clientId: request.clientId }, forwardedFrom(ctx));
      return {
        clientId: rotated.clientId,
        clientSecret: rotated.clientSecret,
        previousSecretExpiresAtMs: rotated.previousSecretExpiresAtMs,
      };
    },

    async revealProductionCredentials(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_apps");
      // The app in the path must be the organization's: any other app is unknown here.
      const app = await findApp(sql, request.appId);
      if (!app || app.organization_id !== Number(request.organizationId)) throw fail("developer.app_not_found");
      return {
        production: (await credentials.revealProductionSecret({ appId: request.appId }, forwardedFrom(ctx))).production,
      };
    },

    async setAppRedirectUris(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return {
        redirectUris: (
          await credentials.setRedirectUris(
            { appId: request.appId, redirectUris: request.redirectUris },
            forwardedFrom(ctx),
          )
        ).redirectUris,
      };
    },

    async setAppClientIpAllowlist(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.credentials.some((client) => client.clientId === request.clientId))
        throw fail("developer.credential_not_found");
      return {
        allowedIps: (
          await credentials.setIpAllowlist(
            { clientId: request.clientId, allowedIps: request.allowedIps },
            forwardedFrom(ctx),
          )
        ).allowedIps,
      };
    },

    async createAppApiKey(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return {
        apiKey: (
          await credentials.createApiKey(
            { appId: request.appId, name: request.name, environment: request.environment },
            forwardedFrom(ctx),
          )
        ).apiKey,
      };
    },

    async revokeAppApiKey(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.apiKeys.some((key) => key.apiKeyId === request.apiKeyId)) throw fail("developer.api_key_not_found");
      return { revoked: (await credentials.revokeApiKey({ apiKeyId: request.apiKeyId }, forwardedFrom(ctx))).revoked };
    },

    async setAppApiKeyIpAllowlist(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.apiKeys.some((key) => key.apiKeyId === request.apiKeyId)) throw fail("developer.api_key_not_found");
      return {
        allowedIps: (
          await credentials.setIpAllowlist(
            { apiKeyId: request.apiKeyId, allowedIps: request.allowedIps },
            forwardedFrom(ctx),
          )
        ).allowedIps,
      };
    },
  };
}
