// Console access tokens: RS256 JWTs signed with the service's signing keys, audience `partnerapi-console`, so
// the partner gateway (audience partnerapi-app) refuses them and this verifier refuses app tokens. Short-lived
// (ACCESS_TOKEN_TTL_SECONDS); `sid` names the session family, checked on every call so sign-out, a detected
// refresh reuse or a suspension ends the session at once.
import type { Clock } from "../runtime/clock.js";
import { signJwt, signJwtAsync, verifyJwtSignature, type PublicKeyLookup, type SigningKey } from "../token/index.js";

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

/** Signs a console token with the service's current signing key, on the thread pool (what sessions use). */
export function signConsoleTokenAsync(key: SigningKey, claims: ConsoleClaims): Promise<string> {
  return signJwtAsync(key, claims);
}

/** The same on the calling thread, for fixtures. */
export function signConsoleToken(key: SigningKey, claims: ConsoleClaims): string {
  return signJwt(key, claims);
}

/** The claims of a valid console token, or undefined (malformed, unknown key, bad signature, wrong aud/iss, expired). */
export function verifyConsoleToken(
  token: string,
  options: { issuer: string; keys: PublicKeyLookup; clock: Clock },
): ConsoleClaims | undefined {
  const signed = verifyJwtSignature(token, options.keys);
  if (!signed.ok) return undefined;
  const { iss, aud, sub, sid, jti, exp, iat } = signed.claims;
  if (aud !== consoleTokenAudience || iss !== options.issuer) return undefined;
  if (typeof sub !== "string" || !/^[1-9]\d{0,15}$/.test(sub) || typeof sid !== "string" || typeof jti !== "string")
    return undefined;
  if (typeof exp !== "number" || !Number.isSafeInteger(exp) || typeof iat !== "number" || !Number.isSafeInteger(iat))
    return undefined;
  if (exp <= Math.floor(options.clock.now() / 1000)) return undefined;
  return { iss, aud, sub, sid, jti, iat, exp };
}
