// Checks an endpoint's URL when it is registered or changed: https (plain http only to loopback or an allowed
// private network, for sandbox endpoints when WEBHOOK_ALLOW_LOOPBACK or WEBHOOK_ALLOW_PRIVATE_NETWORKS allows them),
// no credentials or fragment, and a host whose every address is one a webhook may reach (address-policy.ts). The
// same check runs again on the address actually connected to at every delivery (sender.ts): passing it here promises
// nothing about later resolutions.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { addressKind, connectionAllowed, type AddressPolicy } from "./address-policy.js";

/** Resolves a host name to its addresses (all families); the sender and the registration check share it. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolver: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** Why a URL was refused: the rule, as the error's `rule` param says it. */
export type UrlRefusal = string;

/** The URL's host without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** Undefined when `text` may be an endpoint of `environment`'s, else the rule it breaks. */
export async function checkEndpointUrl(
  text: string,
  policy: AddressPolicy,
  resolve: ResolveHost,
): Promise<UrlRefusal | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be https";
  if (url.username || url.password) return "must not carry credentials";
  if (url.hash) return "must not have a fragment";
  const host = bareHost(url);
  const port = portOf(url);
  const addresses = isIP(host)
    ? [host]
    : host === "localhost"
      ? ["127.0.0.1"]
      : await resolve(host).catch(() => undefined);
  if (!addresses || addresses.length === 0) return "must resolve to an address";
  if (!addresses.every((address) => connectionAllowed(address, port, policy))) return addressRule(policy);
  // Plain http only where the traffic stays on this machine or the operator's own network.
  if (url.protocol === "http:" && addresses.some((address) => addressKind(address) === "public")) {
    return "must be https";
  }
  return undefined;
}

/** The address rule a refused URL broke, naming what this endpoint's policy allows besides public addresses. */
function addressRule(policy: AddressPolicy): UrlRefusal {
  const besides = [
    ...(policy.allowLoopback ? ["loopback"] : []),
    ...(policy.privateNetworks ? ["the allowed private networks"] : []),
  ];
  if (besides.length === 0) return "must resolve to public addresses only";
  const allowed = ["public addresses", ...besides];
  return `must resolve to ${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)} (not this service's own ports)`;
}
