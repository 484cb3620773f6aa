// The IP allowlist check of a partner call: the token's `allowedIps` (addresses and CIDR ranges, IPv4 and IPv6,
// in the canonical form src/credential/ip-allowlist.ts stores) against the client address. Matching uses
// node:net's BlockList; the list built for one allowlist is reused, since a token is sent for up to 15 minutes.
import { BlockList, isIPv4, isIPv6 } from "node:net";
import { canonicalAllowlistEntry } from "../credential/index.js";
import { systemClock } from "../runtime/clock.js";
import { createBoundedCache } from "../runtime/ttl-cache.js";

/** Allowlists kept built (a built list never goes stale): each is a handful of entries, one per app at most. */
const built = createBoundedCache<BlockList>({ clock: systemClock, ttlMs: Infinity, maxEntries: 1000 });

function listOf(entries: readonly string[]): BlockList {
  const key = entries.join(",");
  let list = built.get(key);
  if (list) return list;
  list = new BlockList();
  for (const entry of entries) {
    const canonical = canonicalAllowlistEntry(entry);
    if (!canonical) continue; // an entry we cannot read allows nothing
    const [address, prefix] = canonical.split("/") as [string, string | undefined];
    const type = isIPv4(address) ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  built.set(key, list);
  return list;
}

/**
 * The address as the allowlist sees it: an IPv4-mapped IPv6 address (::ffff:192.0.2.1, what a dual-stack socket
 * reports for an IPv4 client) is its IPv4 address, so a v4 allowlist entry matches it.
 */
export function normalizeAddress(address: string): { address: string; type: "ipv4" | "ipv6" } | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return { address: mapped[1]!, type: "ipv4" };
  if (isIPv4(address)) return { address, type: "ipv4" };
  const bare = address.split("%")[0]!;
  if (isIPv6(bare)) return { address: bare, type: "ipv6" };
  return undefined;
}

/** True when the token has no allowlist, or `clientAddress` is on it. An unreadable address is never allowed. */
export function addressAllowed(allowedIps: readonly string[] | undefined, clientAddress: string): boolean {
  if (allowedIps === undefined) return true;
  const normalized = normalizeAddress(clientAddress);
  if (!normalized) return false;
  return listOf(allowedIps).check(normalized.address, normalized.type);
}
