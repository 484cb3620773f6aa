// The events of one merchant that went out to an organization's sandbox endpoints: control.webhook_deliveries read
// per event (one row per event, however many endpoints received it), newest first. Runs on the `sql` given.
import type { SqlClient } from "../../storage/sql-client.js";

export interface MerchantEventRow {
  event_id: string;
  type: string;
  occurred_at: Date;
  /** The body sent (the Standard Webhooks payload, `data` naming the merchant and the resource). */
  payload: string;
  endpoints: number;
  succeeded: number;
  failed: number;
}

export function createMerchantEventQueries(sql: SqlClient) {
  return {
    /**
     * The newest `limit` events of `types` about `companyId` delivered (or being delivered) to the sandbox endpoints of
     * the organization's apps, deleted endpoints included: what went out stays what went out.
     */
    async recent(organizationId: number, companyId: number, types: readonly string[], limit: number) {
      return sql<MerchantEventRow[]>`
        select d.event_id, min(d.event_type) as type, min(d.occurred_at) as occurred_at, min(d.payload) as payload,
          count(*)::int as endpoints,
          (count(*) filter (where d.state = 'SUCCEEDED'))::int as succeeded,
          (count(*) filter (where d.state = 'FAILED'))::int as failed
        from control.webhook_deliveries d
        join control.webhook_endpoints e on e.id = d.endpoint_id
        join control.apps a on a.id = e.app_id
        where a.organization_id = ${organizationId} and e.environment = 'SANDBOX'
          and d.event_type = any(${types as string[]}::text[])
          and (d.payload::jsonb -> 'data' ->> 'companyId') = ${String(companyId)}
        group by d.event_id
        order by min(d.occurred_at) desc, d.event_id desc
        limit ${limit}`;
    },
  };
}
