// Authentication and authorisation on the internal port: a service credential in X-Service-Credential
// (./service-credentials.ts)
// whose role the RPC's row of ./access-policy.ts admits. Health and reflection are anonymous. A refusal is logged
// with the caller's identity (the id the credential claims), never the credential.
import type { Interceptor } from "@connectrpc/connect";
import { serviceError } from "../errors/index.js";
import { serviceCredentialHeader } from "../runtime/caller-context.js";
import type { Logger } from "../runtime/logger.js";
import { admissionOf, type AccessPolicy } from "./access-policy.js";
import { internalCallKey } from "./internal-call.js";
import { claimedId, type ServiceCredentials } from "./service-credentials.js";

export interface AuthInterceptorOptions {
  credentials: ServiceCredentials;
  logger: Logger;
  /** The table; the app's by default. */
  policy?: AccessPolicy;
}

export function createAuthInterceptor(options: AuthInterceptorOptions): Interceptor {
  const { credentials, logger, policy } = options;
  return (next) => async (request) => {
    const admission = admissionOf(request.service.typeName, request.method.name, policy);
    if (admission === "anonymous") return next(request);
    const method = `/${request.service.typeName}/${request.method.name}`;
    const call = request.contextValues.get(internalCallKey);
    const presented = request.header.get(serviceCredentialHeader)?.trim() || undefined;
    // The credential ends here: no service reads it, and a nested call must not carry it on.
    request.header.delete(serviceCredentialHeader);
    const caller = presented === undefined ? undefined : await credentials.verify(presented);
    if (!caller) {
      logger.warn("internal call refused: no valid service credential", {
        method,
        claimedId: presented === undefined ? undefined : (claimedId(presented) ?? "(malformed)"),
        correlationId: call?.correlationId,
      });
      throw serviceError(request.service.typeName, "internal.unauthenticated");
    }
    if (call) call.caller = caller;
    if (!admission.includes(caller.role)) {
      logger.warn("internal call refused: role not admitted", {
        method,
        caller: caller.id,
        role: caller.role,
        correlationId: call?.correlationId,
      });
      throw serviceError(request.service.typeName, "internal.permission_denied");
    }
    return next(request);
  };
}
