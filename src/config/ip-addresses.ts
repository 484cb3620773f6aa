// IP addresses and CIDR ranges, IPv4 and IPv6, once for every user: the parser that puts an address or a range in
// one canonical spelling (credential allowlists, TRUST_PROXY), the matcher of an address against a list of them
// (node:net's BlockList), the reading of what a socket or a proxy reports, the key a per-address counter counts
// under (IPv4 by address, IPv6 by its /64), and the private networks a webhook may reach only when the operator
// lists them. It sits in config/ because the configuration validates TRUST_PROXY and WEBHOOK_ALLOW_PRIVATE_NETWORKS
// with it, and config/ is below runtime/ (as config/regions.ts is, for the same reason).
import { BlockList, isIPv4, isIPv6 } from "node:net";

export type AddressType = "ipv4" | "ipv6";

/** The canonical form of an address or CIDR range, or undefined when it is neither. */
export function canonicalRange(entry: string): string | undefined {
  const [address, prefix, extra] = entry.trim().split("/");
  if (address === undefined || extra !== undefined) return undefined;
  const v4 = isIPv4(address);
  // Zone ids (fe80::1%eth0) name an interface of one host; they mean nothing in a list of ranges.
  const v6 = !v4 && isIPv6(address) && !address.includes("%");
  if (!v4 && !v6) return undefined;
  const canonical = v4 ? address : canonicalIpv6(address);
  if (prefix === undefined) return canonical;
  const bits = v4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return undefined;
  const length = Number(prefix);
  // A range with host bits set (10.0.0.1/8) is ambiguous: refuse it, as Postgres's cidr type does.
  const value = v4 ? ipv4Value(address) : ipv6Value(canonical);
  const hostMask = (1n << BigInt(bits - length)) - 1n;
  if ((value & hostMask) !== 0n) return undefined;
  return `${canonical}/${length}`;
}

/**
 * An address as every check sees it: an IPv4-mapped IPv6 address (::ffff:192.0.2.1, what a dual-stack socket
 * reports for an IPv4 client, RFC 4291 section 2.5.5.2) is its IPv4 address; an IPv6 address is canonical and
 * loses its zone id. Undefined for anything that is not an address (a port, brackets, a name).
 */
export function normalizeAddress(address: string): { address: string; type: AddressType } | undefined {
  if (isIPv4(address)) return { address, type: "ipv4" };
  const bare = address.split("%")[0]!;
  if (!isIPv6(bare)) return undefined;
  const value = ipv6Value(bare.toLowerCase());
  if (value >> 32n === 0xffffn) return { address: ipv4Text(value & 0xffffffffn), type: "ipv4" };
  return { address: canonicalIpv6(bare), type: "ipv6" };
}

/** A list of addresses and ranges to match addresses against. */
export interface AddressRanges {
  /** True when `address` (normalised first) is in one of the ranges; an unreadable address is in none. */
  has(address: string): boolean;
}

/** The matcher of `entries` (canonical or not); an entry that is not an address or a range matches nothing. */
export function addressRanges(entries: readonly string[]): AddressRanges {
  const list = new BlockList();
  for (const entry of entries) {
    const canonical = canonicalRange(entry);
    if (!canonical) continue;
    const [address, prefix] = canonical.split("/") as [string, string | undefined];
    const type = isIPv4(address) ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return {
    has(address) {
      const normalized = normalizeAddress(address);
      return normalized !== undefined && list.check(normalized.address, normalized.type);
    },
  };
}

/**
 * The networks an operator runs machines of its own on: RFC 1918, carrier-grade NAT (RFC 6598, which overlay
 * networks use too) and IPv6 unique-local. A webhook reaches them only inside WEBHOOK_ALLOW_PRIVATE_NETWORKS, which
 * must lie within them (src/webhook/address-policy.ts).
 */
export const privateRanges: readonly string[] = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "fc00::/7",
];

/** Whether the address or range `entry` lies wholly inside one of `ranges` (both canonical or not). */
export function rangeWithin(entry: string, ranges: readonly string[]): boolean {
  const canonical = canonicalRange(entry);
  if (!canonical) return false;
  const [address, prefix] = canonical.split("/") as [string, string | undefined];
  const length = prefix === undefined ? (isIPv4(address) ? 32 : 128) : Number(prefix);
  return ranges.some((range) => {
    const outer = canonicalRange(range);
    if (!outer) return false;
    const outerLength = Number(outer.split("/")[1] ?? (isIPv4(outer) ? 32 : 128));
    return outerLength <= length && addressRanges([outer]).has(address);
  });
}

/** The bits of an IPv6 source a per-address counter keys on: the /64 one subscriber gets (RFC 6177, RFC 7934). */
const ipv6CounterPrefix = 64n;

/**
 * The key a per-address counter counts `address` under: an IPv4 address as it is (an IPv4-mapped one included);
 * an IPv6 address by its /64 ("2001:db8:1:2::/64"), because one subscriber is handed a whole /64 and could
 * otherwise pick a fresh counter for every call. Anything else (an internal caller's name) is kept as it is.
 */
export function addressKey(address: string): string {
  const normalized = normalizeAddress(address);
  if (!normalized) return address;
  if (normalized.type === "ipv4") return normalized.address;
  const hostBits = 128n - ipv6CounterPrefix;
  const network = (ipv6Value(normalized.address) >> hostBits) << hostBits;
  return `${ipv6Text(network)}/${ipv6CounterPrefix}`;
}

function ipv4Value(address: string): bigint {
  return address.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/** The canonical (RFC 5952) spelling of a valid IPv6 address without a zone, as WHATWG URL writes hosts. */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** The value of a valid IPv6 address without a zone. */
function ipv6Value(address: string): bigint {
  let text = address;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail?.[1]) {
    const value = ipv4Value(v4Tail[1]);
    text = text.slice(0, -v4Tail[1].length) + `${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function ipv6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  return canonicalIpv6(groups.join(":"));
}
