// The key-encryption key (KEK) of the signing keys: their private parts are stored in the control database only
// sealed with AES-256-GCM under this key, so a database dump alone cannot mint tokens. The KEK comes from the
// environment (TOKEN_KEY_ENCRYPTION_KEY); the embedded default may generate one into DATA_DIR, and says so.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../runtime/logger.js";

/** AES-256: 32 bytes. */
export const kekBytes = 32;
/** First byte of every sealed value: the format (AES-256-GCM, 12-byte IV, 16-byte tag), so it can change later. */
const formatV1 = 1;
/** File name of a generated KEK under DATA_DIR. */
export const generatedKekFile = "token-key-encryption-key";

/** Parses 64 hex digits, or base64 / base64url of exactly 32 bytes; undefined otherwise. */
export function parseKek(text: string): Buffer | undefined {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex");
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === kekBytes) return bytes;
  }
  return undefined;
}

export interface LoadKekOptions {
  /** TOKEN_KEY_ENCRYPTION_KEY as configured; undefined when unset. */
  configured: string | undefined;
  dataDir: string;
  logger: Logger;
}

/**
 * The KEK: the configured one; else the one in DATA_DIR (generated there on first use, mode 0600); with DATA_DIR
 * ":memory:" a random one for this process only. The last two are logged as warnings: instances sharing a
 * database must share the KEK, which only TOKEN_KEY_ENCRYPTION_KEY guarantees.
 */
export async function loadKeyEncryptionKey(options: LoadKekOptions): Promise<Buffer> {
  if (options.configured !== undefined) {
    const parsed = parseKek(options.configured);
    if (!parsed) throw new Error("TOKEN_KEY_ENCRYPTION_KEY must be 32 bytes: 64 hex digits, or base64 / base64url");
    return parsed;
  }
  if (options.dataDir === ":memory:") {
    options.logger.warn("TOKEN_KEY_ENCRYPTION_KEY is not set: using a random key-encryption key for this process only");
    return randomBytes(kekBytes);
  }
  const path = join(options.dataDir, generatedKekFile);
  const existing = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (existing !== undefined) {
    const parsed = parseKek(existing);
    if (!parsed) throw new Error(`${path} does not hold a 32-byte key-encryption key`);
    options.logger.warn("TOKEN_KEY_ENCRYPTION_KEY is not set: using the key-encryption key generated in DATA_DIR", {
      path,
    });
    return parsed;
  }
  await mkdir(options.dataDir, { recursive: true });
  const generated = randomBytes(kekBytes);
  try {
    // "wx": never overwrite a key another process wrote a moment ago (keys sealed with it would become unreadable).
    await writeFile(path, generated.toString("base64url") + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return loadKeyEncryptionKey(options);
    throw error;
  }
  options.logger.warn(
    "TOKEN_KEY_ENCRYPTION_KEY is not set: generated a key-encryption key into DATA_DIR; set the variable in production",
    { path },
  );
  return generated;
}

/** Seals `plaintext` under `kek`, bound to `context` (the kid) as additional data: version | iv | tag | ciphertext. */
export function seal(kek: Buffer, plaintext: Buffer, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", kek, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([formatV1]), iv, cipher.getAuthTag(), body]);
}

/** Opens what `seal` made with the same KEK and context; throws when the KEK differs or the value was altered. */
export function unseal(kek: Buffer, sealed: Uint8Array, context: string): Buffer {
  const bytes = Buffer.from(sealed);
  if (bytes[0] !== formatV1 || bytes.length < 29) throw new Error("sealed value has an unknown format");
  const decipher = createDecipheriv("aes-256-gcm", kek, bytes.subarray(1, 13));
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(bytes.subarray(13, 29));
  return Buffer.concat([decipher.update(bytes.subarray(29)), decipher.final()]);
}
