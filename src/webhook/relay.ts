// The outbox relay: takes committed events from each database's outbox (the control database's, each region's),
// fans each one out to the endpoints that may see it as deliveries, enqueues each delivery's first attempt in the
// same control transaction, and then deletes the outbox rows. A relay that dies mid-way leaves its rows leased;
// once the lease lapses another relay repeats the fan-out, which adds nothing already there (one delivery per
// event and endpoint), so every committed event is delivered once to each endpoint in the normal case.
import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { scopesForProduct, type Product } from "../credential/index.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { DeliveryQueue } from "./delivery-queue.js";
import { eventBody } from "../events/index.js";
import { createDeliveryQueries, type OutboxRow } from "./queries/delivery-queries.js";

/** An outbox to relay: a schema in a database. */
export interface OutboxSource {
  schema: string;
  sql: postgres.Sql;
}

/** How long a relay holds the rows it took before another may take them. */
export const relayLeaseSeconds = 30;
/** Rows taken at once. */
const batchSize = 200;

/** The products whose apps may read orders (their bundle has orders.read): who may receive order events. */
const orderProducts: readonly Product[] = (["FULL", "ONLINE_ORDER", "ADSR"] as const).filter((product) =>
  scopesForProduct(product).includes("orders.read"),
);

export function newDeliveryId(): string {
  return `dlv_${randomBytes(12).toString("base64url")}`;
}

export interface Relay {
  /** Relays everything committed so far in every source; the number of events relayed. */
  drain(): Promise<number>;
  /** Relays every `intervalMs` until stopped. */
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createRelay(deps: {
  control: postgres.Sql;
  sources: readonly OutboxSource[];
  queue: DeliveryQueue;
  clock: Clock;
  logger: Logger;
}): Relay {
  const relayBatch = async (source: OutboxSource): Promise<number> => {
    const now = new Date(deps.clock.now());
    const rows = await createDeliveryQueries(source.sql).leaseOutbox(source.schema, now, relayLeaseSeconds, batchSize);
    if (rows.length === 0) return 0;
    const sameDatabase = source.sql === deps.control;
    await deps.control.begin(async (tx: SqlClient) => {
      const deliveries = createDeliveryQueries(tx);
      for (const row of rows) await fanOut(tx, row, now);
      // In the control database the rows go in the same transaction as their deliveries: relayed exactly once.
      if (sameDatabase)
        await deliveries.deleteOutbox(
          source.schema,
          rows.map((row) => row.id),
        );
    });
    if (!sameDatabase)
      await createDeliveryQueries(source.sql).deleteOutbox(
        source.schema,
        rows.map((row) => row.id),
      );
    deps.queue.wake();
    return rows.length;
  };

  const fanOut = async (tx: SqlClient, row: OutboxRow, now: Date) => {
    const deliveries = createDeliveryQueries(tx);
    const endpoints = await deliveries.audience(row, orderProducts);
    if (endpoints.length === 0) return;
    const payload = eventBody(row.type, row.occurred_at, row.data);
    for (const endpoint of endpoints) {
      const id = newDeliveryId();
      const added = await deliveries.insert({
        id,
        endpointId: endpoint.id,
        eventId: row.event_id,
        eventType: row.type,
        payload,
        occurredAt: row.occurred_at,
        now,
      });
      if (added) await deps.queue.enqueue(tx, { deliveryId: id, attempt: 1 }, endpoint.id);
    }
  };

  const drain = async () => {
    let total = 0;
    for (const source of deps.sources) {
      for (let relayed = await relayBatch(source); relayed > 0; relayed = await relayBatch(source)) total += relayed;
    }
    return total;
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  return {
    drain,
    start(intervalMs) {
      const tick = () => {
        running = drain()
          .catch((error: unknown) => deps.logger.warn("webhook relay failed; retrying", { error }))
          .finally(() => {
            if (!stopped) timer = setTimeout(tick, intervalMs);
          });
      };
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
