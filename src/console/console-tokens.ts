// Console access tokens: RS256 JWTs signed with the service's signing keys, audience `partnerapi-console`, so
// the partner gateway (audience partnerapi-app) refuses them and this verifier refuses app tokens. Short-lived
// (ACCESS_TOKEN_TTL_SECONDS); `sid` names the session family, checked on every call so sign-out, a detected
// refresh reuse or a suspension ends the session at once.
import { sign as rsaSign, verify as rsaVerify } from "node:crypto";
import type { Clock } from "../runtime/clock.js";
import type { PublicKeyLookup, SigningKey } from "../tokens/access-token.js";

/** `aud` of console session tokens. */
export const consoleTokenAudience = "partnerapi-console";

export interface ConsoleClaims {
  iss: string;
  aud: string;
  /** The developer account id, as a decimal string. */
  sub: string;
  /** The session family. */
  sid: string;
  jti: string;
  iat: number;
  exp: number;
}

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

export function signConsoleToken(key: SigningKey, claims: ConsoleClaims): string {
  const input = `${encode({ alg: "RS256", typ: "at+jwt", kid: key.kid })}.${encode(claims)}`;
  return `${input}.${rsaSign("sha256", Buffer.from(input), key.privateKey).toString("base64url")}`;
}

/** The claims of a valid console token, or undefined (malformed, unknown key, bad signature, wrong aud/iss, expired). */
export function verifyConsoleToken(token: string, options: { issuer: string; keys: PublicKeyLookup; clock: Clock }): ConsoleClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = parse(headerPart);
  if (!header || header["alg"] !== "RS256" || header["typ"] !== "at+jwt" || typeof header["kid"] !== "string") return undefined;
  const key = options.keys(header["kid"]);
  if (!key) return undefined;
  if (!rsaVerify("sha256", Buffer.from(`${headerPart}.${payloadPart}`), key, Buffer.from(signaturePart, "base64url"))) return undefined;
  const claims = parse(payloadPart);
  if (!claims || claims["aud"] !== consoleTokenAudience || claims["iss"] !== options.issuer) return undefined;
  const { sub, sid, exp, iat } = claims;
  if (typeof sub !== "string" || !/^[1-9]\d{0,15}$/.test(sub) || typeof sid !== "string" || !Number.isSafeInteger(exp) || !Number.isSafeInteger(iat)) {
    return undefined;
  }
  if ((exp as number) <= Math.floor(options.clock.now() / 1000)) return undefined;
  return claims as unknown as ConsoleClaims;
}

function parse(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
