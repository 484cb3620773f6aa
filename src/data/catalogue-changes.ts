// Every change of the catalogue (items with their modifier groups and availability, categories, stores) in ONE
// place, as ./order-changes.ts is for orders. A change is one transaction that (1) takes the merchant's catalogue
// stamp, locking its catalogue_feed_heads row until commit, so the merchant's catalogue changes commit in updated_at
// order and a feed reader's snapshot always holds a prefix of that order (migration 0015); (2) makes the write with
// updated_at = that stamp; (3) records its webhook events in the region's outbox, in the same transaction, so an
// event is delivered if and only if its change committed.
import type { SqlClient } from "../storage/sql-client.js";
import { recordEvent, type EventAudience, type EventType } from "../events/index.js";
import { createCategoryQueries } from "./queries/category-queries.js";
import { createItemQueries } from "./queries/item-queries.js";
import { createModifierQueries } from "./queries/modifier-queries.js";
import { createStoreQueries } from "./queries/store-queries.js";
import { regionTable } from "./queries/region-tables.js";

/** The queries a change writes with, all on its transaction. */
export interface CatalogueWriter {
  tx: SqlClient;
  items: ReturnType<typeof createItemQueries>;
  modifiers: ReturnType<typeof createModifierQueries>;
  categories: ReturnType<typeof createCategoryQueries>;
  stores: ReturnType<typeof createStoreQueries>;
}

/** An event of a change; the merchant and the time are the change's. */
export interface CatalogueEvent {
  type: Extract<EventType, `item.${string}` | `category.${string}` | `store.${string}`>;
  audience: EventAudience;
  data: Record<string, unknown>;
}

/** What a change's write answers: its result and the events it makes (none when it changed nothing). */
export interface CatalogueWrite<T> {
  result: T;
  events: CatalogueEvent[];
}

/** UTC with microseconds, as the change feed's cursor holds it (./cursor.ts, TimeKey). */
export const microsecondsUtc = '\'YYYY-MM-DD"T"HH24:MI:SS.US"Z"\'';

export type CatalogueChanges = ReturnType<typeof createCatalogueChanges>;

export function createCatalogueChanges(sql: SqlClient, schema: string) {
  return {
    /**
     * Runs `write` as one catalogue change of the company: its stamp (strictly after the merchant's previous change,
     * even when the clock stands still or steps back; a first change starts after the newest item, category or
     * store, seeded ones included), the write, and its events, committed together or not at all.
     */
    change<T>(
      companyId: number,
      now: Date,
      write: (writer: CatalogueWriter, stamp: string) => Promise<CatalogueWrite<T>>,
    ) {
      return (sql as { begin: <R>(run: (tx: SqlClient) => Promise<R>) => Promise<R> }).begin((tx) =>
        changeWithin(tx, schema, companyId, now, write),
      );
    },
  };
}

/**
 * One catalogue change inside a transaction the caller holds (`tx`): the stamp, the write and its events, as
 * `change` does in a transaction of its own. For a caller whose change is part of a larger transaction (the sandbox
 * menu autopilot claims its stores and turns them in one).
 */
export async function changeWithin<T>(
  tx: SqlClient,
  schema: string,
  companyId: number,
  now: Date,
  write: (writer: CatalogueWriter, stamp: string) => Promise<CatalogueWrite<T>>,
): Promise<T> {
  const heads = regionTable(tx, schema, "catalogue_feed_heads");
  const table = (name: string) => regionTable(tx, schema, name);
  const [head] = await tx<{ stamp: string }[]>`
          insert into ${heads} as head (company_id, last_changed_at)
          values (${companyId}, greatest(${now.toISOString()}::text::timestamptz,
            (select max(t) + interval '1 microsecond' from (
              select max(updated_at) as t from ${table("items")} where company_id = ${companyId}
              union all select max(updated_at) from ${table("categories")} where company_id = ${companyId}
              union all select max(updated_at) from ${table("stores")} where company_id = ${companyId}) as latest)))
          on conflict (company_id) do update
            set last_changed_at = greatest(excluded.last_changed_at, head.last_changed_at + interval '1 microsecond')
          returning to_char(last_changed_at at time zone 'UTC', ${tx.unsafe(microsecondsUtc)}) as stamp`;
  const writer: CatalogueWriter = {
    tx,
    items: createItemQueries(tx, schema),
    modifiers: createModifierQueries(tx, schema),
    categories: createCategoryQueries(tx, schema),
    stores: createStoreQueries(tx, schema),
  };
  const { result, events } = await write(writer, head!.stamp);
  for (const event of events)
    await recordEvent(tx, { ...event, companyId, data: { companyId, ...event.data }, occurredAt: now }, schema);
  return result;
}
