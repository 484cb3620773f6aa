// The stores a partner call may read, carried from the gateway to the region's DataService (in process or over
// gRPC) in the request metadata the DataService's proto comment documents. The front never forwards a client's copy
// of it (a service gets only the headers it reads), so only the gateway sets it: for an ADSR API key whose approved
// access request names fewer stores than the merchant has. Absent means every store of the merchant.

/** The header's name; lowercase, as HTTP/2 and gRPC metadata require. */
export const storeScopeHeader = "x-partner-store-scope";

/** The header value for a list of store ids. */
export function formatStoreScope(storeIds: readonly number[]): string {
  return storeIds.join(",");
}

/**
 * The store ids of a header value; undefined when the header is absent (every store). A malformed value is an
 * empty scope (no store), never "every store": a restriction that cannot be read must not widen access.
 */
export function parseStoreScope(value: string | null): number[] | undefined {
  if (value === null) return undefined;
  if (!/^[1-9]\d{0,15}(,[1-9]\d{0,15})*$/.test(value)) return [];
  return value.split(",").map(Number);
}
