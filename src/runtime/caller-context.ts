// What the public front (or an interceptor on the internal port) tells a service about the caller, carried in
// typed context values rather than ad-hoc headers (connect-es: createContextKey).
import { createContextKey } from "@connectrpc/connect";

/** The request as the front saw it: the client's address (after TRUST_PROXY), the path, and the correlation id. */
export interface CallerInfo {
  clientAddress: string;
  path: string;
  correlationId: string;
}

export const callerInfoKey = createContextKey<CallerInfo | undefined>(undefined, { description: "caller info" });

/** The header a correlation id travels in, both ways: answered by the front and the internal port, sent on a hop. */
export const correlationHeader = "x-correlation-id";

/**
 * The header an internal caller's service credential travels in (src/internal/service-credentials.ts). Its own
 * name, never Authorization: a partner's or a developer's Authorization can then never be taken for a service
 * credential, nor a service credential reach a service that reads Authorization.
 */
export const serviceCredentialHeader = "x-service-credential";
