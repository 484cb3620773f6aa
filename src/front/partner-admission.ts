// The hook through which the front admits calls of the partner route family. The front hands over what it read of
// the request and gets back a refusal, or the admitted call that sends the validated request on; who the partner is
// and what it may do is the implementer's business (src/gateway/), so the front knows nothing of tokens, keys or
// limits.
import type { ErrorToRender } from "../errors/index.js";
import type { ServiceCaller } from "../runtime/service-caller.js";

/** What `send` throws when the message contradicts the admitted call: answered as its catalogue error. */
export { Refusal } from "./refusal.js";

/** What the front reads of an HTTP request of the partner family, before it reads the body. */
export interface PartnerRequest {
  authorization: string | undefined;
  /** The DPoP proof header(s) (RFC 9449), as received. */
  dpop?: string | readonly string[] | undefined;
  /** The HTTP method and the path without the query: what a DPoP proof names (`htm`, `htu`). */
  method?: string;
  path?: string;
  apiKey: string | undefined;
  /** The raw `companyId` query parameter (API keys carry no merchant); undefined when absent. */
  companyId?: string | undefined;
  /** The client address after TRUST_PROXY. */
  clientAddress: string;
  /** The scope the route needs (its `(partnerapi.v1.route).scope`). */
  scope: string;
  /** Whether the route is a sandbox test helper (its `(partnerapi.v1.route).sandbox_only`). */
  sandboxOnly?: boolean;
}

/** Who a partner call is from, once the admission knows: the request log records the call under it. */
export interface PartnerIdentity {
  appId: string;
  environment: "SANDBOX" | "PRODUCTION";
  /** The merchant, once known. */
  companyId?: number;
}

export interface AdmittedCall {
  ok: true;
  partner?: PartnerIdentity;
  /**
   * Sends the validated request to the service that answers it (the DataService of the merchant's region), fixed to
   * this call first: its merchant, and the headers only the admission may set (never taken from the client).
   * Rejects with the service's error, or with a catalogue error when the message contradicts the call.
   */
  send: ServiceCaller["call"];
  /** Headers every answer carries, whatever it turns out to be (X-RateLimit-*). */
  headers: Record<string, string>;
}

export interface RefusedCall {
  ok: false;
  /** Who was refused, when the credential was good enough to say (a refusal before that is nobody's). */
  partner?: PartnerIdentity;
  error: ErrorToRender;
  /** Headers the refusal carries (X-RateLimit-* once the app is known). */
  headers: Record<string, string>;
}

export interface PartnerAdmission<Call extends AdmittedCall = AdmittedCall> {
  admit(request: PartnerRequest): Promise<Call | RefusedCall>;
}
