// The credential owner: organizations, apps, client credentials, API keys, redirect URIs, IP allowlists and the
// merchant directory. Every rule the spec gives them is enforced here (never in a client); decisions the spec leaves
// open are in docs/decisions.md, "Credentials". Other owners and the edges in this process use its plain interface
// (`Credentials`, and the directory reads of ./merchant-directory.ts and ./app-directory.ts); the CredentialService,
// one module per section of credential_service.proto, serves the internal port.
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { composeSections } from "../runtime/service-sections.js";
import { createApiKeys, type ApiKeys } from "./api-keys.js";
import { createApiKeyHandlers } from "./api-key-handlers.js";
import { createAppAdmin, type AppAdmin } from "./apps.js";
import { createAppHandlers } from "./app-handlers.js";
import { createClientCredentials, type ClientCredentials } from "./client-credentials.js";
import { createClientCredentialHandlers } from "./client-credential-handlers.js";
import { createCredentialContext, type CredentialServiceDeps } from "./credential-context.js";
import { createMerchantAdmin, type MerchantAdmin } from "./merchants.js";
import { createMerchantHandlers } from "./merchant-handlers.js";
import { createOrganizations, type Organizations } from "./organizations.js";
import { createOrganizationHandlers } from "./organization-handlers.js";
import { createSandboxMerchants, type SandboxMerchants } from "./sandbox-merchants.js";
import { createVerification, type Verification } from "./verification.js";
import { createVerificationHandlers } from "./verification-handlers.js";

export { apiKeyLimit } from "./api-keys.js";
export { sandboxMerchantLimit, type CredentialServiceDeps } from "./credential-context.js";

/** What other owners and edges in this process call: plain values in and out, errors from the catalogue. */
export type Credentials = Verification &
  Organizations &
  AppAdmin &
  ClientCredentials &
  MerchantAdmin &
  SandboxMerchants &
  ApiKeys;

export type CredentialServiceImpl = ServiceImpl<typeof CredentialService>;

/** One credential owner: its plain interface and the CredentialService over it, sharing one state (the caches). */
export interface CredentialOwner {
  credentials: Credentials;
  service: CredentialServiceImpl;
}

/** The plain interface behind each service built here, for a caller handed the service instead (tests, benches). */
const behind = new WeakMap<CredentialServiceImpl, Credentials>();

/** Builds the credential owner over the control database; every RPC comes from exactly one section. */
export function createCredentialOwner(context: ServiceContext, deps: CredentialServiceDeps): CredentialOwner {
  const shared = createCredentialContext(context, deps);
  const verification = createVerification(shared);
  const organizations = createOrganizations(shared);
  const apps = createAppAdmin(shared);
  const clients = createClientCredentials(shared);
  const merchants = createMerchantAdmin(shared);
  const sandboxMerchants = createSandboxMerchants(shared);
  const apiKeys = createApiKeys(shared);
  const credentials: Credentials = {
    ...verification,
    ...organizations,
    ...apps,
    ...clients,
    ...merchants,
    ...sandboxMerchants,
    ...apiKeys,
  };
  const service: CredentialServiceImpl = composeSections(
    createVerificationHandlers(verification),
    createOrganizationHandlers(organizations),
    createAppHandlers(apps),
    createClientCredentialHandlers(clients),
    createApiKeyHandlers(apiKeys),
    createMerchantHandlers(merchants, sandboxMerchants),
  );
  behind.set(service, credentials);
  return { credentials, service };
}

/** The CredentialService alone (its plain interface stays reachable through credentialsOf). */
export function createCredentialService(context: ServiceContext, deps: CredentialServiceDeps): CredentialServiceImpl {
  return createCredentialOwner(context, deps).service;
}

/**
 * The plain interface a caller needs, from the interface itself or from a CredentialService built here (the same
 * instance, so the same caches): never a protobuf call in process.
 */
export function credentialsOf(source: Credentials | CredentialServiceImpl): Credentials {
  // A service built here is in the map; anything else is taken for the interface itself.
  return behind.get(source as CredentialServiceImpl) ?? (source as Credentials);
}
