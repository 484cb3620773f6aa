// Queries of control.grants (an app's access to one merchant, the automatic sandbox grants included). Revoking a
// grant ends every refresh family under it without writing them: a family's token is live only while its grant is
// (src/token/queries/refresh-queries.ts joins the grant), so the token owner's rows stay written by it alone.
// Every function runs on the `sql` given (pool or transaction); those that make or end a grant record its event
// (grant.created, grant.revoked) on the same `sql`, so they belong inside a transaction.
import type { SqlClient } from "../../storage/sql-client.js";
import type { App, Merchant } from "../../credential/index.js";
import { recordGrantEvent } from "../grant-events.js";

export type GrantEnvironment = "SANDBOX" | "PRODUCTION";

export interface GrantRow {
  id: number;
  app_id: string;
  company_id: number;
  environment: GrantEnvironment;
  created_at: Date;
  revoked_at: Date | null;
}

/** A live grant as the connected-apps page shows it. */
export interface ConnectionRow extends GrantRow {
  app_name: string;
  organization_name: string;
  product: App["product"];
}

/** The grant queries over `sql` (the pool, or a transaction's `sql`). */
export function createGrantQueries(sql: SqlClient) {
  return {
    /** The live grant of the app for the company, made now if there is none; its id. */
    async ensureLive(appId: string, companyId: number, environment: GrantEnvironment, now: Date): Promise<number> {
      const [inserted] = await sql<{ id: number }[]>`
        insert into control.grants (app_id, company_id, environment, created_at)
        values (${appId}, ${companyId}, ${environment}, ${now})
        on conflict (app_id, company_id) where revoked_at is null do nothing
        returning id`;
      if (inserted) {
        await recordGrantEvent(
          sql,
          { id: inserted.id, appId, companyId, environment, createdAt: now, revokedAt: null },
          "merchant_connected",
          now,
        );
        return inserted.id;
      }
      const [live] = await sql<{ id: number }[]>`
        select id from control.grants where app_id = ${appId} and company_id = ${companyId} and revoked_at is null`;
      if (!live) throw new Error("grant vanished between insert and select");
      return live.id;
    },
    async find(id: number): Promise<GrantRow | undefined> {
      const [row] = await sql<GrantRow[]>`
        select id, app_id, company_id, environment, created_at, revoked_at from control.grants where id = ${id}`;
      return row;
    },
    /** The live grant of an app for a company (what partner calls check). */
    async findLive(appId: string, companyId: number): Promise<GrantRow | undefined> {
      const [row] = await sql<GrantRow[]>`
        select id, app_id, company_id, environment, created_at, revoked_at from control.grants
        where app_id = ${appId} and company_id = ${companyId} and revoked_at is null`;
      return row;
    },
    /**
     * A merchant and whether the app holds a live grant for it, in one read: what a sandbox mint checks
     * (src/token/sandbox-tokens.ts) on every call, one round trip instead of two.
     */
    async merchantForApp(companyId: number, appId: string): Promise<(Merchant & { granted: boolean }) | undefined> {
      const [row] = await sql<(Merchant & { granted: boolean })[]>`
        select m.company_id, m.name, m.region, m.demo, m.active, m.provisioned, m.sandbox_organization_id, m.country,
               exists (select 1 from control.grants g where g.app_id = ${appId} and g.company_id = m.company_id and g.revoked_at is null) as granted
        from control.merchants m where m.company_id = ${companyId}`;
      return row;
    },
    /** The live grants of a company with the app's name, organization and product, oldest first. */
    async liveForCompany(companyId: number): Promise<ConnectionRow[]> {
      return sql<ConnectionRow[]>`
        select g.id, g.app_id, g.company_id, g.environment, g.created_at, g.revoked_at,
               a.name as app_name, o.name as organization_name, a.product
        from control.grants g
        join control.apps a on a.id = g.app_id
        join control.organizations o on o.id = a.organization_id
        where g.company_id = ${companyId} and g.revoked_at is null
        order by g.created_at, g.id`;
    },
    /** Revokes the app's live grant for the company, for good. True when a live grant was revoked. */
    async revokeLive(appId: string, companyId: number, now: Date): Promise<boolean> {
      const revoked = await sql<GrantRow[]>`
        update control.grants set revoked_at = ${now}
        where app_id = ${appId} and company_id = ${companyId} and revoked_at is null
        returning id, app_id, company_id, environment, created_at, revoked_at`;
      for (const row of revoked) await recordGrantEvent(sql, grantOf(row), "merchant_disconnected", now);
      return revoked.length > 0;
    },
    /** Revokes one grant (if live). True when it was live. */
    async revoke(grantId: number, now: Date): Promise<boolean> {
      const revoked = await sql<GrantRow[]>`
        update control.grants set revoked_at = ${now} where id = ${grantId} and revoked_at is null
        returning id, app_id, company_id, environment, created_at, revoked_at`;
      for (const row of revoked) await recordGrantEvent(sql, grantOf(row), "app_revoked", now);
      return revoked.length > 0;
    },
    /** Grants one app every active sandbox merchant of its organization (spec: granted automatically). */
    async grantSandboxMerchantsToApp(appId: string, organizationId: number, now: Date): Promise<void> {
      await sql`
        insert into control.grants (app_id, company_id, environment, created_at)
        select ${appId}, m.company_id, 'SANDBOX', ${now} from control.merchants m
        where m.sandbox_organization_id = ${organizationId} and m.demo and m.active
        on conflict (app_id, company_id) where revoked_at is null do nothing`;
    },
    /** Grants every live app of the organization one new sandbox merchant. */
    async grantSandboxAppsToMerchant(companyId: number, organizationId: number, now: Date): Promise<void> {
      await sql`
        insert into control.grants (app_id, company_id, environment, created_at)
        select a.id, ${companyId}, 'SANDBOX', ${now} from control.apps a
        where a.organization_id = ${organizationId} and a.state <> 'ARCHIVED'
        on conflict (app_id, company_id) where revoked_at is null do nothing`;
    },
  };
}

function grantOf(row: GrantRow) {
  return {
    id: row.id,
    appId: row.app_id,
    companyId: row.company_id,
    environment: row.environment,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
