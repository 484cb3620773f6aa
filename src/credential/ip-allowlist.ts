// IP allowlist entries: IPv4 or IPv6 addresses and CIDR ranges, validated and put in canonical form on write,
// so the token's `allowedIps` and the front's check see one spelling.
import { isIPv4, isIPv6 } from "node:net";

/** Entries per credential. Each one is copied into every access token, so the list must stay small. */
export const maxAllowlistEntries = 50;

/** The canonical form of an allowlist entry, or undefined when it is not an address or a CIDR range. */
export function canonicalAllowlistEntry(entry: string): string | undefined {
  const [address, prefix, extra] = entry.trim().split("/");
  if (address === undefined || extra !== undefined) return undefined;
  const v4 = isIPv4(address);
  // Zone ids (fe80::1%eth0) name an interface of one host; they mean nothing in an allowlist.
  const v6 = !v4 && isIPv6(address) && !address.includes("%");
  if (!v4 && !v6) return undefined;
  const canonical = v4 ? address : new URL(`http://[${address}]/`).hostname.slice(1, -1);
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

function ipv4Value(address: string): bigint {
  return address.split(".").reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

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
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** Either the canonical entries, or the index and value of the first one that is not valid. */
export function validateAllowlist(
  entries: readonly string[],
): { ok: true; entries: string[] } | { ok: false; field: string; value: string } {
  if (entries.length > maxAllowlistEntries) {
    return { ok: false, field: "allowed_ips", value: `${entries.length} entries (at most ${maxAllowlistEntries})` };
  }
  const canonical: string[] = [];
  for (const [index, entry] of entries.entries()) {
    const value = canonicalAllowlistEntry(entry);
    if (!value) return { ok: false, field: `allowed_ips[${index}]`, value: entry };
    if (!canonical.includes(value)) canonical.push(value);
  }
  return { ok: true, entries: canonical };
}
