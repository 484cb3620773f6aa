// CredentialService, apps and their review: the RPCs over ./apps.ts (protobuf in and out here only: ids, products
// and environments mapped once, absent links spelled as empty strings).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type {
  AppSchema,
  ClientCredentialSchema,
  CreateAppRequest,
  CredentialService,
  UpdateAppRequest,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import { environmentEnum, productEnum, productName } from "./products.js";
import type { AppAdmin, AppDescription, NewClient } from "./apps.js";

/** An app as the CredentialService and the ConsoleService answer it. */
export function describeApp(app: AppDescription): MessageInitShape<typeof AppSchema> {
  return {
    appId: app.appId,
    organizationId: BigInt(app.organizationId),
    name: app.name,
    pendingName: app.pendingName ?? "",
    websiteUrl: app.websiteUrl ?? "",
    privacyPolicyUrl: app.privacyPolicyUrl ?? "",
    termsUrl: app.termsUrl ?? "",
    requirePushedAuthorizationRequests: app.requirePushedAuthorizationRequests,
    product: productEnum(app.product),
    state: app.state,
    requireDpop: app.requireDpop,
    redirectUris: app.redirectUris,
    credentials: app.credentials.map((client) => ({
      clientId: client.clientId,
      environment: environmentEnum(client.environment),
      allowedIps: client.allowedIps,
      secretShownAtMs: BigInt(client.secretShown?.at.getTime() ?? 0),
      secretShownTo: client.secretShown?.to ?? "",
    })),
    apiKeys: app.apiKeys.map((key) => ({
      apiKeyId: String(key.apiKeyId),
      name: key.name,
      environment: environmentEnum(key.environment),
      revoked: key.revoked,
      allowedIps: key.allowedIps,
    })),
  };
}

/** A client id just issued, its secret shown once. */
export function describeClient(client: NewClient): MessageInitShape<typeof ClientCredentialSchema> {
  return {
    clientId: client.clientId,
    environment: environmentEnum(client.environment),
    clientSecret: client.clientSecret,
    allowedIps: [],
  };
}

/** A new app's fields, from a CreateApp request or the ConsoleService's CreateDeveloperApp. */
export function newAppOf(
  request: Pick<CreateAppRequest, "name" | "product" | "websiteUrl" | "privacyPolicyUrl" | "termsUrl">,
): Parameters<AppAdmin["createApp"]>[1] {
  return {
    name: request.name,
    product: productName(request.product),
    websiteUrl: request.websiteUrl,
    privacyPolicyUrl: request.privacyPolicyUrl,
    termsUrl: request.termsUrl,
  };
}

/** An app's change, from an UpdateApp request or the ConsoleService's UpdateDeveloperApp. */
export function appChangeOf(
  request: Pick<
    UpdateAppRequest,
    | "name"
    | "product"
    | "websiteUrl"
    | "privacyPolicyUrl"
    | "termsUrl"
    | "requirePushedAuthorizationRequests"
    | "requireDpop"
  >,
): Parameters<AppAdmin["updateApp"]>[1] {
  return {
    requirePushedRequests: request.requirePushedAuthorizationRequests,
    name: request.name,
    ...(request.requireDpop !== undefined ? { requireDpop: request.requireDpop } : {}),
    ...(request.product !== undefined ? { product: productName(request.product) ?? "UNSPECIFIED" } : {}),
    websiteUrl: request.websiteUrl,
    privacyPolicyUrl: request.privacyPolicyUrl,
    termsUrl: request.termsUrl,
  };
}

export function createAppHandlers(
  apps: AppAdmin,
): Pick<
  ServiceImpl<typeof CredentialService>,
  "createApp" | "getApp" | "updateApp" | "submitApp" | "approveApp" | "rejectApp" | "archiveApp" | "setRedirectUris"
> {
  return {
    async createApp(request) {
      const { app, sandbox } = await apps.createApp(Number(request.organizationId), newAppOf(request));
      return { app: describeApp(app), sandbox: describeClient(sandbox) };
    },
    async getApp(request) {
      return { app: describeApp(await apps.getApp(request.appId)) };
    },
    async updateApp(request) {
      return { app: describeApp(await apps.updateApp(request.appId, appChangeOf(request))) };
    },
    async submitApp(request) {
      return { app: describeApp(await apps.submitApp(request.appId)) };
    },
    async approveApp(request) {
      const { app, production } = await apps.approveApp(request.appId);
      return { app: describeApp(app), production: production && describeClient(production) };
    },
    async rejectApp(request) {
      return { app: describeApp(await apps.rejectApp(request.appId)) };
    },
    async archiveApp(request) {
      return { app: describeApp(await apps.archiveApp(request.appId)) };
    },
    async setRedirectUris(request) {
      return { redirectUris: await apps.setRedirectUris(request.appId, request.redirectUris) };
    },
  };
}
