// IP allowlist entries: IPv4 or IPv6 addresses and CIDR ranges, validated and put in canonical form on write,
// so the token's `allowedIps` and every check see one spelling; and the check itself, in one place for every
// caller: the gateway (a token's `allowedIps`, an API key's list) and the token endpoints (the presented client
// credential's list). Parsing and matching are the ones of src/config/ip-addresses.ts, which TRUST_PROXY uses too;
// the matcher built for one allowlist is reused, since the same lists come back on every call.
import { addressRanges, canonicalRange, type AddressRanges } from "../config/ip-addresses.js";
import { systemClock } from "../runtime/clock.js";
import { createBoundedCache } from "../runtime/ttl-cache.js";

/** Entries per credential. Each one is copied into every access token, so the list must stay small. */
export const maxAllowlistEntries = 50;

/** The canonical form of an allowlist entry, or undefined when it is not an address or a CIDR range. */
export const canonicalAllowlistEntry: (entry: string) => string | undefined = canonicalRange;

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

/** Allowlists kept built (a built list never goes stale): each is a handful of entries, one per credential at most. */
const built = createBoundedCache<AddressRanges>({ clock: systemClock, ttlMs: Infinity, maxEntries: 1000 });

function listOf(entries: readonly string[]): AddressRanges {
  const key = entries.join(",");
  let list = built.get(key);
  if (list) return list;
  // An entry the matcher cannot read allows nothing.
  list = addressRanges(entries);
  built.set(key, list);
  return list;
}

/**
 * True when there is no allowlist, or `clientAddress` is on it. An IPv4-mapped IPv6 address (what a dual-stack
 * socket reports for an IPv4 client) matches its IPv4 entries; an unreadable address is never allowed.
 */
export function addressAllowed(allowedIps: readonly string[] | undefined, clientAddress: string): boolean {
  if (allowedIps === undefined) return true;
  return listOf(allowedIps).has(clientAddress);
}
