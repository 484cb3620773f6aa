// Queries of control.webhook_endpoints. Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";

export type WebhookEnvironment = "SANDBOX" | "PRODUCTION";

export interface EndpointRow {
  id: string;
  app_id: string;
  environment: WebhookEnvironment;
  url: string;
  description: string;
  event_types: string[];
  secret_sealed: Uint8Array;
  previous_secret_sealed: Uint8Array | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const columns = `id, app_id, environment, url, description, event_types, secret_sealed, previous_secret_sealed,
  previous_secret_expires_at, failing_since, disabled_at, created_at, updated_at`;

export function createEndpointQueries(sql: SqlClient) {
  return {
    /** The app's live endpoints in the environment, oldest first; `lock` takes the app's row lock first (the limit). */
    async list(appId: string, environment: WebhookEnvironment): Promise<EndpointRow[]> {
      return sql<EndpointRow[]>`
        select ${sql.unsafe(columns)} from control.webhook_endpoints
        where app_id = ${appId} and environment = ${environment} and deleted_at is null
        order by created_at, id`;
    },
    async find(id: string, appId: string, environment: WebhookEnvironment): Promise<EndpointRow | undefined> {
      const [row] = await sql<EndpointRow[]>`
        select ${sql.unsafe(columns)} from control.webhook_endpoints
        where id = ${id} and app_id = ${appId} and environment = ${environment} and deleted_at is null`;
      return row;
    },
    async insert(row: {
      id: string;
      appId: string;
      environment: WebhookEnvironment;
      url: string;
      description: string;
      eventTypes: string[];
      secretSealed: Buffer;
      now: Date;
    }): Promise<EndpointRow> {
      const [inserted] = await sql<EndpointRow[]>`
        insert into control.webhook_endpoints (id, app_id, environment, url, description, event_types, secret_sealed, created_at, updated_at)
        values (${row.id}, ${row.appId}, ${row.environment}, ${row.url}, ${row.description}, ${row.eventTypes}::text[], ${row.secretSealed}, ${row.now}, ${row.now})
        returning ${sql.unsafe(columns)}`;
      return inserted!;
    },
    async update(
      id: string,
      change: { url?: string; description?: string; eventTypes?: string[]; enable?: boolean },
      now: Date,
    ): Promise<EndpointRow | undefined> {
      const [row] = await sql<EndpointRow[]>`
        update control.webhook_endpoints set
          url = coalesce(${change.url ?? null}::text, url),
          description = coalesce(${change.description ?? null}::text, description),
          event_types = coalesce(${change.eventTypes ?? null}::text[], event_types),
          disabled_at = case when ${change.enable === true} then null else disabled_at end,
          failing_since = case when ${change.enable === true} then null else failing_since end,
          updated_at = ${now}
        where id = ${id} and deleted_at is null
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    async softDelete(id: string, now: Date): Promise<boolean> {
      const rows =
        await sql`update control.webhook_endpoints set deleted_at = ${now}, updated_at = ${now} where id = ${id} and deleted_at is null returning id`;
      return rows.length > 0;
    },
    /** The new secret signs from now on; the current one keeps signing until `overlapUntil`. */
    async rotateSecret(
      id: string,
      sealed: Buffer,
      previousSealed: Uint8Array,
      overlapUntil: Date,
      now: Date,
    ): Promise<EndpointRow | undefined> {
      const [row] = await sql<EndpointRow[]>`
        update control.webhook_endpoints set secret_sealed = ${sealed}, previous_secret_sealed = ${Buffer.from(previousSealed)},
          previous_secret_expires_at = ${overlapUntil}, updated_at = ${now}
        where id = ${id} and deleted_at is null
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    /**
     * A failure starts a streak (or continues one; a success ends it: delivery-queries.ts, recordSucceeded); a streak as long as `disableAfterMs` disables the endpoint.
     * True when this failure disabled it.
     */
    async recordFailure(id: string, now: Date, disableBefore: Date): Promise<boolean> {
      const [row] = await sql<{ disabled: boolean }[]>`
        update control.webhook_endpoints set
          failing_since = coalesce(failing_since, ${now}),
          disabled_at = case when disabled_at is null and coalesce(failing_since, ${now}) <= ${disableBefore} then ${now} else disabled_at end
        where id = ${id}
        returning (disabled_at = ${now}) as disabled`;
      return row?.disabled === true;
    },
    /** The app of each endpoint (deleted ones too: their jobs may still be queued). */
    async appsOf(ids: readonly string[]): Promise<{ id: string; app_id: string }[]> {
      return sql<{ id: string; app_id: string }[]>`
        select id, app_id from control.webhook_endpoints where id = any(${ids as string[]})`;
    },
    /** The live endpoints of these apps, every environment (the delivery queue's apps at their bound). */
    async liveIdsOfApps(appIds: readonly string[]): Promise<string[]> {
      const rows = await sql<{ id: string }[]>`
        select id from control.webhook_endpoints where app_id = any(${appIds as string[]}) and deleted_at is null`;
      return rows.map((row) => row.id);
    },
    /** The emails of an app's organization's members (who is told that an endpoint was disabled). */
    async memberEmails(appId: string): Promise<{ email: string; app_name: string }[]> {
      return sql<{ email: string; app_name: string }[]>`
        select d.email, a.name as app_name from control.apps a
        join control.organization_members m on m.organization_id = a.organization_id
        join control.developer_accounts d on d.id = m.account_id
        where a.id = ${appId}
        order by d.email`;
    },
  };
}
