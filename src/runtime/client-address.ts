// The client's address: the socket peer, unless the peer is one of the trusted proxies (TRUST_PROXY: addresses and
// CIDR ranges). Then X-Forwarded-For is walked from the right, past every entry that is itself a trusted proxy, to
// the first one that is not: the address the outermost trusted proxy saw. Entries further left can be written by
// the client and are never read. This is what Express's proxy-addr and nginx's real_ip_recursive do; a hop count
// cannot be made safe, because it reads the header even from a request that reached the listener directly.
import { normalizeAddress, type AddressRanges } from "../config/ip-addresses.js";

export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: AddressRanges,
): string {
  const peer = readable(socketAddress ?? "");
  if (forwardedFor === undefined || !trustedProxies.has(peer)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((hop) => hop.trim())
    .filter((hop) => hop !== "");
  let client = peer;
  for (let i = hops.length - 1; i >= 0 && trustedProxies.has(client); i--) {
    const hop = normalizeAddress(hops[i]!);
    // A trusted proxy writes addresses only; anything else stops the walk at the last address one vouched for.
    if (!hop) break;
    client = hop.address;
  }
  return client;
}

/** The address normalised (IPv4-mapped IPv6 as IPv4), or as the socket said when it is not an address. */
function readable(address: string): string {
  return normalizeAddress(address)?.address ?? address;
}
