// The relay wakes on a commit's notification (src/webhook/relay.ts, LISTEN webhook_outbox; the outboxes' trigger in
// migrations 0010_webhook_outbox_notify.sql), on the embedded PGlite and on a real server (TEST_DATABASE_URL): with
// its poll an hour away, an event committed in a region's outbox is still relayed, and a rolled-back one never
// notifies. Database.listen's rearm LISTENs again after the LISTEN was lost.
import * as assert from "uvu/assert";
import { controlSchema, regionSchema } from "../../src/storage/schemas.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import type { DeliveryQueue } from "../../src/webhook/delivery-queue.js";
import { createRelay, outboxChannel, type Relay } from "../../src/webhook/relay.js";
import { useTestDatabase } from "../support/storage.js";
import { suite } from "../support/suite.js";

const Notify = suite("webhook/relay-notify");
const database = useTestDatabase(Notify);
const clock = createManualClock(Date.UTC(2026, 10, 26, 12));
const hour = 3_600_000;
const region = regionSchema("us");
let serial = 0;

/** The queue the relay would enqueue on: no endpoint listens in these tests, so the relay only counts wakes. */
function countingQueue(): DeliveryQueue & { wakes: number[] } {
  const wakes: number[] = [];
  return {
    wakes,
    enqueue: () => Promise.reject(new Error("no endpoint: nothing to enqueue")),
    work: () => Promise.reject(new Error("not working")),
    wake: (jobs) => void wakes.push(jobs),
    stop: () => Promise.resolve(),
  };
}

const eventId = () => `evt_relay_notify_${process.pid}_${++serial}`;
const insertEvent = (id: string) =>
  database().sql.unsafe(
    `insert into ${region}.webhook_outbox (event_id, type, data, occurred_at) values ($1, 'online_order.created', '{}', now())`,
    [id],
  );
const inOutbox = async (id: string) =>
  (await database().sql.unsafe(`select 1 from ${region}.webhook_outbox where event_id = $1`, [id])).length > 0;

/** Resolves once `id` has left the outbox (the suite's timeout bounds the wait). */
async function relayed(id: string): Promise<void> {
  while (await inOutbox(id)) await new Promise((resolve) => setTimeout(resolve, 20));
}

Notify("a committed event is relayed on its notification, the poll an hour away", async () => {
  const db = database();
  const queue = countingQueue();
  const relay: Relay = createRelay({
    control: db.sql,
    sources: [
      { schema: controlSchema, sql: db.sql, listen: db.listen },
      { schema: region, sql: db.sql, listen: db.listen },
    ],
    queue,
    clock,
    logger: silentLogger,
  });
  await relay.start(hour); // its first poll runs now; the next in an hour
  try {
    await relay.drain();
    const id = eventId();
    await insertEvent(id);
    await relayed(id);
    // The row is gone once the pass's commit is visible; its wake follows when the relay reads that commit's answer,
    // which another connection's read may overtake (CI saw it once): give it a moment, bounded.
    for (let tries = 0; tries < 100 && queue.wakes.length === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(queue.wakes.length > 0, "the relay's pass ran and woke for what it enqueued (nothing here)");
    assert.equal(queue.wakes.at(-1), 0);
  } finally {
    await relay.stop();
  }
});

Notify("a rolled-back insert notifies nobody; a committed one notifies its schema once per statement", async () => {
  const db = database();
  const heard: string[] = [];
  await db.listen(outboxChannel, (schema) => heard.push(schema));
  await db.sql
    .begin(async (tx) => {
      await tx.unsafe(
        `insert into ${region}.webhook_outbox (event_id, type, data, occurred_at) values ($1, 'online_order.created', '{}', now())`,
        [eventId()],
      );
      throw new Error("roll back");
    })
    .catch(() => {});
  const committed = eventId();
  await insertEvent(committed);
  while (!heard.includes(region)) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(heard, [region], "one notification: the committed statement's, none for the rolled-back one");
  await db.sql.unsafe(`delete from ${region}.webhook_outbox where event_id = $1`, [committed]);
});

Notify("rearm LISTENs again after the LISTEN was lost", async () => {
  const db = database();
  const heard: string[] = [];
  const listening = await db.listen("relay_notify_rearm", (payload) => heard.push(payload));
  if (db.embedded) await db.sql`unlisten relay_notify_rearm`;
  await listening.rearm();
  await db.sql`select pg_notify('relay_notify_rearm', 'after rearm')`;
  while (!heard.includes("after rearm")) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(heard, ["after rearm"]);
});

Notify.run();
