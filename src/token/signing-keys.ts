// The signing-key store: RS256 keys in the control database (private parts sealed under the KEK), the key that
// signs now, the keys the JWKS publishes, and rotation with publish-before-sign and retire-after timing.
//
// Timing (docs/decisions.md, "OAuth"): a new key is published at once and signs only `publishAheadSeconds` later
// (the JWKS cache lifetime plus this store's refresh interval), so every verifier that caches our JWKS has seen it
// before the first token it signs arrives. The key it replaces stops signing at that moment and stays published
// for `retireAfterSeconds` more (the access-token lifetime plus the JWKS cache lifetime plus the refresh
// interval), so every token it signed expires, and every cached JWKS is refreshed, before it disappears.
import { createPrivateKey, generateKeyPair, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, exportJWK } from "jose";
import { promisify } from "node:util";
import { getOption } from "@bufbuild/protobuf";
import type postgres from "postgres";
import { route } from "../../gen/partnerapi/v1/options_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { createSigningKeyQueries, type PublicJwk, type SigningKeyRow } from "./queries/signing-key-queries.js";
import type { SigningKey } from "./access-token.js";
import { seal, unseal } from "./key-encryption.js";

const generateRsaKeyPair = promisify(generateKeyPair);

/** RSA modulus size: 2048 bits, the RFC 7518 section 3.3 minimum and what every JOSE library accepts. */
const modulusLength = 2048;

/** How often an instance re-reads the key table (a rotation made elsewhere is seen within this): 30 s. */
export const keyRefreshSeconds = 30;

/**
 * The JWKS cache lifetime, read from the `max-age` of GetJwks' `(partnerapi.v1.route).cache_control` so the
 * published header and the rotation timing cannot drift apart.
 */
export const jwksCacheSeconds: number = (() => {
  const cacheControl = getOption(TokenService.method.getJwks, route).cacheControl;
  const match = /max-age=(\d+)/.exec(cacheControl);
  if (!match) throw new Error("GetJwks needs a max-age in its cache_control option");
  return Number(match[1]);
})();

export interface SigningKeyTiming {
  /** From publication to first signature. */
  publishAheadSeconds: number;
  /** From the last signature to leaving the JWKS. */
  retireAfterSeconds: number;
}

/** The timing for an access-token lifetime (seconds). */
export function signingKeyTiming(accessTokenTtlSeconds: number): SigningKeyTiming {
  return {
    publishAheadSeconds: jwksCacheSeconds + keyRefreshSeconds,
    retireAfterSeconds: accessTokenTtlSeconds + jwksCacheSeconds + keyRefreshSeconds,
  };
}

export interface RotationResult {
  kid: string;
  publishAt: Date;
  signFrom: Date;
  previousKid?: string;
  previousRetireAt?: Date;
}

export interface SigningKeyStore {
  /** Makes sure some key signs now; creates the very first key (signing at once: nobody cached a JWKS yet). */
  ensure(): Promise<void>;
  /** The key that signs at the clock's now. */
  signingKey(): Promise<SigningKey>;
  /** The keys the JWKS publishes at the clock's now, oldest first. */
  published(): Promise<PublicJwk[]>;
  /** Starts a rotation; while one is pending (its key does not sign yet) it returns that one instead. */
  rotate(): Promise<RotationResult>;
  /**
   * Seconds since the key that signs now began to sign (the signing-key age metric), from the key table as last
   * read when a re-read fails; undefined when no key signs now.
   */
  signingAgeSeconds(): Promise<number | undefined>;
}

export interface SigningKeyStoreOptions {
  sql: postgres.Sql;
  kek: Buffer;
  clock: Clock;
  logger: Logger;
  accessTokenTtlSeconds: number;
}

const signsAt = (row: SigningKeyRow, at: number) =>
  row.sign_from.getTime() <= at && (row.sign_until === null || at < row.sign_until.getTime());
const publishedAt = (row: SigningKeyRow, at: number) =>
  row.publish_at.getTime() <= at && (row.retire_at === null || at < row.retire_at.getTime());

/**
 * A new key's public JWK (RFC 7517, as jose's exportJWK writes it) with its kid, the RFC 7638 SHA-256 thumbprint
 * (jose's calculateJwkThumbprint): a kid derived from the key itself, the same on every instance.
 */
export async function publicJwkOf(publicKey: KeyObject): Promise<PublicJwk> {
  const { kty, n, e } = await exportJWK(publicKey);
  if (kty !== "RSA" || n === undefined || e === undefined) throw new Error(`signing keys are RSA, not ${kty}`);
  const kid = await calculateJwkThumbprint({ kty, n, e }, "sha256");
  return { kty: "RSA", kid, use: "sig", alg: "RS256", n, e };
}

export function createSigningKeyStore(options: SigningKeyStoreOptions): SigningKeyStore {
  const { sql, kek, clock, logger } = options;
  const timing = signingKeyTiming(options.accessTokenTtlSeconds);
  const privateKeys = new Map<string, KeyObject>();
  let rows: SigningKeyRow[] = [];
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  const load = (): Promise<void> =>
    (loading ??= (async () => {
      try {
        const at = clock.now();
        rows = await createSigningKeyQueries(sql).unretired(new Date(at));
        loadedAt = at;
      } finally {
        loading = undefined;
      }
    })());

  const fresh = async () => {
    if (clock.now() - loadedAt >= keyRefreshSeconds * 1000 || clock.now() < loadedAt) await load();
  };

  async function newKey(at: Date, signFrom: Date, tx: postgres.TransactionSql): Promise<string> {
    const { privateKey, publicKey } = await generateRsaKeyPair("rsa", { modulusLength });
    const publicJwk = await publicJwkOf(publicKey);
    const kid = publicJwk.kid;
    const der = privateKey.export({ format: "der", type: "pkcs8" });
    await createSigningKeyQueries(tx).insert({
      kid,
      publicJwk,
      sealedPrivateKey: seal(kek, der, kid),
      publishAt: at,
      signFrom,
      now: at,
    });
    privateKeys.set(kid, privateKey);
    return kid;
  }

  async function privateKeyOf(kid: string): Promise<KeyObject> {
    const cached = privateKeys.get(kid);
    if (cached) return cached;
    const sealed = await createSigningKeyQueries(sql).sealedPrivateKey(kid);
    if (!sealed) throw new Error(`signing key ${kid} is not in the database`);
    let der: Buffer;
    try {
      der = unseal(kek, sealed, kid);
    } catch {
      throw new Error(
        `signing key ${kid} cannot be decrypted: this instance's TOKEN_KEY_ENCRYPTION_KEY differs from the one that sealed it`,
      );
    }
    const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
    privateKeys.set(kid, key);
    return key;
  }

  const store: SigningKeyStore = {
    async ensure() {
      await fresh();
      if (rows.some((row) => signsAt(row, clock.now()))) return;
      await sql.begin(async (tx) => {
        const queries = createSigningKeyQueries(tx);
        await queries.lockRotation();
        const at = new Date(clock.now());
        const current = await queries.unretired(at);
        if (current.some((row) => signsAt(row, at.getTime()))) return;
        const kid = await newKey(at, at, tx);
        // A rotation that is still pending keeps its start: the immediate key hands over to it then.
        const pending = current.find((row) => row.sign_from.getTime() > at.getTime());
        if (pending)
          await queries.scheduleEnd(
            kid,
            pending.sign_from,
            new Date(pending.sign_from.getTime() + timing.retireAfterSeconds * 1000),
          );
        logger.info("signing key created", { kid });
      });
      await load();
    },

    async signingKey() {
      await fresh();
      let row = rows.findLast((candidate) => signsAt(candidate, clock.now()));
      if (!row) {
        await store.ensure();
        row = rows.findLast((candidate) => signsAt(candidate, clock.now()));
      }
      if (!row) throw new Error("no signing key signs now");
      return { kid: row.kid, privateKey: await privateKeyOf(row.kid) };
    },

    async signingAgeSeconds() {
      await fresh().catch(() => undefined);
      const at = clock.now();
      const row = rows.findLast((candidate) => signsAt(candidate, at));
      return row ? Math.max(0, (at - row.sign_from.getTime()) / 1000) : undefined;
    },

    async published() {
      await fresh();
      const at = clock.now();
      return rows.filter((row) => publishedAt(row, at)).map((row) => row.public_jwk);
    },

    async rotate() {
      const result = await sql.begin(async (tx): Promise<RotationResult> => {
        const queries = createSigningKeyQueries(tx);
        await queries.lockRotation();
        const at = new Date(clock.now());
        const current = await queries.unretired(at);
        const pending = current.find((row) => row.sign_from.getTime() > at.getTime());
        const signing = current.findLast((row) => signsAt(row, at.getTime()));
        if (pending) {
          return {
            kid: pending.kid,
            publishAt: pending.publish_at,
            signFrom: pending.sign_from,
            ...(signing ? { previousKid: signing.kid, previousRetireAt: signing.retire_at ?? undefined } : {}),
          };
        }
        const signFrom = new Date(at.getTime() + timing.publishAheadSeconds * 1000);
        const kid = await newKey(at, signFrom, tx);
        if (!signing) return { kid, publishAt: at, signFrom };
        const retireAt = new Date(signFrom.getTime() + timing.retireAfterSeconds * 1000);
        await queries.scheduleEnd(signing.kid, signFrom, retireAt);
        return { kid, publishAt: at, signFrom, previousKid: signing.kid, previousRetireAt: retireAt };
      });
      logger.info("signing key rotation started", {
        kid: result.kid,
        signFrom: result.signFrom.toISOString(),
        previousKid: result.previousKid,
        previousRetireAt: result.previousRetireAt?.toISOString(),
      });
      await load();
      return result;
    },
  };
  return store;
}
