// What a partner call tells the region's DataService about the partner, beside the merchant (request.company_id) and
// the store scope (./store-scope.ts): the app that calls, and its environment. Carried in request metadata that only
// the gateway sets (the front forwards no client copy of them), in process or over the region hop.

/** The app of a partner call: who places an order, and the only app that may cancel it. */
export const partnerAppHeader = "x-partner-app-id";

/** SANDBOX or PRODUCTION: the token's environment (an API key is PRODUCTION). */
export const partnerEnvironmentHeader = "x-partner-environment";

export type PartnerEnvironment = "SANDBOX" | "PRODUCTION";

/** The app id a call carries; undefined for a call that did not come through the gateway. */
export function partnerAppOf(headers: Headers): string | undefined {
  const value = headers.get(partnerAppHeader);
  return value && /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
}

/** Whether the call is a sandbox partner call (anything else, an absent header included, is not). */
export function isSandboxCall(headers: Headers): boolean {
  return headers.get(partnerEnvironmentHeader) === "SANDBOX";
}
