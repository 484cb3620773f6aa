// The credential owner: organizations, apps, client credentials, API keys, redirect URIs, IP allowlists and the
// merchant directory. Every rule the spec gives them is enforced here (never in a client); decisions the spec leaves
// open are in docs/decisions.md, "Credentials". Other owners and the edges in this process use its plain interface
// (`Credentials`, and the directory reads of ./merchant-directory.ts and ./app-directory.ts); the CredentialService,
// one module per section of credential_service.proto, serves the internal port.
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { composeSections } from "../runtime/service-sections.js";
import { createApiKeyHandlers } from "./api-keys.js";
import { createAppHandlers } from "./apps.js";
import { createClientCredentialHandlers } from "./client-credentials.js";
import { createCredentialContext, type CredentialServiceDeps } from "./credential-context.js";
import { createMerchantHandlers } from "./merchants.js";
import { createOrganizationHandlers } from "./organizations.js";
import { createSandboxMerchantHandlers } from "./sandbox-merchants.js";
import { createVerification, type Verification } from "./verification.js";
import { createVerificationHandlers } from "./verification-handlers.js";

export { apiKeyLimit } from "./api-keys.js";
export { sandboxMerchantLimit, type CredentialServiceDeps } from "./credential-context.js";

/** What other owners and edges in this process call: plain values in and out, errors from the catalogue. */
export type Credentials = Verification;

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
  const credentials: Credentials = createVerification(shared);
  const service: CredentialServiceImpl = composeSections(
    createVerificationHandlers(credentials),
    createOrganizationHandlers(shared),
    createAppHandlers(shared),
    createClientCredentialHandlers(shared),
    createApiKeyHandlers(shared),
    createMerchantHandlers(shared),
    createSandboxMerchantHandlers(shared),
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
  if (!("createApp" in source)) return source;
  const credentials = behind.get(source);
  if (!credentials) throw new Error("credentialsOf: a CredentialService not built by createCredentialOwner");
  return credentials;
}
