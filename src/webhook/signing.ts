// Standard Webhooks signatures: `webhook-signature` is "v1," + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`
// under the secret's key, one per live secret separated by spaces (so a receiver holding either secret verifies
// during a rotation's overlap). Secrets are "whsec_" + base64 of 32 random bytes, as the specification's
// libraries expect. Receivers verify with those libraries (test/webhook uses the `standardwebhooks` package).
import { createHmac, randomBytes } from "node:crypto";

export const secretPrefix = "whsec_";
/** Key bytes of a signing secret (the specification allows 24 to 64). */
export const secretKeyBytes = 32;

/** A new signing key. */
export function newSecretKey(): Buffer {
  return randomBytes(secretKeyBytes);
}

/** The secret as shown to the partner once: whsec_ + base64 of the key. */
export function secretText(key: Buffer): string {
  return secretPrefix + key.toString("base64");
}

/** The three headers of one attempt, signed with each key in `keys` (current first). */
export function signedHeaders(
  eventId: string,
  timestampSeconds: number,
  body: string,
  keys: readonly Buffer[],
): Record<string, string> {
  const signed = `${eventId}.${timestampSeconds}.${body}`;
  const signatures = keys.map((key) => `v1,${createHmac("sha256", key).update(signed).digest("base64")}`);
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}
