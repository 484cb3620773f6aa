// The client's address: the socket peer, or, behind TRUST_PROXY trusted proxies, the address the outermost trusted
// proxy saw, read from the right of X-Forwarded-For (entries left of it can be forged by the client).
import { isIP } from "node:net";

export function clientAddress(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedProxies: number): string {
  const peer = normalise(socketAddress ?? "");
  if (trustedProxies === 0 || forwardedFor === undefined) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor)
    .split(",")
    .map((hop) => normalise(hop.trim()))
    .filter((hop) => hop !== "");
  const chain = [...hops, peer];
  const candidate = chain[Math.max(0, chain.length - 1 - trustedProxies)]!;
  return isIP(candidate) ? candidate : peer;
}

/** IPv4 peers on a dual-stack socket appear as ::ffff:a.b.c.d; allowlists are written with the plain address. */
function normalise(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
