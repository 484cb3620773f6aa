// Queries of control.apps and control.redirect_uris. Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";
import type { AppLinkField } from "../app-links.js";

export interface AppRow {
  id: string;
  organization_id: number;
  name: string;
  product: "FULL" | "ONLINE_ORDER" | "ADSR";
  state: "DRAFT" | "IN_REVIEW" | "APPROVED" | "REJECTED" | "ARCHIVED";
  /** A rename of an APPROVED app waiting for review; null when none. */
  pending_name: string | null;
  /** The app's public pages (../app-links.ts); null when not given. */
  website_url: string | null;
  privacy_policy_url: string | null;
  terms_url: string | null;
  /** RFC 9126 section 6: the app's authorization requests must be pushed first. */
  require_pushed_authorization_requests: boolean;
  /** Every token of the app must be DPoP-bound (RFC 9449). */
  require_dpop: boolean;
}

const columns =
  "id, organization_id, name, product, state, pending_name, website_url, privacy_policy_url, terms_url, " +
  "require_pushed_authorization_requests, require_dpop";

/** The app queries over `sql` (the pool, or a transaction's `sql`). */
export function createAppQueries(sql: SqlClient) {
  return {
    async insert(
      app: Omit<AppRow, "state" | "pending_name" | "require_pushed_authorization_requests" | "require_dpop">,
      now: Date,
    ): Promise<AppRow> {
      const [row] = await sql<AppRow[]>`
        insert into control.apps (id, organization_id, name, product, state, website_url, privacy_policy_url,
                                  terms_url, created_at, updated_at)
        values (${app.id}, ${app.organization_id}, ${app.name}, ${app.product}, 'DRAFT', ${app.website_url},
                ${app.privacy_policy_url}, ${app.terms_url}, ${now}, ${now})
        returning ${sql.unsafe(columns)}`;
      return row!;
    },
    async find(id: string): Promise<AppRow | undefined> {
      const [row] = await sql<AppRow[]>`
        select ${sql.unsafe(columns)} from control.apps where id = ${id}`;
      return row;
    },
    /** Locks the app's row until the transaction ends: state changes and per-app counts (API keys) serialise here. */
    /** The ids of an organization's apps, oldest first. */
    async idsOfOrganization(organizationId: number): Promise<string[]> {
      const rows = await sql<{ id: string }[]>`
        select id from control.apps where organization_id = ${organizationId} order by created_at, id`;
      return rows.map((row) => row.id);
    },
    async lock(id: string): Promise<AppRow | undefined> {
      const [row] = await sql<AppRow[]>`
        select ${sql.unsafe(columns)} from control.apps where id = ${id} for update`;
      return row;
    },
    /** Sets the name merchants see, and ends any pending one. */
    async rename(id: string, name: string, now: Date): Promise<void> {
      await sql`update control.apps set name = ${name}, pending_name = null, updated_at = ${now} where id = ${id}`;
    },
    /** Keeps (or with null, drops) a rename of an APPROVED app until its review. */
    async setPendingName(id: string, pendingName: string | null, now: Date): Promise<void> {
      await sql`update control.apps set pending_name = ${pendingName}, updated_at = ${now} where id = ${id}`;
    },
    /** Turns "require pushed authorization requests" on or off. */
    async setRequirePushedRequests(id: string, required: boolean, now: Date): Promise<void> {
      await sql`
        update control.apps set require_pushed_authorization_requests = ${required}, updated_at = ${now}
        where id = ${id}`;
    },
    /** Sets the links given (a null removes one); the others are kept. */
    async setRequireDpop(id: string, requireDpop: boolean, now: Date): Promise<void> {
      await sql`update control.apps set require_dpop = ${requireDpop}, updated_at = ${now} where id = ${id}`;
    },
    async setLinks(id: string, links: Partial<Pick<AppRow, AppLinkField>>, now: Date): Promise<void> {
      const website = "website_url" in links;
      const privacy = "privacy_policy_url" in links;
      const terms = "terms_url" in links;
      await sql`update control.apps set
                  website_url = case when ${website} then ${links.website_url ?? null}::text else website_url end,
                  privacy_policy_url = case when ${privacy} then ${links.privacy_policy_url ?? null}::text
                                       else privacy_policy_url end,
                  terms_url = case when ${terms} then ${links.terms_url ?? null}::text else terms_url end,
                  updated_at = ${now}
                where id = ${id}`;
    },
    /** Moves the app to `state`; a pending name ends with it (only an APPROVED app has one, and it leaves only to ARCHIVED). */
    async setState(id: string, state: AppRow["state"], now: Date): Promise<void> {
      await sql`update control.apps set state = ${state}, pending_name = null, updated_at = ${now} where id = ${id}`;
    },
    async redirectUris(appId: string): Promise<string[]> {
      const rows = await sql<{ uri: string }[]>`
        select uri from control.redirect_uris where app_id = ${appId} order by created_at, uri`;
      return rows.map((row) => row.uri);
    },
    /** Replaces the app's redirect URIs; call inside a transaction that holds the app's lock. */
    async replaceRedirectUris(appId: string, uris: readonly string[], now: Date): Promise<void> {
      await sql`delete from control.redirect_uris where app_id = ${appId}`;
      // One row at a time keeps the given order in created_at (one microsecond apart).
      for (const [index, uri] of uris.entries()) {
        await sql`insert into control.redirect_uris (app_id, uri, created_at)
                  values (${appId}, ${uri}, ${new Date(now.getTime())}::timestamptz + ${index} * interval '1 microsecond')`;
      }
    },
  };
}
