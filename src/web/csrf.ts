// CSRF tokens of both sites. Signed in, a form carries the session's own token (session-bound); before sign-in, a
// double-submit token: a random value in an HttpOnly cookie that the form repeats. Either is compared in constant
// time. Every POST is also refused when the browser says it came from another site (Origin, Sec-Fetch-Site).
import { timingSafeEqual } from "node:crypto";

/** A token as the sites make them: 32 random bytes, base64url (43 characters). */
export const csrfTokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** Constant-time equality of two strings (false when the lengths differ or either is empty). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/**
 * Whether a POST was sent from another site: an `Origin` other than ours, or a `Sec-Fetch-Site` (Fetch Metadata,
 * which browsers set and pages cannot) other than `same-origin` or `none` (`same-site` is a sibling host, which is
 * not us either). Either header may be absent in older browsers; then the CSRF token alone decides.
 */
export function fromAnotherSite(
  origin: string | undefined,
  fetchSite: string | string[] | undefined,
  ownOrigin: string,
): boolean {
  if (origin !== undefined && origin !== ownOrigin) return true;
  if (fetchSite === undefined) return false;
  const site = typeof fetchSite === "string" ? fetchSite.trim().toLowerCase() : "";
  return site !== "same-origin" && site !== "none";
}
