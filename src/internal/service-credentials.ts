// The internal port's callers: service credentials with a role each, sent in X-Service-Credential (docs/decisions.md, "Internal port").
//
// A credential is `svc_<id>_<secret>`: the id names the caller in logs, the secret is 256 random bits. A process
// knows only hashes, in a credentials file of "<role> <id> <sha256 hex of the whole credential>" lines, so several
// credentials of a role can be valid at once (rotation: add the new line, move the callers, remove the old line;
// the file is re-read when it changes). Verification hashes the presented credential and compares in constant time.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
// A service credential is a 256-bit secret like a client secret: hashed and compared as the credential owner does.
import { hashesEqual, hashSecret } from "../credential/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";

/** The roles of internal callers; each RPC admits some of them (./access-policy.ts). */
export const serviceRoles = ["operator", "staff", "front", "pos"] as const;
export type ServiceRole = (typeof serviceRoles)[number];

/** Who called, once authenticated: what the access log and the audit of refusals show (never the credential). */
export interface InternalCaller {
  id: string;
  role: ServiceRole;
}

const credentialPattern = /^svc_([a-z0-9][a-z0-9-]{0,39})_([A-Za-z0-9_-]{43})$/;
const idPattern = /^[a-z0-9][a-z0-9-]{0,39}$/;
const hashPattern = /^[0-9a-f]{64}$/;

/** The id a presented credential claims, for the log of a refusal; undefined when it is not shaped like one. */
export function claimedId(credential: string): string | undefined {
  return credentialPattern.exec(credential)?.[1];
}

/** A new credential for `role` and the credentials-file line that accepts it. */
export function newServiceCredential(
  role: ServiceRole,
  id = `${role}-${randomBytes(4).toString("hex")}`,
): { credential: string; line: string } {
  if (!idPattern.test(id))
    throw new Error(
      `a credential id is 1 to 40 of a-z, 0-9 and "-", starting with a letter or digit: ${JSON.stringify(id)}`,
    );
  const credential = `svc_${id}_${randomBytes(32).toString("base64url")}`;
  return { credential, line: `${role} ${id} ${hashSecret(credential).toString("hex")}` };
}

/** A credentials file that cannot be read as one; the message names the file and the line. */
export class CredentialsFileError extends Error {
  override name = "CredentialsFileError";
}

interface Entry {
  role: ServiceRole;
  hash: Buffer;
}

/** Parses a credentials file: blank lines and `#` comments are skipped; anything else malformed is refused. */
export function parseCredentialsFile(text: string, source: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const where = `${source} line ${index + 1}`;
    const [role, id, hash, ...rest] = line.split(/\s+/);
    if (rest.length > 0 || !role || !id || !hash)
      throw new CredentialsFileError(`${where}: expected "<role> <id> <sha256 hex>"`);
    if (!(serviceRoles as readonly string[]).includes(role))
      throw new CredentialsFileError(`${where}: unknown role ${role} (roles: ${serviceRoles.join(", ")})`);
    if (!idPattern.test(id)) throw new CredentialsFileError(`${where}: malformed id`);
    if (!hashPattern.test(hash)) throw new CredentialsFileError(`${where}: the hash must be 64 lowercase hex digits`);
    if (entries.has(id)) throw new CredentialsFileError(`${where}: id ${id} appears twice`);
    entries.set(id, { role: role as ServiceRole, hash: Buffer.from(hash, "hex") });
  });
  return entries;
}

export interface ServiceCredentials {
  /** The caller a presented credential stands for, or undefined for a malformed, unknown or wrong one. */
  verify(credential: string): Promise<InternalCaller | undefined>;
  /** How many credentials are accepted now, by role (for the start log). */
  counts(): Record<ServiceRole, number>;
}

export interface ServiceCredentialsOptions {
  /** The credentials file; a missing file accepts nobody (every RPC but health and reflection is refused). */
  file: string;
  clock: Clock;
  logger: Logger;
  /** How often, at most, a verification checks whether the file changed; 5 s by default. */
  recheckMs?: number;
}

/** A hash nothing hashes to, compared against when the id is unknown so both paths cost one comparison. */
const noMatch = Buffer.alloc(32);

/** Loads the credentials file (throws CredentialsFileError when it is malformed) and keeps it current. */
export async function loadServiceCredentials(options: ServiceCredentialsOptions): Promise<ServiceCredentials> {
  const { file, clock, logger } = options;
  const recheckMs = options.recheckMs ?? 5_000;
  let entries = new Map<string, Entry>();
  let loadedVersion = "";
  let checkedAt = -Infinity;

  /** Re-reads the file when its size or modification time changed; a malformed new version keeps the old one. */
  const refresh = async (initial: boolean) => {
    checkedAt = clock.now();
    const version = await stat(file).then(
      (info) => `${info.mtimeMs}:${info.size}`,
      () => "missing",
    );
    if (version === loadedVersion) return;
    try {
      entries = version === "missing" ? new Map() : parseCredentialsFile(await readFile(file, "utf8"), file);
      loadedVersion = version;
      if (!initial) logger.info("internal credentials reloaded", { file, ...countsOf(entries) });
    } catch (error) {
      if (initial) throw error;
      logger.error("internal credentials file not reloaded: keeping the previous version", {
        file,
        error: (error as Error).message,
      });
      loadedVersion = version;
    }
  };
  await refresh(true);
  if (entries.size === 0)
    logger.warn("no internal credentials: the internal port refuses every RPC but health and reflection", { file });

  return {
    async verify(credential) {
      if (clock.now() - checkedAt >= recheckMs) await refresh(false);
      const match = credentialPattern.exec(credential);
      const entry = match ? entries.get(match[1]!) : undefined;
      const equal = hashesEqual(hashSecret(credential), entry?.hash ?? noMatch);
      return entry && equal ? { id: match![1]!, role: entry.role } : undefined;
    },
    counts: () => countsOf(entries),
  };
}

function countsOf(entries: Map<string, Entry>): Record<ServiceRole, number> {
  const counts = { operator: 0, staff: 0, front: 0, pos: 0 };
  for (const entry of entries.values()) counts[entry.role] += 1;
  return counts;
}

/** The file beside the credentials file that holds the generated operator credential itself. */
export function operatorCredentialPath(dataDir: string): string {
  return join(dataDir, "operator-credential");
}

/**
 * On a brand-new embedded start (the default credentials file in DATA_DIR does not exist yet), makes an operator
 * credential: the credential into DATA_DIR/operator-credential and its line into the credentials file, both
 * readable by the owner only (0600). Returns the credential's path when it made one.
 */
export async function ensureEmbeddedOperatorCredential(options: {
  credentialsFile: string;
  dataDir: string;
}): Promise<string | undefined> {
  const exists = await stat(options.credentialsFile).then(
    () => true,
    () => false,
  );
  if (exists) return undefined;
  const { credential, line } = newServiceCredential("operator", "operator-embedded");
  const credentialFile = operatorCredentialPath(options.dataDir);
  await writeFile(credentialFile, credential + "\n", { mode: 0o600 });
  await chmod(credentialFile, 0o600);
  const header =
    '# Internal port credentials: <role> <id> <sha256 hex of the credential> (docs/operations.md, "The internal port")\n';
  await writeFile(options.credentialsFile, header + line + "\n", { mode: 0o600, flag: "wx" });
  return credentialFile;
}

/** The file in DATA_DIR that holds the staff credential of development mode (`npm run staff` reads it). */
export function staffCredentialPath(dataDir: string): string {
  return join(dataDir, "staff-credential");
}

/** The id of development mode's staff credential in the credentials file. */
export const localStaffId = "staff-local-dev";

/**
 * Development mode (config.internal.localStaff): keeps a staff credential in DATA_DIR/staff-credential whose line
 * is in the credentials file, both readable by the owner only (0600), so `npm run staff` can act as the staff a
 * local run has none of. A credential already in place is kept; a missing or unaccepted one is replaced (the old
 * line of its id removed). Returns the credential's path when it made one. Call it before the file is loaded.
 */
export async function ensureLocalStaffCredential(options: {
  credentialsFile: string;
  dataDir: string;
}): Promise<string | undefined> {
  const path = staffCredentialPath(options.dataDir);
  const [existing, file] = await Promise.all([
    readFile(path, "utf8").then(
      (text) => text.trim(),
      () => undefined,
    ),
    readFile(options.credentialsFile, "utf8").catch(() => ""),
  ]);
  const lines = file.split("\n").filter((line) => line.trim() !== "");
  if (existing && credentialPattern.test(existing)) {
    const accepted = `staff ${localStaffId} ${hashSecret(existing).toString("hex")}`;
    if (lines.some((line) => line.trim().split(/\s+/).join(" ") === accepted)) return undefined;
  }
  const { credential, line } = newServiceCredential("staff", localStaffId);
  const kept = lines.filter((entry) => entry.trim().split(/\s+/)[1] !== localStaffId);
  // On a real database nothing else has made DATA_DIR yet (the embedded one makes it for its files).
  await mkdir(dirname(options.credentialsFile), { recursive: true, mode: 0o700 });
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Replaced whole (a new file renamed over it): a reader, or a second process starting, never sees half of it.
  const next = `${options.credentialsFile}.${process.pid}.tmp`;
  await writeFile(next, [...kept, line].join("\n") + "\n", { mode: 0o600 });
  await chmod(next, 0o600);
  await rename(next, options.credentialsFile);
  await writeFile(path, credential + "\n", { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

/** Reads a credential this process presents (REGION_GRPC_CREDENTIAL_FILE); throws naming the file when malformed. */
export async function readPresentedCredential(file: string): Promise<string> {
  const credential = (await readFile(file, "utf8")).trim();
  if (!credentialPattern.test(credential))
    throw new CredentialsFileError(`${file}: not a service credential (svc_<id>_<secret>)`);
  return credential;
}
