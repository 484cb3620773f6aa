// Server-provided DPoP nonces (RFC 9449 section 8), when DPOP_NONCES is on: a nonce is an HMAC of the current period
// under a key every instance derives from the key-encryption key, so any front accepts a nonce another handed out,
// with no store round trip. A nonce is accepted during its own period and the next one, so one handed out just
// before a period ends still works; it limits how far ahead a client can make proofs (section 11.2).
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Clock } from "../runtime/clock.js";
import type { DpopNonces } from "./dpop-proof.js";

/** How long one nonce is current; accepted for up to twice this. */
export const dpopNoncePeriodSeconds = 300;

/** The key nonces are made with, derived from the key-encryption key (never the key itself). */
export function dpopNonceKey(kek: Buffer): Buffer {
  return createHmac("sha256", kek).update("partnerapi dpop nonce v1").digest();
}

export function createDpopNonces(options: { key: Buffer; clock: Clock }): DpopNonces {
  const { key, clock } = options;
  const periodOf = (ms: number) => Math.floor(ms / 1000 / dpopNoncePeriodSeconds);
  const nonceFor = (period: number) => createHmac("sha256", key).update(String(period)).digest("base64url");
  return {
    current: () => nonceFor(periodOf(clock.now())),
    accepts(nonce) {
      const period = periodOf(clock.now());
      const given = Buffer.from(nonce);
      return [period, period - 1].some((candidate) => {
        const expected = Buffer.from(nonceFor(candidate));
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
    },
  };
}
