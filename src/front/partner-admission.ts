// The hook through which the front admits calls of the partner route family. The front hands over what it read of
// the request and gets back a refusal, or the caller that answers the call; who the partner is and what it may do is
// the implementer's business (src/gateway/), so the front knows nothing of tokens, keys or limits.
import type { ErrorToRender } from "../errors/index.js";
import type { ServiceCaller } from "../runtime/service-caller.js";

/** What the front reads of an HTTP request of the partner family, before it reads the body. */
export interface PartnerRequest {
  authorization: string | undefined;
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
  /** The service that answers this call (the DataService of the merchant's region). */
  caller: ServiceCaller;
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
  /**
   * Fixes a validated request message to the admitted call before the service sees it (its merchant), and adds the
   * headers only the admission may set (never taken from the client). An error when the message contradicts the call.
   */
  bind(call: Call, message: object, serviceHeaders: Headers): ErrorToRender | undefined;
}
