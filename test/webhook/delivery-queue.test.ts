// The delivery queue (src/webhook/delivery-queue.ts) on a PostgreSQL server: processes that start together on a
// database where pg-boss is not yet installed all start (one installs it, the others find it installed), and a job
// sent through one is worked by the other.
import postgres from "postgres";
import * as assert from "uvu/assert";
import { silentLogger } from "../../src/runtime/logger.js";
import { systemClock } from "../../src/runtime/clock.js";
import { startDeliveryQueue, type AttemptJob, type DeliveryQueue } from "../../src/webhook/delivery-queue.js";
import { startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import { dropDatabase, freshDatabaseUrl } from "../support/storage.js";
import { suite } from "../support/suite.js";

const Queue = suite("webhook/delivery-queue");

Queue("four processes' queues starting at once on an empty database all start, and share one queue", async () => {
  // The machine's server when the run has one, else a server of the test's own: the race needs separate sessions.
  const shared = await freshDatabaseUrl();
  const server: PrivatePostgres | undefined = shared ? undefined : await startPrivatePostgres();
  const url = shared ?? server!.url;
  const pools = Array.from({ length: 4 }, () => postgres(url, { max: 3, onnotice: () => {} }));
  const queues: DeliveryQueue[] = [];
  try {
    const started = await Promise.allSettled(
      pools.map((sql) => startDeliveryQueue({ sql, embedded: false, logger: silentLogger, clock: systemClock })),
    );
    for (const outcome of started) if (outcome.status === "fulfilled") queues.push(outcome.value);
    assert.equal(
      started.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "started")),
      ["started", "started", "started", "started"],
    );
    const [installs] = await pools[0]!`
      select count(*)::int as n from pg_namespace where nspname = 'webhook_queue'`;
    assert.is(installs!["n"], 1);

    const worked = new Promise<AttemptJob>((resolve) => {
      void queues[3]!.work(
        async (job) => resolve(job),
        { slots: 2, appSlots: 1, endpointSlots: 1 },
        // No endpoints table in this database: every endpoint counts as an app of its own.
        { appsOf: async () => new Map(), endpointsOf: async () => [] },
      );
    });
    await pools[0]!.begin((tx) =>
      queues[0]!.enqueue(tx, [{ job: { deliveryId: "d-1", attempt: 1 }, endpointId: "endpoint-1" }]),
    );
    assert.equal(await worked, { deliveryId: "d-1", attempt: 1 });
  } finally {
    await Promise.allSettled(queues.map((queue) => queue.stop()));
    await Promise.allSettled(pools.map((sql) => sql.end({ timeout: 5 })));
    if (server) await server.destroy();
    else await dropDatabase(url);
  }
});

Queue.run();
