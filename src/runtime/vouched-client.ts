// A caller of the front that speaks for someone else, with proof: the console site's "first call" (src/console-
// site/first-call.ts) reaches the front of its own process for a developer, and names the developer's address in
// X-Vouched-Client with a secret this process made at start and never sends anywhere else. The front then counts
// the call where it would have counted the developer's own curl: its per-address throttles and IP allowlists see
// the developer, not the console server, whose one address every developer would otherwise share
// (docs/decisions.md, "Hostile input and silent dependencies"). A header without the secret is ignored.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { normalizeAddress } from "../config/ip-addresses.js";

export const vouchedClientHeader = "x-vouched-client";

export interface VouchedClients {
  /** The header's value that vouches for `address`. */
  vouch(address: string): string;
  /** The address a request's header vouches for, or undefined when it carries none or its proof is wrong. */
  addressOf(header: string | string[] | undefined): string | undefined;
}

export function createVouchedClients(secret = randomBytes(32).toString("base64url")): VouchedClients {
  const expected = Buffer.from(secret);
  return {
    vouch: (address) => `${address} ${secret}`,
    addressOf(header) {
      if (typeof header !== "string") return undefined;
      const space = header.lastIndexOf(" ");
      if (space <= 0) return undefined;
      const presented = Buffer.from(header.slice(space + 1));
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
      return normalizeAddress(header.slice(0, space))?.address;
    },
  };
}
