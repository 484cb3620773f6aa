// What the internal port's interceptors learn about a call and share with each other and with the services: its
// correlation id and, once authenticated, its caller. A typed context value (connect-es: createContextKey).
import { createContextKey } from "@connectrpc/connect";
import type { InternalCaller } from "./service-credentials.js";

export interface InternalCall {
  /** From a well-formed incoming X-Correlation-Id (a front's hop carries its own), else generated. */
  correlationId: string;
  /** Set by the authentication interceptor; absent for anonymous RPCs (health, reflection) and refused calls. */
  caller?: InternalCaller;
}

export const internalCallKey = createContextKey<InternalCall | undefined>(undefined, { description: "internal call" });

/** What an incoming correlation id may look like to be reused (a UUID, a W3C trace id, an id of the caller's). */
export const correlationIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
