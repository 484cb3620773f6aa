// Queries of control.access_requests (ADSR: an app asks a merchant for stores; the owner approves, possibly fewer,
// or declines; an approval can be withdrawn; a pending one expires). Every function runs on the `sql` given (pool
// or transaction). Expiry is evaluated against the caller's clock: a PENDING row past expires_at reads as EXPIRED
// (effectiveState), and writes that need the (app, company) slot first mark such rows EXPIRED (expireStale).
import type { SqlClient } from "../../storage/sql-client.js";

export type AccessRequestState = "PENDING" | "APPROVED" | "DECLINED" | "WITHDRAWN" | "EXPIRED";

export interface AccessRequestRow {
  id: number;
  app_id: string;
  company_id: number;
  store_ids: number[];
  approved_store_ids: number[] | null;
  state: AccessRequestState;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by_user_id: number | null;
  withdrawn_at: Date | null;
  withdrawn_by_user_id: number | null;
}

/** A request as the consent site lists it: with the app's name, organization and product. */
export interface AccessRequestListRow extends AccessRequestRow {
  app_name: string;
  /** The app's pages for merchants (null: not given), shown beside the request on the consent site. */
  website_url: string | null;
  privacy_policy_url: string | null;
  terms_url: string | null;
  organization_name: string;
  product: string;
  /** The app's review state (APPROVED: reviewed by staff, as the consent screen marks it). */
  app_state: string;
}

const columns = `r.id, r.app_id, r.company_id, r.store_ids, r.approved_store_ids, r.state, r.created_at, r.expires_at,
  r.decided_at, r.decided_by_user_id, r.withdrawn_at, r.withdrawn_by_user_id`;

/** The state a row has at `now`: a pending request past its expiry is expired, whatever the row still says. */
export function effectiveState(row: Pick<AccessRequestRow, "state" | "expires_at">, now: Date): AccessRequestState {
  return row.state === "PENDING" && row.expires_at.getTime() <= now.getTime() ? "EXPIRED" : row.state;
}

/** The access-request queries over `sql` (the pool, or a transaction's `sql`). */
export function createAccessRequestQueries(sql: SqlClient) {
  return {
    /** Marks the app's pending requests to the company that are past expiry as EXPIRED (frees the open slot). */
    async expireStale(appId: string, companyId: number, now: Date): Promise<AccessRequestRow[]> {
      return sql<AccessRequestRow[]>`
        update control.access_requests r set state = 'EXPIRED'
        where app_id = ${appId} and company_id = ${companyId} and state = 'PENDING' and expires_at <= ${now}
        returning ${sql.unsafe(columns)}`;
    },
    /** Marks up to `limit` pending requests past expiry as EXPIRED (the sweeper that sends access_request.expired). */
    async expireDue(now: Date, limit: number): Promise<AccessRequestRow[]> {
      return sql<AccessRequestRow[]>`
        update control.access_requests r set state = 'EXPIRED'
        where r.id in (select id from control.access_requests where state = 'PENDING' and expires_at <= ${now}
                       order by expires_at limit ${limit} for update skip locked)
        returning ${sql.unsafe(columns)}`;
    },
    /**
     * Inserts a pending request; undefined when the app already has a pending or approved one for the company
     * (the unique index access_requests__app_id_company_id__open_key decides, also under parallel inserts).
     */
    async insert(request: {
      appId: string;
      companyId: number;
      storeIds: number[];
      now: Date;
      expiresAt: Date;
    }): Promise<AccessRequestRow | undefined> {
      const rows = await sql<AccessRequestRow[]>`
        insert into control.access_requests as r (app_id, company_id, store_ids, state, created_at, expires_at)
        values (${request.appId}, ${request.companyId}, ${request.storeIds}::bigint[], 'PENDING', ${request.now}, ${request.expiresAt})
        on conflict (app_id, company_id) where state in ('PENDING', 'APPROVED') do nothing
        returning ${sql.unsafe(columns)}`;
      return rows[0];
    },
    async find(id: number, options: { lock?: boolean } = {}): Promise<AccessRequestRow | undefined> {
      const [row] = options.lock
        ? await sql<
            AccessRequestRow[]
          >`select ${sql.unsafe(columns)} from control.access_requests r where r.id = ${id} for update`
        : await sql<
            AccessRequestRow[]
          >`select ${sql.unsafe(columns)} from control.access_requests r where r.id = ${id}`;
      return row;
    },
    /** The app's open (pending or approved) request for the company, if any; the caller applies effectiveState. */
    async findOpen(appId: string, companyId: number): Promise<AccessRequestRow | undefined> {
      const [row] = await sql<AccessRequestRow[]>`
        select ${sql.unsafe(columns)} from control.access_requests r
        where r.app_id = ${appId} and r.company_id = ${companyId} and r.state in ('PENDING', 'APPROVED')`;
      return row;
    },
    /** A company's requests with the app's names, newest first. */
    async listForCompany(companyId: number): Promise<AccessRequestListRow[]> {
      return sql<AccessRequestListRow[]>`
        select ${sql.unsafe(columns)}, a.name as app_name, o.name as organization_name, a.product,
          a.state as app_state, a.website_url, a.privacy_policy_url, a.terms_url
        from control.access_requests r
        join control.apps a on a.id = r.app_id
        join control.organizations o on o.id = a.organization_id
        where r.company_id = ${companyId}
        order by r.created_at desc, r.id desc`;
    },
    /** An app's requests, newest first. */
    async listForApp(appId: string): Promise<AccessRequestRow[]> {
      return sql<AccessRequestRow[]>`
        select ${sql.unsafe(columns)} from control.access_requests r where r.app_id = ${appId}
        order by r.created_at desc, r.id desc`;
    },
    /** Approves a request that is pending and unexpired at `now`; the updated row, or undefined when it was not. */
    async approve(id: number, storeIds: number[], userId: number, now: Date): Promise<AccessRequestRow | undefined> {
      const [row] = await sql<AccessRequestRow[]>`
        update control.access_requests r
        set state = 'APPROVED', approved_store_ids = ${storeIds}::bigint[], decided_at = ${now}, decided_by_user_id = ${userId}
        where r.id = ${id} and r.state = 'PENDING' and r.expires_at > ${now}
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    async decline(id: number, userId: number, now: Date): Promise<AccessRequestRow | undefined> {
      const [row] = await sql<AccessRequestRow[]>`
        update control.access_requests r
        set state = 'DECLINED', decided_at = ${now}, decided_by_user_id = ${userId}
        where r.id = ${id} and r.state = 'PENDING' and r.expires_at > ${now}
        returning ${sql.unsafe(columns)}`;
      return row;
    },
    async withdraw(id: number, userId: number, now: Date): Promise<AccessRequestRow | undefined> {
      const [row] = await sql<AccessRequestRow[]>`
        update control.access_requests r
        set state = 'WITHDRAWN', withdrawn_at = ${now}, withdrawn_by_user_id = ${userId}
        where r.id = ${id} and r.state = 'APPROVED'
        returning ${sql.unsafe(columns)}`;
      return row;
    },
  };
}
