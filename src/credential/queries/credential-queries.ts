// Queries of control.client_credentials, control.client_secrets, control.api_keys and
// control.credential_ip_allowlist. Hashes only: no secret ever reaches these tables. Every function runs on the
// `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";
import type { AppRow } from "./app-queries.js";

export type EnvironmentName = "SANDBOX" | "PRODUCTION";

/** A live client id with the app it belongs to, as verification needs it. */
export interface ClientWithApp {
  client_id: string;
  environment: EnvironmentName;
  app_id: string;
  organization_id: number;
  product: AppRow["product"];
  state: AppRow["state"];
  require_dpop: boolean;
}

/** A live client id of an app, with when and to whom a secret of it was first handed out (null: never). */
export interface LiveClientRow {
  client_id: string;
  environment: EnvironmentName;
  secret_shown_at: Date | null;
  secret_shown_to: string | null;
}

export interface SecretRow {
  id: number;
  secret_hash: Uint8Array;
  expires_at: Date | null;
}

export interface ApiKeyRow {
  id: number;
  app_id: string;
  environment: EnvironmentName;
  name: string;
  key_hash: Uint8Array;
  revoked_at: Date | null;
}

/** The credential queries over `sql` (the pool, or a transaction's `sql`). */
export function createCredentialQueries(sql: SqlClient) {
  return {
    async insertClient(clientId: string, appId: string, environment: EnvironmentName, now: Date): Promise<void> {
      await sql`insert into control.client_credentials (client_id, app_id, environment, created_at)
                values (${clientId}, ${appId}, ${environment}, ${now})`;
    },
    async insertSecret(clientId: string, hash: Uint8Array, now: Date): Promise<void> {
      await sql`insert into control.client_secrets (client_id, secret_hash, created_at)
                values (${clientId}, ${hash}, ${now})`;
    },
    /** The live (not revoked) client ids of an app. */
    async liveClients(appId: string): Promise<LiveClientRow[]> {
      return sql<LiveClientRow[]>`
        select client_id, environment, secret_shown_at, secret_shown_to from control.client_credentials
        where app_id = ${appId} and revoked_at is null order by environment desc`;
    },
    /** A live client id and its app; `lock` takes the credential's row lock (rotation serialises on it). */
    async findClient(clientId: string, options: { lock?: boolean } = {}): Promise<ClientWithApp | undefined> {
      const [row] = await sql<ClientWithApp[]>`
        select c.client_id, c.environment, a.id as app_id, a.organization_id, a.product, a.state, a.require_dpop
        from control.client_credentials c join control.apps a on a.id = c.app_id
        where c.client_id = ${clientId} and c.revoked_at is null
        ${options.lock ? sql`for update of c` : sql``}`;
      return row;
    },
    /** The secrets of a client id that work at `now`: not revoked, and not past the end of their overlap. */
    async workingSecrets(clientId: string, now: Date): Promise<SecretRow[]> {
      return sql<SecretRow[]>`
        select id, secret_hash, expires_at from control.client_secrets
        where client_id = ${clientId} and revoked_at is null and (expires_at is null or expires_at > ${now})`;
    },
    /**
     * The rotation step before the new secret is inserted: a secret already in its overlap stops at once, and
     * the current one (no end) starts its overlap ending at `overlapEnd`. With the new one, two work at most.
     */
    async startOverlap(clientId: string, now: Date, overlapEnd: Date): Promise<void> {
      await sql`update control.client_secrets set revoked_at = ${now}
                where client_id = ${clientId} and revoked_at is null and expires_at is not null`;
      await sql`update control.client_secrets set expires_at = ${overlapEnd}
                where client_id = ${clientId} and revoked_at is null and expires_at is null`;
    },
    /** Records the first hand-out of a secret of a client id (a later one keeps the first record). */
    async recordSecretShown(clientId: string, at: Date, to: string): Promise<void> {
      await sql`update control.client_credentials set secret_shown_at = ${at}, secret_shown_to = ${to}
                where client_id = ${clientId} and secret_shown_at is null`;
    },
    /** How many secrets a client id has ever had, revoked and expired ones included. */
    async countSecrets(clientId: string): Promise<number> {
      const [row] = await sql<
        { count: number }[]
      >`select count(*)::int as count from control.client_secrets where client_id = ${clientId}`;
      return row?.count ?? 0;
    },
    /** Revokes every secret of a client id at once (the client id itself stays). */
    async revokeSecrets(clientId: string, now: Date): Promise<void> {
      await sql`update control.client_secrets set revoked_at = ${now} where client_id = ${clientId} and revoked_at is null`;
    },
    async revokeClient(clientId: string, now: Date): Promise<boolean> {
      const rows = await sql`update control.client_credentials set revoked_at = ${now}
                             where client_id = ${clientId} and revoked_at is null returning client_id`;
      await sql`update control.client_secrets set revoked_at = ${now} where client_id = ${clientId} and revoked_at is null`;
      return rows.length > 0;
    },

    /** Whether a live key of the app (either environment) has this name, letter case aside. */
    async liveApiKeyNamed(appId: string, name: string): Promise<boolean> {
      const rows = await sql`
        select 1 from control.api_keys where app_id = ${appId} and revoked_at is null and lower(name) = lower(${name}) limit 1`;
      return rows.length > 0;
    },
    async countLiveApiKeys(appId: string): Promise<number> {
      const [row] = await sql<{ count: number }[]>`
        select count(*)::int as count from control.api_keys where app_id = ${appId} and revoked_at is null`;
      return row!.count;
    },
    async insertApiKey(
      key: { appId: string; environment: EnvironmentName; name: string; lookupId: string; hash: Uint8Array },
      now: Date,
    ): Promise<number> {
      const [row] = await sql<{ id: number }[]>`
        insert into control.api_keys (app_id, environment, name, lookup_id, key_hash, created_at)
        values (${key.appId}, ${key.environment}, ${key.name}, ${key.lookupId}, ${key.hash}, ${now}) returning id`;
      return row!.id;
    },
    /** A live API key by its lookup id, with its app. */
    async findApiKeyByLookup(
      lookupId: string,
    ): Promise<(ApiKeyRow & Omit<ClientWithApp, "client_id" | "environment">) | undefined> {
      const [row] = await sql<(ApiKeyRow & Omit<ClientWithApp, "client_id" | "environment">)[]>`
        select k.id, k.app_id, k.environment, k.name, k.key_hash, k.revoked_at, a.organization_id, a.product, a.state
        from control.api_keys k join control.apps a on a.id = k.app_id
        where k.lookup_id = ${lookupId} and k.revoked_at is null`;
      return row;
    },
    async findApiKey(id: number): Promise<ApiKeyRow | undefined> {
      const [row] = await sql<ApiKeyRow[]>`
        select id, app_id, environment, name, key_hash, revoked_at from control.api_keys where id = ${id}`;
      return row;
    },
    async apiKeysOfApp(appId: string): Promise<Omit<ApiKeyRow, "key_hash">[]> {
      return sql<Omit<ApiKeyRow, "key_hash">[]>`
        select id, app_id, environment, name, revoked_at from control.api_keys where app_id = ${appId} order by id`;
    },
    async revokeApiKey(id: number, now: Date): Promise<boolean> {
      const rows =
        await sql`update control.api_keys set revoked_at = ${now} where id = ${id} and revoked_at is null returning id`;
      return rows.length > 0;
    },

    async allowlist(credential: { clientId: string } | { apiKeyId: number }): Promise<string[]> {
      const rows =
        "clientId" in credential
          ? await sql<
              { cidr: string }[]
            >`select cidr from control.credential_ip_allowlist where client_id = ${credential.clientId} order by id`
          : await sql<
              { cidr: string }[]
            >`select cidr from control.credential_ip_allowlist where api_key_id = ${credential.apiKeyId} order by id`;
      return rows.map((row) => row.cidr);
    },
    /** Replaces a credential's allowlist; run inside a transaction so readers never see it half written. */
    async replaceAllowlist(
      credential: { clientId: string } | { apiKeyId: number },
      entries: readonly string[],
      now: Date,
    ): Promise<void> {
      if ("clientId" in credential) {
        await sql`delete from control.credential_ip_allowlist where client_id = ${credential.clientId}`;
      } else {
        await sql`delete from control.credential_ip_allowlist where api_key_id = ${credential.apiKeyId}`;
      }
      for (const cidr of entries) {
        await sql`insert into control.credential_ip_allowlist (client_id, api_key_id, cidr, created_at)
                  values (${"clientId" in credential ? credential.clientId : null},
                          ${"apiKeyId" in credential ? credential.apiKeyId : null}, ${cidr}, ${now})`;
      }
    },
  };
}
