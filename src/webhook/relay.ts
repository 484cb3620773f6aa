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
import type { Database, Listening } from "../storage/postgres.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { DeliveryQueue } from "./delivery-queue.js";
import { eventBody } from "../events/index.js";
import { createDeliveryQueries, type NewDelivery, type OutboxRow } from "./queries/delivery-queries.js";

/** An outbox to relay: a schema in a database. */
export interface OutboxSource {
  schema: string;
  sql: postgres.Sql;
  /** The database's LISTEN: an insert into the outbox notifies `outboxChannel` with the schema at commit. */
  listen?: Database["listen"];
}

/**
 * The longest a LISTEN (or a re-LISTEN) may hold the relay, and the longest a stop waits for a pass in flight: a
 * database that stops answering must not stop the relay's passes, nor the process's shutdown (a pass left behind
 * keeps its lease, which lapses, and another relay repeats it: at least once).
 */
const waitBoundMs = 5_000;

/** Resolves with the promise's outcome, or undefined after `ms`; a rejection is the caller's to catch. */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The channel the outboxes' trigger notifies (migrations 0010_webhook_outbox_notify.sql). */
export const outboxChannel = "webhook_outbox";

/** How long a relay holds the rows it took before another may take them. */
export const relayLeaseSeconds = 30;
/** Rows taken at once. */
const batchSize = 200;

/** The products whose bundle has `scope`. */
const productsWith = (scope: string): readonly Product[] =>
  (["FULL", "ONLINE_ORDER", "ADSR"] as const).filter((product) => scopesForProduct(product).includes(scope));

/**
 * Who may receive a merchant's event, by the scope that reads its resource: orders (orders.read), the catalogue's
 * items and categories (items.read) and stores (stores.read).
 */
const audienceProducts = {
  orders: productsWith("orders.read"),
  items: productsWith("items.read"),
  stores: productsWith("stores.read"),
};

/** The products whose apps receive an event of `type`, when its audience is a merchant's store or the merchant. */
function productsFor(type: string): readonly Product[] {
  if (type.startsWith("item.") || type.startsWith("category.")) return audienceProducts.items;
  if (type.startsWith("store.")) return audienceProducts.stores;
  return audienceProducts.orders;
}

export function newDeliveryId(): string {
  return `dlv_${randomBytes(12).toString("base64url")}`;
}

export interface Relay {
  /** Relays everything committed so far in every source; the number of events relayed. */
  drain(): Promise<number>;
  /**
   * Relays each outbox when its database notifies a commit (LISTEN), and every source every `pollMs` besides, for
   * what a notification lost while a listening connection was down did not announce.
   */
  start(pollMs: number): Promise<void>;
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
    let enqueued = 0;
    await deps.control.begin(async (tx: SqlClient) => {
      const deliveries = createDeliveryQueries(tx);
      const planned: NewDelivery[] = [];
      for (const row of rows) planned.push(...(await fanOut(tx, row)));
      // One insert for every delivery of the batch and one for their first attempts (issue 43: a statement per
      // delivery and one per job were most of a delivery's database time).
      const added = await deliveries.insertMany(planned, now);
      if (added.length > 0)
        await deps.queue.enqueue(
          tx,
          added.map((delivery) => ({ job: { deliveryId: delivery.id, attempt: 1 }, endpointId: delivery.endpoint_id })),
        );
      enqueued = added.length;
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
    deps.queue.wake(enqueued);
    return rows.length;
  };

  /** The deliveries of the event: one to each endpoint that may see it. */
  const fanOut = async (tx: SqlClient, row: OutboxRow): Promise<NewDelivery[]> => {
    const endpoints = await createDeliveryQueries(tx).audience(row, productsFor(row.type));
    const payload = eventBody(row.type, row.occurred_at, row.data);
    return endpoints.map((endpoint) => ({
      id: newDeliveryId(),
      endpointId: endpoint.id,
      eventId: row.event_id,
      eventType: row.type,
      payload,
      occurredAt: row.occurred_at,
      traceparent: row.traceparent,
    }));
  };

  const drain = async () => {
    let total = 0;
    for (const source of deps.sources) {
      for (let relayed = await relayBatch(source); relayed > 0; relayed = await relayBatch(source)) total += relayed;
    }
    return total;
  };

  // One pass at a time: what is asked while a pass runs (a notified schema, the poll's "every source") is relayed by
  // the next one, so a burst of notifications costs one pass per outbox, not one per event.
  const notified = new Set<string>();
  let pollDue = false;
  let running: Promise<void> | undefined;
  let stopped = false;
  const listenings = new Map<OutboxSource["listen"], Listening>();
  const pass = async () => {
    while (!stopped && (pollDue || notified.size > 0)) {
      const polling = pollDue;
      const schemas = new Set(notified);
      pollDue = false;
      notified.clear();
      for (const source of deps.sources) {
        if (!polling && !schemas.has(source.schema)) continue;
        let relayed = 0;
        for (let batch = await relayBatch(source); batch > 0; batch = await relayBatch(source)) relayed += batch;
        // The poll found events no notification announced: that database's LISTEN may have been lost (its
        // connection dropped while the server was away); listen again.
        const listening = listenings.get(source.listen);
        if (polling && relayed > 0 && !schemas.has(source.schema) && listening)
          await bounded(listening.rearm(), waitBoundMs).catch((error: unknown) =>
            deps.logger.warn("webhook relay cannot LISTEN again; polling", { schema: source.schema, error }),
          );
      }
    }
  };
  const run = () => {
    running ??= pass()
      .catch((error: unknown) => deps.logger.warn("webhook relay failed; retrying", { error }))
      .finally(() => {
        running = undefined;
        if (!stopped && (pollDue || notified.size > 0)) run();
      });
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    drain,
    async start(pollMs) {
      for (const source of deps.sources) {
        if (!source.listen || listenings.has(source.listen)) continue;
        const listen = source.listen;
        const listening = listen(outboxChannel, (schema) => {
          notified.add(schema);
          run();
        }).then(
          (handle) => {
            listenings.set(listen, handle);
            return handle;
          },
          (error: unknown) => {
            deps.logger.warn("webhook relay cannot LISTEN; polling only", { schema: source.schema, error });
            return undefined;
          },
        );
        // A database that does not answer at start: polling begins anyway, the LISTEN joins when it is in place.
        await bounded(listening, waitBoundMs);
      }
      const tick = () => {
        pollDue = true;
        run();
        if (!stopped) timer = setTimeout(tick, pollMs);
      };
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await bounded(running ?? Promise.resolve(), waitBoundMs);
    },
  };
}
