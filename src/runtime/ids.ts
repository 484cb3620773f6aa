// Identifiers and secrets as a dependency, so tests can make them predictable where they need to.
import { randomBytes, randomUUID } from "node:crypto";

/** A source of identifiers and random tokens. */
export interface IdSource {
  /** A random RFC 4122 version 4 UUID (correlation ids, JWT ids). */
  uuid(): string;
  /** `bytes` bytes of cryptographic randomness, base64url without padding. */
  randomToken(bytes: number): string;
}

export const cryptoIds: IdSource = {
  uuid: () => randomUUID(),
  randomToken: (bytes) => randomBytes(bytes).toString("base64url"),
};
