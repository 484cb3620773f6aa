// Which addresses a webhook may connect to (no server-side request forgery): never loopback, private, CGNAT,
// link-local (the cloud metadata address 169.254.169.254 among them), unique-local, multicast or reserved
// addresses; for sandbox endpoints only, loopback when the operator allows it (WEBHOOK_ALLOW_LOOPBACK) and the
// private networks the operator lists (WEBHOOK_ALLOW_PRIVATE_NETWORKS: its own test receivers), and even then never
// this deployment's own ports (the internal port, the databases, Redis). The sender checks the address it actually
// connects to (sender.ts), so a name that resolves elsewhere at delivery time (DNS rebinding) gains nothing.
import { BlockList, isIP } from "node:net";
import { addressRanges, privateRanges, type AddressRanges } from "../config/ip-addresses.js";

/** What an address is, for the policy: "private" may be allowed by the operator's list, "internal" never. */
export type AddressKind = "public" | "loopback" | "private" | "internal";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** The networks an operator's own machines live on (RFC 1918, CGNAT, unique-local): config/ip-addresses.ts. */
const privateNetworks = addressRanges(privateRanges);

/** RFC 6890's other special-purpose ranges: never a receiver, whatever the operator lists. */
const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["192.0.0.0", 24], // IETF protocol assignments
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  internal.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["100::", 64], // discard-only
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}
// A metadata address inside unique-local space (AWS's): internal even where the operator allows fd00::/8.
internal.addAddress("fd00:ec2::254", "ipv6");

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address, if any. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The address the policy judges: without brackets or zone, an embedded IPv4 address as itself; undefined if none. */
function judged(address: string): { address: string; type: "ipv4" | "ipv6" } | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const version = isIP(bare);
  if (version === 0) return undefined;
  const v4 = version === 6 ? embeddedIpv4(bare) : bare;
  return v4 !== undefined ? { address: v4, type: "ipv4" } : { address: bare, type: "ipv6" };
}

/** Classifies an IP address (v4 or v6 text); anything that is not an IP address is "internal" (refused). */
export function addressKind(address: string): AddressKind {
  const seen = judged(address);
  if (!seen) return "internal";
  if (loopback.check(seen.address, seen.type)) return "loopback";
  if (internal.check(seen.address, seen.type)) return "internal";
  if (privateNetworks.has(seen.address)) return "private";
  return "public";
}

export interface AddressPolicy {
  /** Loopback addresses are allowed (sandbox endpoints with WEBHOOK_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  /** The private networks allowed (sandbox endpoints with WEBHOOK_ALLOW_PRIVATE_NETWORKS); undefined: none. */
  privateNetworks: AddressRanges | undefined;
  /**
   * Ports never reached on a loopback or allowed private address: the internal port, the region hop, the
   * databases, Redis, metrics (a public address is another machine's).
   */
  forbiddenPorts: ReadonlySet<number>;
}

/** Whether a webhook may connect to `address`:`port` under `policy`. */
export function connectionAllowed(address: string, port: number, policy: AddressPolicy): boolean {
  const kind = addressKind(address);
  if (kind === "public") return true;
  if (kind === "internal" || policy.forbiddenPorts.has(port)) return false;
  if (kind === "loopback") return policy.allowLoopback;
  return policy.privateNetworks?.has(judged(address)!.address) ?? false;
}

/** The policy's private networks: the operator's list as a matcher, or undefined when it is empty. */
export function privateNetworksOf(list: readonly string[]): AddressRanges | undefined {
  return list.length > 0 ? addressRanges(list) : undefined;
}
