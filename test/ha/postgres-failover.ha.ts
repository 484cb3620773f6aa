// The PostgreSQL failover test (issue 37, npm run test:ha): the whole app with its control database and the UK
// region's database on a Patroni cluster of the test's own (test/support/patroni-cluster.ts: etcd, two PostgreSQL
// nodes with synchronous replication, HAProxy in front), partner writes (POST /v1/items) in parallel, and kill -9
// of the primary's postmaster. Every answer must be 200 or 503 server.database_unavailable with Retry-After within
// the call's bound; writes succeed again once the standby is promoted; every write answered 200 is on the new
// primary; a webhook event raised after each failover reaches a verifying receiver once (the relay's LISTEN and
// pg-boss carried over). Through the kill -9, writes that may or may not commit are on their way too (a refresh
// rotation, a code exchange, a consent decision, an order placement: test/support/inflight-writes.ts): each answered
// 2xx (302 with a code for a decision) only where its write is there after recovery, else 503 with Retry-After; each
// order stored once and its event delivered once by webhook-id. The seconds until writes succeed again and the
// answers by status are printed, never asserted.
import postgres from "postgres";
import * as assert from "uvu/assert";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { newSeededWorld } from "../support/client.js";
import { assessInflight, inflightRun, type InflightRun } from "../support/inflight-run.js";
import {
  createWriter,
  prepareTickets,
  writeKinds,
  type Ticket,
  type WriteKind,
  type Writer,
} from "../support/inflight-writes.js";
import { startPatroniCluster, type PatroniCluster, type PatroniNode } from "../support/patroni-cluster.js";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp, type World } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const Failover = suite("ha/postgres-failover", undefined, { timeoutMs: 600_000 });
// The injected clock keeps pace with real time (moved 200 ms every 200 ms for the whole file): the gateway's 5 s
// caches lapse as in production, so calls read the control database too, and webhook timestamps stay current.
const clock = createManualClock(Date.now());
let ticking: NodeJS.Timeout | undefined;
/**
 * The ceiling on one call (real time, never a lower bound): the documented deadline of a call that meets a failover
 * (docs/operations.md): a connect that gives up (DATABASE_CONNECT_TIMEOUT_SECONDS, 2) after a pause (<= 1 s), or a
 * statement with no answer (DATABASE_QUERY_TIMEOUT_SECONDS + 1, 6 s), with room for a loaded machine.
 */
const callBoundMs = 10_000;
/** How long writes may take to succeed again before the test gives up (the aim is 15 s; the figure is printed). */
const recoveryLimitMs = 60_000;
const writers = 4;

let cluster: PatroniCluster | undefined;
let test: TestApp | undefined;
let world: World;
let token: string;
let receiver: Receiver | undefined;
let endpointId: string;
/** A call with the app's sandbox client credentials (HTTP Basic), as webhook endpoints are managed. */
let writer: Writer;
let webhooks: (method: string, path: string, payload: unknown) => Promise<Response>;

interface Outcome {
  code: string;
  status: number | "no answer";
  body: string;
  retryAfter: string | null;
  startedMs: number;
  endedMs: number;
}

Failover.before(async () => {
  cluster = await startPatroniCluster().catch((error: unknown) => {
    console.error("ha/postgres-failover: cannot start the Patroni cluster:", error);
    throw error;
  });
  await cluster.createDatabases(["hp_control", "hp_region_uk"]);
  test = await startTestApp({
    clock,
    redis: false,
    env: {
      DATABASE_URL: cluster.url("hp_control"),
      REGION_DATABASE_URL_UK: cluster.url("hp_region_uk"),
      // The writers' calls are the load, not what a limit should stop.
      PARTNER_RATE_LIMIT: "1000000",
      WEBHOOK_ALLOW_LOOPBACK: "1",
      // Sandbox orders stay as placed: their only events are the placements'.
      SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
    },
  });
  ticking = setInterval(() => clock.advance(200), 200);
  world = await newSeededWorld(test, clock, "https://app.example/callback");
  const minted = await fetch(`${test.base}/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "client_credentials",
      client_id: world.clientId,
      client_secret: world.clientSecret,
    }),
  });
  const body = (await minted.json()) as Record<string, unknown>;
  assert.is(minted.status, 200, JSON.stringify(body));
  token = body["access_token"] as string;
  receiver = await startReceiver("ok");
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(world.clientId)}:${encodeURIComponent(world.clientSecret)}`).toString("base64")}`;
  webhooks = (method, path, payload) =>
    fetch(`${test!.base}${path}`, {
      method,
      headers: { authorization: basic, "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
  const created = await webhooks("POST", "/v1/webhook-endpoints", { url: receiver.url });
  const endpoint = (await created.json()) as { secret: string; endpoint: { id: string } };
  assert.is(created.status, 200, JSON.stringify(endpoint));
  receiver.secrets.push(endpoint.secret);
  endpointId = endpoint.endpoint.id;
  writer = await orderingWriter();
});

/**
 * The in-flight writes' writer: the world's FULL app (consent, exchange, refresh) and an ONLINE_ORDER app of its own
 * with a seeded sandbox merchant, its sandbox token and a webhook endpoint at the same receiver.
 */
async function orderingWriter(): Promise<Writer> {
  const shopWorld = await newSeededWorld(test!, clock, "https://shop.example/callback", Product.ONLINE_ORDER);
  const minted = await fetch(`${test!.base}/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      grant_type: "client_credentials",
      client_id: shopWorld.clientId,
      client_secret: shopWorld.clientSecret,
    }),
  });
  const body = (await minted.json()) as { access_token: string };
  assert.is(minted.status, 200, JSON.stringify(body));
  const region = postgres(cluster!.url("hp_region_uk"), { max: 1, onnotice: () => {} });
  const [store] = await region<{ id: number }[]>`
    select id from region_uk.stores where company_id = ${shopWorld.companyId} order by id limit 1`;
  const [item] = await region<{ id: number }[]>`
    select id from region_uk.items where company_id = ${shopWorld.companyId} order by id limit 1`;
  await region.end({ timeout: 5 });
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(shopWorld.clientId)}:${encodeURIComponent(shopWorld.clientSecret)}`).toString("base64")}`;
  const created = await fetch(`${test!.base}/v1/webhook-endpoints`, {
    method: "POST",
    headers: { authorization: basic, "content-type": "application/json" },
    body: JSON.stringify({ url: receiver!.url }),
  });
  const endpoint = (await created.json()) as { secret: string };
  assert.is(created.status, 200, JSON.stringify(endpoint));
  receiver!.secrets.push(endpoint.secret);
  return createWriter(
    { api: test!.base, auth: test!.auth },
    { clientId: world.clientId, clientSecret: world.clientSecret, redirectUri: world.redirectUri, owner: world.owner },
    { token: body.access_token, storeId: Number(store!.id), itemId: Number(item!.id) },
  );
}

Failover.after(async () => {
  await receiver?.close();
  // The clock keeps pace until the app has stopped: a closer that waits on it (a drain, a retry pause) would
  // otherwise wait on a clock that no longer moves.
  await test?.stop();
  clearInterval(ticking);
  await cluster?.destroy();
});

/** POST /v1/items with a code no other call uses; what came back and when. */
async function createItem(code: string): Promise<Outcome> {
  const startedMs = performance.now();
  try {
    const answer = await fetch(`${test!.base}/v1/items`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `Failover ${code}`, code, priceMinor: 100 }),
      signal: AbortSignal.timeout(recoveryLimitMs),
    });
    const body = await answer.text();
    return {
      code,
      status: answer.status,
      body,
      retryAfter: answer.headers.get("retry-after"),
      startedMs,
      endedMs: performance.now(),
    };
  } catch (error) {
    return { code, status: "no answer", body: String(error), retryAfter: null, startedMs, endedMs: performance.now() };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `writers` loops of createItem until `done()`, each call after the last. */
async function writeUntil(serial: number, done: () => boolean, outcomes: Outcome[]): Promise<void> {
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let call = 0; !done(); call++) {
        outcomes.push(await createItem(`ha-${serial}-${writer}-${call}`));
        await sleep(20);
      }
    }),
  );
}

const unavailable = JSON.stringify({
  message: messageFor("server.database_unavailable", { retryAfter: "5" }),
});

/** 200 with the item, or 503 server.database_unavailable in the partner envelope with Retry-After: 5. */
function assertAllowed(outcome: Outcome): void {
  const what = `${outcome.code}: ${outcome.status} ${outcome.body}`;
  assert.ok(
    outcome.endedMs - outcome.startedMs < callBoundMs,
    `${what} took ${Math.round(outcome.endedMs - outcome.startedMs)} ms`,
  );
  if (outcome.status === 200) {
    assert.is((JSON.parse(outcome.body) as { item: { code: string } }).item.code, outcome.code, what);
    return;
  }
  assert.is(outcome.status, 503, what);
  assert.is(outcome.retryAfter, "5", what);
  const body = JSON.parse(outcome.body) as Record<string, unknown>;
  assert.is(body["code"], "server.database_unavailable", what);
  assert.is(body["statusCode"], 503, what);
  assert.is(body["path"], "/v1/items", what);
  assert.is(JSON.stringify({ message: body["message"] }), unavailable, what);
  assert.equal(body["params"], { retryAfter: 5 }, what);
}

/** Answers by status (and code) as "200: 812, 503 server.database_unavailable: 37". */
function tally(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) {
    let key = String(outcome.status);
    if (outcome.status !== 200 && outcome.status !== "no answer") {
      key += ` ${(JSON.parse(outcome.body) as { code?: string }).code ?? ""}`;
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${key}: ${count}`).join(", ");
}

interface Failover {
  old: PatroniNode;
  promoted: PatroniNode | undefined;
  outcomes: Outcome[];
  killedMs: number;
}

/** Writes in parallel, `fault` on the primary after 2 s, writes on until each writer has five 200s in a row after a new primary is known. */
async function failoverUnderWrites(
  fault: (primary: PatroniNode) => void | Promise<void>,
  beside?: InflightRun,
): Promise<Failover> {
  const old = await cluster!.waitHealthy(120_000);
  const outcomes: Outcome[] = [];
  let killedMs = Number.POSITIVE_INFINITY;
  let promoted: PatroniNode | undefined;
  const done = () => {
    if (performance.now() - killedMs > recoveryLimitMs) return true;
    if (!promoted) return false;
    const after = outcomes.filter((outcome) => outcome.startedMs > killedMs);
    return Array.from({ length: writers }).every((_, writer) => {
      const own = after.filter((outcome) => outcome.code.startsWith(`ha-${serial}-${writer}-`)).slice(-5);
      return own.length === 5 && own.every((outcome) => outcome.status === 200);
    });
  };
  const serial = ++scenarios;
  const writing = writeUntil(serial, done, outcomes);
  const inflight = beside?.start({ killedMs: () => killedMs, recovered: () => promoted !== undefined });
  await sleep(2_000);
  // Writes of every kind on their way when the primary dies (started, unanswered), besides the lanes' own.
  beside?.burst();
  await sleep(5);
  killedMs = performance.now();
  await fault(old);
  while (!promoted && performance.now() - killedMs < recoveryLimitMs) {
    const now = await cluster!.primary();
    if (now && now.name !== old.name) promoted = now;
    else await sleep(100);
  }
  await writing;
  await inflight;
  return { old, promoted, outcomes, killedMs };
}
let scenarios = 0;

/** Prints the figures (never asserted), then asserts every answer, the recovery and that no acknowledged write is missing. */
async function assertFailover(what: string, { old, promoted, outcomes, killedMs }: Failover): Promise<void> {
  const before = outcomes.filter((outcome) => outcome.startedMs < killedMs);
  const failed = outcomes.filter((outcome) => outcome.status !== 200);
  const lastFailureStart = Math.max(killedMs, ...failed.map((outcome) => outcome.startedMs));
  const recovered = Math.min(
    ...outcomes.filter((o) => o.status === 200 && o.startedMs > lastFailureStart).map((o) => o.endedMs),
  );
  const window = outcomes.filter((o) => o.endedMs >= killedMs && o.startedMs <= recovered);
  console.log(
    [
      `  ${what}: ${old.name} was primary, ${promoted?.name ?? "no node"} is`,
      `  writes succeed again ${((recovered - killedMs) / 1000).toFixed(1)} s after the fault`,
      `  answers started before the fault: ${tally(before)}`,
      `  answers from the fault until writes succeed again: ${tally(window)}`,
      `  slowest answer in that window: ${Math.round(Math.max(0, ...window.map((o) => o.endedMs - o.startedMs)))} ms`,
    ].join("\n"),
  );
  assert.ok(promoted, `no node took over within ${recoveryLimitMs / 1000} s`);
  assert.ok(Number.isFinite(recovered), `writes did not succeed again within ${recoveryLimitMs / 1000} s`);
  for (const outcome of outcomes) assertAllowed(outcome);

  // Every write answered 200 is on the new primary; a write answered 503 may or may not be (the client reconciles).
  const region = postgres(cluster!.url("hp_region_uk"), { max: 1, onnotice: () => {} });
  try {
    const codes = outcomes.map((outcome) => outcome.code);
    const rows = await region<Array<{ code: string }>>`
      select code from region_uk.items where company_id = ${world.companyId} and code = any(${codes})`;
    const stored = new Set(rows.map((row) => row.code));
    const acknowledged = outcomes.filter((outcome) => outcome.status === 200).map((outcome) => outcome.code);
    const missing = acknowledged.filter((code) => !stored.has(code));
    console.log(
      `  acknowledged writes: ${acknowledged.length}, missing on the new primary: ${missing.length}; ` +
        `answered 503 but committed: ${failed.filter((outcome) => stored.has(outcome.code)).length} of ${failed.length}`,
    );
    assert.equal(missing, [], "acknowledged writes missing after the failover");
    assert.is(rows.length, stored.size, "a code stored twice");
    const [{ inRecovery }] = await region<[{ inRecovery: boolean }]>`select pg_is_in_recovery() as "inRecovery"`;
    assert.is(inRecovery, false);
  } finally {
    await region.end({ timeout: 5 });
  }
  // A new call after the failover succeeds.
  const next = await createItem(`ha-after-${scenarios}`);
  assert.is(next.status, 200, next.body);
  await assertWebhookDelivered();
}

/**
 * An event raised after the failover reaches the receiver, once: the outbox written on the new primary, the relay's
 * LISTEN (or its poll) hears of it, pg-boss hands the attempt to a worker, and the receiver verifies the signature.
 */
async function assertWebhookDelivered(): Promise<void> {
  const seen = receiver!.received.length;
  const sent = await webhooks("POST", `/v1/webhook-endpoints/${endpointId}/test`, {});
  const body = (await sent.json()) as { eventId: string };
  assert.is(sent.status, 200, JSON.stringify(body));
  // Other events (the in-flight orders') may arrive meanwhile: wait for this one's id, not for a count.
  const ofTest = () => receiver!.received.slice(seen).filter((d) => d.headers["webhook-id"] === body.eventId);
  const deadline = performance.now() + 60_000;
  while (ofTest().length === 0 && performance.now() < deadline) await sleep(100);
  await sleep(500);
  const ours = ofTest();
  assert.is(ours.length, 1, `deliveries of ${body.eventId}`);
  assert.is(ours[0]!.verified?.type, "webhook.test");
}

/** Tickets of every kind (test/support/inflight-writes.ts), prepared while the cluster is healthy. */
async function ticketsOfEveryKind(count: number): Promise<Map<WriteKind, Ticket[]>> {
  const tickets = new Map<WriteKind, Ticket[]>();
  for (const kind of writeKinds) tickets.set(kind, await prepareTickets(writer, kind, count));
  return tickets;
}

Failover(
  "kill -9 of the primary's PostgreSQL under writes: 200 or 503 with Retry-After, then 200 again, none lost; refresh rotations, code exchanges, consent decisions and order placements on their way succeed only where they committed",
  async () => {
    // 28 tickets for a kind's two lanes, at least 250 ms apart: 3.5 s at the least, past the fault at 2 s.
    const run = inflightRun(writer, await ticketsOfEveryKind(30), {
      lanes: 2,
      pauseMs: 250,
      callTimeoutMs: recoveryLimitMs,
      limitMs: recoveryLimitMs,
    });
    const failover = await failoverUnderWrites((primary) => cluster!.killPostgres(primary), run);
    await assertFailover("PostgreSQL killed", failover);
    await assertInflight(run, failover.killedMs);
  },
);

/** The queue's expireInSeconds (delivery-queue.ts), pg-boss's monitor interval, and time to send. */
const jobExpiryBoundMs = (60 + 60 + 15) * 1000;

/**
 * Every in-flight write answered within the bound, succeeded only where its write is there after recovery (else 503
 * server.database_unavailable with Retry-After: 5); each order stored once, and each accepted order's
 * online_order.created at the receiver once by webhook-id.
 */
async function assertInflight(run: InflightRun, killedMs: number): Promise<void> {
  const assessed = await assessInflight(writer, run.answers, killedMs, callBoundMs);
  console.log(
    [
      `  in-flight writes: ${run.answers.length}, on their way at the fault: ${assessed.onTheirWayAtFault}`,
      ...assessed.tallies.map((line) => `    ${line}`),
      `  acknowledged: ${assessed.acknowledged}, missing after recovery: ${assessed.missing.length}`,
    ].join("\n"),
  );
  assert.equal(assessed.outsideContract, [], "answers outside 2xx/302 and 503 server.database_unavailable");
  assert.equal(assessed.missing, [], "acknowledged in-flight writes missing after the failover");
  assert.ok(assessed.onTheirWayAtFault > 0, "no in-flight write was on its way when the primary died");
  const orders = run.answers.filter((answer) => answer.ticket.kind === "order");
  const region = postgres(cluster!.url("hp_region_uk"), { max: 1, onnotice: () => {} });
  try {
    const rows = await region<{ reference: string; id: string }[]>`
      select external_reference as reference, id::text as id from region_uk.online_orders
      where external_reference = any(${orders.map((answer) => answer.ticket.value)})`;
    const references = rows.map((row) => row.reference);
    assert.is(new Set(references).size, references.length, "an order stored twice");
    const accepted = orders.filter((answer) => answer.status === 200).map((answer) => answer.result!);
    assert.ok(accepted.length > 0, "no order accepted");
    for (const id of accepted)
      assert.ok(
        rows.some((row) => row.id === id),
        `accepted order ${id} not stored`,
      );
    // Every stored order (acknowledged or not) raised its event: each reaches the receiver once by webhook-id.
    const created = () =>
      receiver!.received.filter(
        (delivery) =>
          delivery.verified?.type === "online_order.created" &&
          rows.some((row) => row.id === String((delivery.verified!.data["order"] as { id?: unknown })?.id)),
      );
    // Most arrive within seconds of the recovery (a settle the outage refused is tried again: attempt-dispatcher.ts).
    // The latest an event may come is an attempt job whose fetch committed but whose answer was lost with the
    // primary: pg-boss expires it 60 s after its fetch, at its next monitor pass (up to 60 s on), then retries it.
    const deadline = Math.max(performance.now() + 60_000, killedMs + jobExpiryBoundMs);
    while (new Set(created().map((d) => d.headers["webhook-id"])).size < rows.length && performance.now() < deadline)
      await sleep(200);
    const ids = created().map((delivery) => String(delivery.headers["webhook-id"]));
    // receivedAt is on the epoch's scale, killedMs on performance.now()'s.
    const lastSeconds = Math.max(...created().map((d) => d.receivedAt - performance.timeOrigin - killedMs)) / 1000;
    console.log(
      `  orders: ${orders.length} placed, ${accepted.length} accepted, ${rows.length} stored; ` +
        `online_order.created deliveries ${ids.length}, distinct webhook-ids ${new Set(ids).size}, ` +
        `the last ${lastSeconds.toFixed(1)} s after the fault`,
    );
    assert.is(new Set(ids).size, rows.length, "order events delivered (distinct webhook-ids)");
    const ordersOfEvents = created().map((d) => String((d.verified!.data["order"] as { id?: unknown }).id));
    assert.is(new Set(ordersOfEvents).size, rows.length, "one webhook-id per order");
  } finally {
    await region.end({ timeout: 5 });
  }
}

Failover("a planned switchover under writes: the same, with the old primary stopped cleanly", async () => {
  await assertFailover(
    "switchover",
    await failoverUnderWrites((primary) =>
      cluster!.switchover(primary, cluster!.nodes.find((node) => node.name !== primary.name)!),
    ),
  );
});

// Last: the lost node's Patroni is gone for good, so the cluster ends with one node.
Failover(
  "the primary's whole node lost (Patroni and PostgreSQL killed): the same, once its leader lock expires",
  async () => {
    await assertFailover("node lost", await failoverUnderWrites((primary) => cluster!.killNode(primary)));
  },
);

Failover.run();
