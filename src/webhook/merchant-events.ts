// What the console's sandbox menu page shows of the events that went out: a merchant's events as its organization's
// sandbox endpoints received them (the delivery records: the outbox row is gone once relayed), each with the resource
// it is about and how its deliveries stand. docs/decisions.md, "Console site", "The sandbox menu page".
import type { SqlClient } from "../storage/sql-client.js";
import { createMerchantEventQueries } from "./queries/merchant-event-queries.js";

/** The resource an event is about, as its payload names it. */
export interface EventResource {
  kind: "item" | "store" | "category";
  id: string;
  name: string;
}

export interface MerchantEvent {
  eventId: string;
  type: string;
  occurredAt: Date;
  /** Absent when the payload names none of the catalogue's resources. */
  resource?: EventResource;
  /** The store an availability change is about (item.updated with `storeId`). */
  storeId?: string;
  /** Endpoints it went to, and how many of those deliveries succeeded or failed for good (the rest are pending). */
  endpoints: number;
  succeeded: number;
  failed: number;
}

function resourceOf(data: Record<string, unknown>): EventResource | undefined {
  for (const kind of ["item", "store", "category"] as const) {
    const value = data[kind];
    if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      return { kind, id: String(record["id"] ?? ""), name: typeof record["name"] === "string" ? record["name"] : "" };
    }
  }
  return undefined;
}

/** The newest `limit` events of `types` about the merchant that went out to the organization's sandbox endpoints. */
export async function recentMerchantEvents(
  sql: SqlClient,
  query: { organizationId: number; companyId: number; types: readonly string[]; limit: number },
): Promise<MerchantEvent[]> {
  const rows = await createMerchantEventQueries(sql).recent(
    query.organizationId,
    query.companyId,
    query.types,
    query.limit,
  );
  return rows.map((row) => {
    const data = ((JSON.parse(row.payload) as { data?: unknown }).data ?? {}) as Record<string, unknown>;
    const resource = resourceOf(data);
    const storeId = data["storeId"];
    return {
      eventId: row.event_id,
      type: row.type,
      occurredAt: row.occurred_at,
      ...(resource ? { resource } : {}),
      ...(storeId === undefined || storeId === null ? {} : { storeId: String(storeId) }),
      endpoints: row.endpoints,
      succeeded: row.succeeded,
      failed: row.failed,
    };
  });
}
