// Small portable primitives the client needs (base64url, randomness, SHA-256, the JWT `exp`, constant-time
// comparison), on Web Crypto, TextEncoder and jose (which runs on the same: Node, browsers, edge runtimes), so the
// client runs wherever a global fetch does. jose reads the JWT and spells base64url; nothing here hand-parses either.
import { base64url as joseBase64url, decodeJwt } from "jose";

const encoder = new TextEncoder();

/** RFC 4648 section 5 base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  return joseBase64url.encode(bytes);
}

/** `size` bytes from the platform's CSPRNG, as base64url (32 bytes give 43 characters, 256 bits). */
export function randomToken(size = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

/** base64url(SHA-256(text)): the PKCE S256 challenge of a verifier (RFC 7636 section 4.2). */
export async function sha256Base64url(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}

/**
 * Compares two strings in time that depends only on their lengths, so an attacker cannot learn a stored `state`
 * one character at a time. Lengths are not secret (every state this client makes has 43 characters).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  const length = Math.max(left.length, right.length);
  let difference = left.length ^ right.length;
  for (let index = 0; index < length; index++) difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  return difference === 0;
}

/**
 * The `exp` claim of a JWT in milliseconds since the epoch, read without verifying the signature: the spec lets
 * clients read `exp` and nothing else (the token is otherwise opaque). Undefined when it cannot be read.
 */
export function jwtExpiry(token: string): number | undefined {
  try {
    // decodeJwt checks the compact form and that the payload is a JSON object; it verifies nothing, as intended.
    const { exp } = decodeJwt(token);
    return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
