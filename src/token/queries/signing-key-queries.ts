// Queries of control.signing_keys: the JWKS lifecycle of each RS256 key (published from publish_at, signs from
// sign_from until sign_until, leaves the JWKS at retire_at). Private parts are stored sealed (src/token/key-encryption.ts).
// Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";

/**
 * The public parts of an RSA key as RFC 7517 writes them, with our kid, use and alg. A type rather than an interface:
 * a type's fields are its whole shape, so it is a JSON value to `sql.json` (an interface may be extended, so is not).
 */
export type PublicJwk = {
  kty: "RSA";
  kid: string;
  use: "sig";
  alg: "RS256";
  n: string;
  e: string;
};

export interface SigningKeyRow {
  kid: string;
  public_jwk: PublicJwk;
  publish_at: Date;
  sign_from: Date;
  sign_until: Date | null;
  retire_at: Date | null;
}

const columns = "kid, public_jwk, publish_at, sign_from, sign_until, retire_at";

/** Advisory-lock key that serialises key creation and rotation across instances ("sigk" in ASCII). */
const rotationLock = 0x7369676b;

/** The signing-key queries over `sql` (the pool, or a transaction's `sql`). */
export function createSigningKeyQueries(sql: SqlClient) {
  return {
    /** Serialises creation and rotation until the transaction ends (call inside `sql.begin`). */
    async lockRotation(): Promise<void> {
      await sql`select pg_advisory_xact_lock(${rotationLock})`;
    },
    /** Every key that is published at `now` or will be (not yet retired), oldest first. */
    async unretired(now: Date): Promise<SigningKeyRow[]> {
      return sql<SigningKeyRow[]>`
        select ${sql.unsafe(columns)} from control.signing_keys
        where retire_at is null or retire_at > ${now}
        order by sign_from, kid`;
    },
    async insert(key: {
      kid: string;
      publicJwk: PublicJwk;
      sealedPrivateKey: Uint8Array;
      publishAt: Date;
      signFrom: Date;
      now: Date;
    }): Promise<void> {
      await sql`
        insert into control.signing_keys (kid, algorithm, public_jwk, private_key_encrypted, created_at, publish_at, sign_from)
        values (${key.kid}, 'RS256', ${sql.json(key.publicJwk)}, ${key.sealedPrivateKey},
                ${key.now}, ${key.publishAt}, ${key.signFrom})`;
    },
    /** The sealed private part of a key. */
    async sealedPrivateKey(kid: string): Promise<Uint8Array | undefined> {
      const [row] = await sql<{ private_key_encrypted: Uint8Array }[]>`
        select private_key_encrypted from control.signing_keys where kid = ${kid}`;
      return row?.private_key_encrypted;
    },
    /** Ends a key's signing at `signUntil` and schedules its removal from the JWKS at `retireAt`. */
    async scheduleEnd(kid: string, signUntil: Date, retireAt: Date): Promise<void> {
      await sql`update control.signing_keys set sign_until = ${signUntil}, retire_at = ${retireAt} where kid = ${kid}`;
    },
  };
}
