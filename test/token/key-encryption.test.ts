// src/token/key-encryption.ts: the key-encryption key (KEK) of the signing keys: parseKek (64 hex digits or
// base64/base64url of exactly 32 bytes), seal/unseal with AES-256-GCM bound to a context (the kid) as additional
// data, and loadKeyEncryptionKey (configured, generated once into DATA_DIR with mode 0600, or per-process for
// ":memory:", with a warning). The KEK case formerly in test/token/signing-keys.test.ts lives here now.
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { silentLogger } from "../../src/runtime/logger.js";
import {
  generatedKekFile,
  kekBytes,
  loadKeyEncryptionKey,
  parseKek,
  seal,
  unseal,
} from "../../src/token/key-encryption.js";

const Kek = suite("token/key-encryption");
const kek = Buffer.alloc(32, 7);

/** A logger that keeps its warnings. */
function warningLogger() {
  const warnings: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const logger = {
    ...silentLogger,
    warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
  };
  return { logger, warnings };
}

async function withTempDir(body: (dir: string) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), "pa-kek-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

Kek("AES-256: a KEK is 32 bytes", () => {
  assert.is(kekBytes, 32);
});

Kek("parseKek: 64 hex digits, lower or upper case", () => {
  assert.equal(parseKek("07".repeat(32)), Buffer.alloc(32, 7));
  const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 8));
  assert.equal(parseKek(bytes.toString("hex").toUpperCase()), bytes);
});

Kek("parseKek: base64 (padded, with + and /) and base64url (unpadded, with - and _) of exactly 32 bytes", () => {
  const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 0xfb + i));
  assert.match(bytes.toString("base64"), /[+/]/);
  assert.match(bytes.toString("base64url"), /[-_]/);
  assert.equal(parseKek(bytes.toString("base64")), bytes);
  assert.equal(parseKek(bytes.toString("base64url")), bytes);
  assert.equal(parseKek(Buffer.alloc(32, 7).toString("base64url")), Buffer.alloc(32, 7));
});

Kek("parseKek: surrounding whitespace (a file's newline) is ignored", () => {
  assert.equal(parseKek(`  ${Buffer.alloc(32, 9).toString("base64url")}\n`), Buffer.alloc(32, 9));
  assert.equal(parseKek(`\t${"0a".repeat(32)}\r\n`), Buffer.alloc(32, 10));
});

Kek("parseKek: anything else is undefined: short, 31 or 33 bytes, 63 or 65 hex digits, other characters, empty", () => {
  for (const text of [
    "short",
    "",
    "   ",
    Buffer.alloc(31, 1).toString("base64"),
    Buffer.alloc(33, 1).toString("base64url"),
    Buffer.alloc(16, 1).toString("hex"),
    "0".repeat(63),
    "0".repeat(65),
    "g".repeat(64),
    `${Buffer.alloc(32, 1).toString("base64url").slice(0, 20)}!${Buffer.alloc(32, 1).toString("base64url").slice(21)}`,
  ]) {
    assert.is(parseKek(text), undefined, JSON.stringify(text));
  }
});

Kek("seal: version byte 1, a 12-byte IV, a 16-byte tag, then the ciphertext (as long as the plaintext)", () => {
  const plaintext = Buffer.from("-----BEGIN PRIVATE KEY----- secret");
  const sealed = seal(kek, plaintext, "kid1");
  assert.is(sealed[0], 1);
  assert.is(sealed.length, 1 + 12 + 16 + plaintext.length);
  assert.not.ok(sealed.includes(Buffer.from("BEGIN")), "the plaintext does not show");
});

Kek("seal: a fresh IV each time, so sealing twice gives different values that both open", () => {
  const a = seal(kek, Buffer.from("private"), "kid1");
  const b = seal(kek, Buffer.from("private"), "kid1");
  assert.not.equal(a, b);
  assert.not.equal(a.subarray(1, 13), b.subarray(1, 13));
  assert.is(unseal(kek, a, "kid1").toString(), "private");
  assert.is(unseal(kek, b, "kid1").toString(), "private");
});

Kek("seal/unseal round trip, including an empty plaintext and a Uint8Array as read from the database", () => {
  const sealed = seal(kek, Buffer.from("private"), "kid1");
  assert.is(unseal(kek, sealed, "kid1").toString(), "private");
  assert.is(unseal(kek, new Uint8Array(sealed), "kid1").toString(), "private");
  const empty = seal(kek, Buffer.alloc(0), "kid1");
  assert.is(empty.length, 29);
  assert.equal(unseal(kek, empty, "kid1"), Buffer.alloc(0));
});

Kek("unseal: another context (kid) is refused: a value cannot be moved to another key's row", () => {
  const sealed = seal(kek, Buffer.from("private"), "kid1");
  assert.throws(() => unseal(kek, sealed, "kid2"), /unable to authenticate/);
  assert.throws(() => unseal(kek, sealed, ""), /unable to authenticate/);
});

Kek("unseal: another KEK is refused", () => {
  const sealed = seal(kek, Buffer.from("private"), "kid1");
  assert.throws(() => unseal(Buffer.alloc(32, 9), sealed, "kid1"), /unable to authenticate/);
});

Kek("unseal: an altered ciphertext, tag or IV is refused (GCM authentication)", () => {
  const sealed = seal(kek, Buffer.from("private"), "kid1");
  for (const index of [1, 12, 13, 28, 29, sealed.length - 1]) {
    const altered = Buffer.from(sealed);
    altered[index] = altered[index]! ^ 0x01;
    assert.throws(() => unseal(kek, altered, "kid1"), /unable to authenticate/, `byte ${index}`);
  }
});

Kek("unseal: an unknown version byte or a value shorter than version, IV and tag is an unknown format", () => {
  const sealed = seal(kek, Buffer.from("private"), "kid1");
  const v2 = Buffer.from(sealed);
  v2[0] = 2;
  assert.throws(() => unseal(kek, v2, "kid1"), /^sealed value has an unknown format$/);
  assert.throws(() => unseal(kek, sealed.subarray(0, 28), "kid1"), /^sealed value has an unknown format$/);
  assert.throws(() => unseal(kek, Buffer.alloc(0), "kid1"), /^sealed value has an unknown format$/);
});

Kek("loadKeyEncryptionKey: a configured KEK is used as given, without a warning", async () => {
  const { logger, warnings } = warningLogger();
  const loaded = await loadKeyEncryptionKey({ configured: "07".repeat(32), dataDir: ":memory:", logger });
  assert.equal(loaded, Buffer.alloc(32, 7));
  assert.is(warnings.length, 0);
});

Kek("loadKeyEncryptionKey: a configured value that is not 32 bytes stops the start naming the variable", async () => {
  try {
    await loadKeyEncryptionKey({ configured: "short", dataDir: ":memory:", logger: silentLogger });
    assert.unreachable("a bad TOKEN_KEY_ENCRYPTION_KEY must be refused");
  } catch (error) {
    assert.is(
      (error as Error).message,
      "TOKEN_KEY_ENCRYPTION_KEY must be 32 bytes: 64 hex digits, or base64 / base64url",
    );
  }
});

Kek("loadKeyEncryptionKey: DATA_DIR :memory: gives a random key for this process, with a warning", async () => {
  const { logger, warnings } = warningLogger();
  const a = await loadKeyEncryptionKey({ configured: undefined, dataDir: ":memory:", logger });
  const b = await loadKeyEncryptionKey({ configured: undefined, dataDir: ":memory:", logger });
  assert.is(a.length, 32);
  assert.not.equal(a, b);
  assert.equal(
    warnings.map((w) => w.message),
    Array(2).fill("TOKEN_KEY_ENCRYPTION_KEY is not set: using a random key-encryption key for this process only"),
  );
});

Kek(
  "loadKeyEncryptionKey: generated once into DATA_DIR with mode 0600, then read back, each time with a warning",
  async () => {
    await withTempDir(async (dir) => {
      const { logger, warnings } = warningLogger();
      const made = await loadKeyEncryptionKey({ configured: undefined, dataDir: dir, logger });
      const file = join(dir, generatedKekFile);
      assert.is(generatedKekFile, "token-key-encryption-key");
      assert.is((await stat(file)).mode & 0o777, 0o600);
      assert.is(await readFile(file, "utf8"), made.toString("base64url") + "\n");
      assert.equal(parseKek(await readFile(file, "utf8")), made);
      assert.equal(await loadKeyEncryptionKey({ configured: undefined, dataDir: dir, logger }), made);
      assert.equal(
        warnings.map((w) => w.message),
        [
          "TOKEN_KEY_ENCRYPTION_KEY is not set: generated a key-encryption key into DATA_DIR; set the variable in production",
          "TOKEN_KEY_ENCRYPTION_KEY is not set: using the key-encryption key generated in DATA_DIR",
        ],
      );
      assert.equal(
        warnings.map((w) => w.fields),
        [{ path: file }, { path: file }],
      );
    });
  },
);

Kek("loadKeyEncryptionKey: a configured KEK wins over the file in DATA_DIR", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, generatedKekFile), Buffer.alloc(32, 1).toString("base64url") + "\n");
    const loaded = await loadKeyEncryptionKey({
      configured: Buffer.alloc(32, 2).toString("base64"),
      dataDir: dir,
      logger: silentLogger,
    });
    assert.equal(loaded, Buffer.alloc(32, 2));
  });
});

Kek(
  "loadKeyEncryptionKey: a DATA_DIR file that does not hold 32 bytes is refused naming the file, and left alone",
  async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, generatedKekFile);
      await writeFile(file, "not a key\n");
      try {
        await loadKeyEncryptionKey({ configured: undefined, dataDir: dir, logger: silentLogger });
        assert.unreachable("a bad key file must be refused");
      } catch (error) {
        assert.is((error as Error).message, `${file} does not hold a 32-byte key-encryption key`);
      }
      assert.is(await readFile(file, "utf8"), "not a key\n");
    });
  },
);

Kek("loadKeyEncryptionKey: a missing DATA_DIR is created", async () => {
  await withTempDir(async (dir) => {
    const nested = join(dir, "a", "b");
    const made = await loadKeyEncryptionKey({ configured: undefined, dataDir: nested, logger: silentLogger });
    assert.equal(parseKek(await readFile(join(nested, generatedKekFile), "utf8")), made);
  });
});

Kek.run();
