// Which addresses a webhook may connect to (no server-side request forgery): never loopback, private, CGNAT,
// link-local (the cloud metadata address 169.254.169.254 among them), unique-local, multicast or reserved
// addresses; loopback only for sandbox endpoints when the operator allows it (WEBHOOK_ALLOW_LOOPBACK), and even
// then never this deployment's own ports (the internal port, the databases, Redis). The sender checks the address
// it actually connects to (sender.ts), so a name that resolves elsewhere at delivery time (DNS rebinding) gains
// nothing.
import { BlockList, isIP } from "node:net";

/** What an address is, for the policy. */
export type AddressKind = "public" | "loopback" | "internal";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** RFC 6890's special-purpose ranges that are never a partner's public receiver (loopback aside). */
const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // RFC 1918
  ["100.64.0.0", 10], // carrier-grade NAT (RFC 6598)
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // RFC 1918
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // RFC 1918
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  internal.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["fc00::", 7], // unique-local (fd00:ec2::254, a metadata address, among them)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["100::", 64], // discard-only
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}

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

/** Classifies an IP address (v4 or v6 text); anything that is not an IP address is "internal" (refused). */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const version = isIP(bare);
  if (version === 0) return "internal";
  const v4 = version === 6 ? embeddedIpv4(bare) : bare;
  if (v4 !== undefined) {
    if (loopback.check(v4, "ipv4")) return "loopback";
    return internal.check(v4, "ipv4") ? "internal" : "public";
  }
  if (loopback.check(bare, "ipv6")) return "loopback";
  return internal.check(bare, "ipv6") ? "internal" : "public";
}

export interface AddressPolicy {
  /** Loopback addresses are allowed (sandbox endpoints with WEBHOOK_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  /** Ports never reached even on loopback: the internal port, the region hop, the databases, Redis, metrics. */
  forbiddenLoopbackPorts: ReadonlySet<number>;
}

/** Whether a webhook may connect to `address`:`port` under `policy`. */
export function connectionAllowed(address: string, port: number, policy: AddressPolicy): boolean {
  const kind = addressKind(address);
  if (kind === "public") return true;
  return kind === "loopback" && policy.allowLoopback && !policy.forbiddenLoopbackPorts.has(port);
}
