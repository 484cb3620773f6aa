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
