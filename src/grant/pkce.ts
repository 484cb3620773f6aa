// PKCE (RFC 7636) with S256 only: the challenge is base64url(SHA-256(verifier)) without padding.
import { createHash } from "node:crypto";

/** RFC 7636 section 4.1: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;
/** A S256 challenge: exactly the 43 base64url characters of a SHA-256 digest. */
const challengePattern = /^[A-Za-z0-9_-]{43}$/;

export const isCodeVerifier = (value: string): boolean => verifierPattern.test(value);
export const isS256Challenge = (value: string): boolean => challengePattern.test(value);

/** The S256 challenge of a verifier. */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}
