// Webhooks over real ports: endpoints managed with client credentials (HTTP Basic), events signed as Standard
// Webhooks says and verified by the `standardwebhooks` package, the outbox (a rolled-back change sends nothing),
// grant events, SSRF refusals (private, loopback, metadata, rebinding) and hostile receivers cut at their timeout
// without delaying another endpoint's events.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { recordEvent } from "../../src/events/index.js";
import { createConnections } from "../../src/grant/index.js";
import { systemClock } from "../../src/runtime/clock.js";
import { createDeliveryQueries } from "../../src/webhook/queries/delivery-queries.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { expectError } from "../support/console.js";
import { answerOf, newApp, newOrganization, newSandboxMerchant, type Answer } from "../support/sandbox.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

interface Pair {
  clientId: string;
  clientSecret: string;
}

const test = suite("webhook delivery");
let app: TestApp;
let sandbox: Pair;
let production: Pair;
let appId: string;
let organizationId: bigint;
const receivers: Receiver[] = [];
// The rebinding DNS: rebind.test is public at registration and loopback at delivery.
let rebindAnswers = ["93.184.216.34"];

const basic = (pair: Pair) =>
  `Basic ${Buffer.from(`${encodeURIComponent(pair.clientId)}:${encodeURIComponent(pair.clientSecret)}`).toString("base64")}`;

async function call(pair: Pair, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: basic(pair) };
  if (body !== undefined) headers["content-type"] = "application/json";
  return answerOf(
    await fetch(app.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
}

async function receiver(mode: Parameters<typeof startReceiver>[0] = "ok"): Promise<Receiver> {
  const made = await startReceiver(mode);
  receivers.push(made);
  return made;
}

async function register(pair: Pair, target: Receiver, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await call(pair, "POST", "/v1/webhook-endpoints", { url: target.url, ...extra });
  assert.is(created.status, 200, JSON.stringify(created.body));
  target.secrets.push(created.body["secret"] as string);
  return (created.body["endpoint"] as { id: string }).id;
}

/** A delivery as GET /v1/webhook-endpoints/{id}/deliveries lists it: the fields these tests read. */
interface ListedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  state: string;
  attempts: Array<{ outcome: string; statusCode?: number; responseExcerpt?: string }>;
}

/** The endpoint's deliveries once `done` holds for them (the worker settles them after the receiver answered). */
async function deliveriesWhen(
  pair: Pair,
  endpointId: string,
  done: (deliveries: ListedDelivery[]) => boolean,
): Promise<ListedDelivery[]> {
  for (let tries = 0; tries < 200; tries++) {
    const answer = await call(pair, "GET", `/v1/webhook-endpoints/${endpointId}/deliveries`);
    const deliveries = answer.body["deliveries"] as ListedDelivery[];
    if (done(deliveries)) return deliveries;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("deliveries never settled");
}

test.before(async () => {
  app = await startTestApp({
    clock: systemClock,
    redis: false,
    env: {
      WEBHOOK_TIMEOUT_SECONDS: "2",
      WEBHOOK_RETRY_SCHEDULE_SECONDS: "1",
      WEBHOOK_ALLOW_LOOPBACK: "1",
      // Orders move only when a test moves them.
      SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
    },
    webhookResolver: async (hostname) => (hostname === "rebind.test" ? rebindAnswers : []),
  });
  const credentials = credentialServiceOf(app, systemClock);
  organizationId = await newOrganization(credentials);
  const made = await newApp(credentials, organizationId, Product.FULL, true);
  appId = made.appId;
  sandbox = made.sandbox;
  production = made.production!;
});

test.after(async () => {
  for (const made of receivers) await made.close();
  await app?.stop();
});

test("an endpoint is created with Basic client credentials, its whsec_ secret shown once, and listed without it", async () => {
  const target = await receiver();
  const created = await call(sandbox, "POST", "/v1/webhook-endpoints", {
    url: target.url,
    events: ["grant.created", "grant.revoked"],
    description: "orders",
  });
  assert.is(created.status, 200);
  assert.is(created.headers.get("cache-control"), "no-store");
  assert.match(created.body["secret"] as string, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const endpoint = created.body["endpoint"] as Record<string, unknown>;
  assert.match(endpoint["id"] as string, /^we_/);
  assert.equal(
    { ...endpoint, id: "", createdAt: "" },
    {
      id: "",
      url: target.url,
      events: ["grant.created", "grant.revoked"],
      description: "orders",
      environment: "sandbox",
      status: "enabled",
      createdAt: "",
    },
  );
  const listed = await call(sandbox, "GET", "/v1/webhook-endpoints");
  assert.is(listed.status, 200);
  assert.equal(
    (listed.body["endpoints"] as unknown[]).map((row) => (row as { id: string }).id),
    [endpoint["id"]],
  );
  assert.not.ok(JSON.stringify(listed.body).includes("whsec_"));
  // The production credential sees the production environment's endpoints only.
  assert.equal((await call(production, "GET", "/v1/webhook-endpoints")).body, { endpoints: [] });
  expectError(
    await call(production, "GET", `/v1/webhook-endpoints/${endpoint["id"]}`),
    404,
    "developer.webhook_endpoint_not_found",
  );
  expectError(
    await call({ clientId: sandbox.clientId, clientSecret: "wrong" }, "GET", "/v1/webhook-endpoints"),
    401,
    "developer.invalid_client",
  );
  // No credential at all: client authentication failed too (RFC 6749 section 5.2), with the scheme to use.
  const anonymous = await answerOf(await fetch(`${app.base}/v1/webhook-endpoints`));
  expectError(anonymous, 401, "developer.invalid_client");
  assert.is(anonymous.headers.get("www-authenticate"), "Basic");
  expectError(
    await call(sandbox, "POST", "/v1/webhook-endpoints", { url: target.url, events: ["order.shipped"] }),
    400,
    "developer.webhook_event_unknown",
    { event: "order.shipped" },
  );
  const deleted = await call(sandbox, "DELETE", `/v1/webhook-endpoints/${endpoint["id"]}`);
  assert.equal(deleted.body, { deleted: true });
});

test("webhook.test reaches the receiver signed as Standard Webhooks says, the deliveries list shows the attempt, and the success ends the endpoint's failure streak", async () => {
  const target = await receiver();
  const endpointId = await register(sandbox, target);
  // Failing for a day (as the workers leave an endpoint whose attempts failed): a success ends the streak.
  await app.app.control.sql`
    update control.webhook_endpoints set failing_since = now() - interval '1 day' where id = ${endpointId}`;
  const sent = await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/test`, {});
  assert.is(sent.status, 200);
  const eventId = sent.body["eventId"] as string;
  const [delivery] = await target.waitFor(1);
  assert.is(delivery!.headers["webhook-id"], eventId);
  assert.match(delivery!.headers["webhook-signature"] as string, /^v1,[A-Za-z0-9+/]+=*$/);
  assert.is(delivery!.headers["content-type"], "application/json");
  assert.equal(delivery!.verified?.type, "webhook.test");
  assert.equal(delivery!.verified?.data, { endpointId, appId });
  const [listed] = await deliveriesWhen(sandbox, endpointId, (rows) => rows[0]?.state === "SUCCEEDED");
  assert.is(listed!.eventId, eventId);
  assert.is(listed!.eventType, "webhook.test");
  assert.is(listed!.attempts.length, 1);
  assert.is(listed!.attempts[0]!.outcome, "SUCCEEDED");
  assert.is(listed!.attempts[0]!.statusCode, 204);
  const [endpointRow] = await app.app.control.sql<{ failing_since: Date | null }[]>`
    select failing_since from control.webhook_endpoints where id = ${endpointId}`;
  assert.is(endpointRow!.failing_since, null);
  // A resend sends the same event (same webhook-id) again.
  const resent = await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/deliveries/${listed!.id}/resend`, {});
  assert.is(resent.status, 200);
  const again = await target.waitFor(2);
  assert.is(again[1]!.headers["webhook-id"], eventId);
  assert.ok(again[1]!.verified);
  expectError(
    await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/deliveries/dlv_nope/resend`, {}),
    404,
    "developer.webhook_delivery_not_found",
  );
});

test("an attempt started and never recorded (its record failed after the send) is not dropped: a refused claim queues the attempt again for when it is stale", async () => {
  const target = await receiver();
  const endpointId = await register(sandbox, target);
  assert.is((await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/test`, {})).status, 200);
  const [listed] = await deliveriesWhen(sandbox, endpointId, (rows) => rows[0]?.state === "SUCCEEDED");
  const deliveryId = listed!.id;
  const sql = app.app.control.sql;
  // As a worker leaves a delivery when attempt 2 was sent and recording its outcome failed (the database away for a
  // moment): started, never recorded, still PENDING; pg-boss then retries that job within the second.
  const [started] = await sql<{ at: Date }[]>`
    update control.webhook_deliveries set state = 'PENDING', attempts_started = 2, attempt_started_at = now()
    where id = ${deliveryId} returning attempt_started_at as at`;
  await app.app.webhooks.queue.enqueue(sql, [{ job: { deliveryId, attempt: 2 }, endpointId }]);
  app.app.webhooks.nudge();
  type Job = { state: string; start_after: Date };
  let jobs: Job[] = [];
  for (let tries = 0; tries < 100 && !jobs.some((job) => job.state === "completed"); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    jobs = await sql<Job[]>`
      select state, start_after from webhook_queue.job
      where data->>'deliveryId' = ${deliveryId} and (data->>'attempt')::int = 2 order by created_on, id`;
  }
  // The retried job's claim was refused (not stale) and it completed; a job for the same attempt waits for the
  // moment the claim takes it: the start + 60 s (+1 s).
  assert.equal(
    jobs.map((job) => job.state),
    ["completed", "created"],
  );
  assert.is(jobs[1]!.start_after.getTime(), Math.floor(started!.at.getTime()) + 61_000);
  assert.is(target.received.length, 1, "nothing sent again before then");
});

test("claims in one statement decide as one at a time: the first claim of a delivery takes it, a second in the same batch and a claim of a settled delivery are refused, a stale one is taken again", async () => {
  const target = await receiver();
  const endpointId = await register(sandbox, target);
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    assert.is((await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/test`, {})).status, 200);
    const done = await deliveriesWhen(
      sandbox,
      endpointId,
      (rows) => rows.length > i && rows.every((row) => row.state === "SUCCEEDED"),
    );
    ids.push(done.find((row) => !ids.includes(row.id))!.id);
  }
  const [open, settled] = ids as [string, string];
  const sql = app.app.control.sql;
  // `open` as a delivery whose attempt 1 failed and whose attempt 2 is due; `settled` stays SUCCEEDED.
  await sql`update control.webhook_deliveries set state = 'PENDING', attempts_started = 1, attempts_recorded = 1
    where id = ${open}`;
  const now = new Date();
  const staleBefore = new Date(now.getTime() - 60_000);
  const claims = [
    { deliveryId: open, attempt: 2, now, staleBefore },
    { deliveryId: settled, attempt: 2, now, staleBefore },
    { deliveryId: open, attempt: 2, now, staleBefore },
  ];
  const answered = await createDeliveryQueries(sql).claimMany(claims);
  assert.is(answered.length, 3);
  assert.is(answered[0]?.id, open, "the first claim of the pending delivery takes it");
  assert.is(answered[0]?.endpoint_id, endpointId);
  assert.is(answered[0]?.url, target.url);
  assert.is(answered[1], undefined, "a settled delivery is not claimed");
  assert.is(
    answered[2],
    undefined,
    "a second claim of the same attempt in the batch is refused, as it would be after the first",
  );
  const [again] = await createDeliveryQueries(sql).claimMany([claims[0]!]);
  assert.is(again, undefined, "started and not stale: refused");
  const later = new Date(now.getTime() + 61_000);
  const [stale] = await createDeliveryQueries(sql).claimMany([
    { deliveryId: open, attempt: 2, now: later, staleBefore: new Date(later.getTime() - 60_000) },
  ]);
  assert.is(stale?.id, open, "started more than a minute before and never recorded: claimed again");
  await sql`update control.webhook_deliveries set state = 'SUCCEEDED', attempts_recorded = 2 where id = ${open}`;
  // The app's endpoints are bounded; the later tests register theirs.
  assert.is((await call(sandbox, "DELETE", `/v1/webhook-endpoints/${endpointId}`)).status, 200);
});

test("online_order.created and online_order.updated carry the order as the partner API answers it, from the move's own transaction", async () => {
  const credentials = credentialServiceOf(app, systemClock);
  const ordering = await newApp(credentials, organizationId, Product.ONLINE_ORDER);
  const target = await receiver();
  await register(ordering.sandbox, target, { events: ["online_order.created", "online_order.updated"] });
  const merchant = await newSandboxMerchant(credentials, organizationId);
  const minted = await answerOf(
    await fetch(`${app.base}/v1/token`, {
      method: "POST",
      headers: { authorization: basic(ordering.sandbox), "content-type": "application/json" },
      body: JSON.stringify({ merchant_id: merchant.companyId }),
    }),
  );
  assert.is(minted.status, 200);
  const bearer = { authorization: `Bearer ${minted.body["access_token"] as string}` };
  const partner = async (method: string, path: string, body?: unknown) =>
    answerOf(
      await fetch(app.base + path, {
        method,
        headers: body === undefined ? bearer : { ...bearer, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const stores = (await partner("GET", "/v1/stores")).body["stores"] as Array<{ id: number }>;
  const items = (await partner("GET", "/v1/items?limit=1")).body["items"] as Array<{ id: number }>;
  const placed = await partner("POST", "/v1/online-orders", {
    storeId: stores[0]!.id,
    lines: [{ itemId: items[0]!.id, quantity: 2 }],
    fulfilment: { type: "PICKUP" },
    customer: { name: "Asha Rao" },
    externalReference: "webhook-order-1",
  });
  assert.is(placed.status, 200, JSON.stringify(placed.body));
  const order = placed.body["order"] as Record<string, unknown>;
  const cancelled = await partner("POST", `/v1/online-orders/${order["id"] as number}/cancel`, {});
  assert.is(cancelled.status, 200, JSON.stringify(cancelled.body));
  // Two deliveries to one endpoint run side by side, and no order between them is promised (docs/api-guide.md,
  // "Ordering"): each is found by its type.
  const arrived = await target.waitFor(2);
  const created = arrived.find((webhook) => webhook.verified?.type === "online_order.created");
  const updated = arrived.find((webhook) => webhook.verified?.type === "online_order.updated");
  assert.is(created!.verified?.type, "online_order.created");
  assert.equal(created!.verified?.data, { companyId: merchant.companyId, order });
  assert.is(updated!.verified?.type, "online_order.updated");
  assert.equal(updated!.verified?.data, { companyId: merchant.companyId, order: cancelled.body["order"] });
  assert.is((updated!.verified!.data["order"] as Record<string, unknown>)["status"], "CANCELLED");
  assert.is.not(created!.headers["webhook-id"], updated!.headers["webhook-id"]);
});

test("item.created, item.updated (an availability change, naming its store) and store.updated (a pause) carry the resource as the API answers it", async () => {
  const credentials = credentialServiceOf(app, systemClock);
  const ordering = await newApp(credentials, organizationId, Product.ONLINE_ORDER);
  const full = await newApp(credentials, organizationId, Product.FULL);
  const target = await receiver();
  await register(ordering.sandbox, target, { events: ["item.created", "item.updated", "store.updated"] });
  const merchant = await newSandboxMerchant(credentials, organizationId);
  const partnerOf = async (pair: Pair) => {
    const minted = await answerOf(
      await fetch(`${app.base}/v1/token`, {
        method: "POST",
        headers: { authorization: basic(pair), "content-type": "application/json" },
        body: JSON.stringify({ merchant_id: merchant.companyId }),
      }),
    );
    assert.is(minted.status, 200);
    const bearer = { authorization: `Bearer ${minted.body["access_token"] as string}` };
    return async (method: string, path: string, body?: unknown) =>
      answerOf(
        await fetch(app.base + path, {
          method,
          headers: body === undefined ? bearer : { ...bearer, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
  };
  const orderApp = await partnerOf(ordering.sandbox);
  const catalogueApp = await partnerOf(full.sandbox);
  const stores = (await orderApp("GET", "/v1/stores")).body["stores"] as Array<{ id: number }>;
  const created = await catalogueApp("POST", "/v1/items", {
    name: "Flat white",
    code: "FLAT-WHITE-W1",
    priceMinor: 15000,
    modifierGroups: [{ name: "Milk", maxSelections: 1, modifiers: [{ name: "Oat", priceMinor: 2000 }] }],
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const item = created.body["item"] as { id: number };
  const soldOut = await catalogueApp("PUT", `/v1/stores/${stores[0]!.id}/items/${item.id}/availability`, {
    available: false,
  });
  assert.is(soldOut.status, 200, JSON.stringify(soldOut.body));
  const paused = await orderApp("POST", `/v1/sandbox/stores/${stores[1]!.id}/online-ordering`, {
    status: "PAUSED",
    reason: "kitchen at capacity",
  });
  assert.is(paused.status, 200, JSON.stringify(paused.body));
  const arrived = await target.waitFor(3);
  const ofType = (type: string) => arrived.find((webhook) => webhook.verified?.type === type)?.verified?.data;
  assert.equal(ofType("item.created"), { companyId: merchant.companyId, item });
  assert.equal(ofType("item.updated"), {
    companyId: merchant.companyId,
    storeId: stores[0]!.id,
    item: soldOut.body["item"],
  });
  assert.is((ofType("item.updated")!["item"] as { available: boolean }).available, false);
  assert.equal(ofType("store.updated"), { companyId: merchant.companyId, store: paused.body["store"] });
});

test("a rotated secret signs beside the previous one, so a receiver holding either verifies", async () => {
  const target = await receiver();
  const endpointId = await register(sandbox, target);
  const oldSecret = target.secrets[0]!;
  const rotated = await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/rotate-secret`, {});
  assert.is(rotated.status, 200);
  const newSecret = rotated.body["secret"] as string;
  assert.is.not(newSecret, oldSecret);
  assert.ok((rotated.body["endpoint"] as Record<string, unknown>)["previousSecretExpiresAt"]);
  target.secrets.splice(0, 1, newSecret);
  await call(sandbox, "POST", `/v1/webhook-endpoints/${endpointId}/test`, {});
  target.secrets.push(oldSecret);
  const [withNew] = await target.waitFor(1);
  assert.ok(withNew!.verified, "the new secret verifies");
  assert.is((withNew!.headers["webhook-signature"] as string).split(" ").length, 2);
});

test("a rolled-back change sends nothing; the committed one arrives (the outbox commits with the change)", async () => {
  const target = await receiver();
  const endpointId = await register(sandbox, target);
  const sql = app.app.control.sql;
  const event = (marker: string) => ({
    type: "webhook.test" as const,
    audience: { kind: "endpoint" as const, endpointId },
    data: { marker },
    occurredAt: new Date(),
  });
  await sql
    .begin(async (tx) => {
      await recordEvent(tx, event("rolled back"));
      throw new Error("the change fails");
    })
    .catch(() => undefined);
  await sql.begin((tx) => recordEvent(tx, event("committed")));
  const [only] = await target.waitFor(1);
  assert.equal(only!.verified?.data, { marker: "committed" });
  // Everything before the committed event in the outbox has been relayed: nothing else can come.
  await app.app.webhooks.relay!.drain();
  assert.is(target.received.length, 1);
});

test("grant.revoked and grant.created reach the app's sandbox endpoints when a merchant disconnects and the grant returns", async () => {
  const target = await receiver();
  await register(sandbox, target, { events: ["grant.created", "grant.revoked"] });
  const credentials = credentialServiceOf(app, systemClock);
  const merchant = await newSandboxMerchant(credentials, organizationId);
  const connections = createConnections({ sql: app.app.control.sql, clock: systemClock, logger: silentLogger });
  assert.ok(await connections.disconnect(merchant.companyId, appId));
  const [revoked] = await target.waitFor(1);
  assert.is(revoked!.verified?.type, "grant.revoked");
  assert.is(revoked!.verified?.data["companyId"], merchant.companyId);
  assert.equal(
    { ...(revoked!.verified?.data["grant"] as object), id: 0, createdAt: "", revokedAt: "" },
    { id: 0, appId, environment: "sandbox", createdAt: "", revokedAt: "", reason: "merchant_disconnected" },
  );
  // A sandbox mint for the organization's own merchant restores the grant: grant.created.
  const minted = await fetch(`${app.base}/v1/token`, {
    method: "POST",
    headers: { authorization: basic(sandbox), "content-type": "application/json" },
    body: JSON.stringify({ merchant_id: merchant.companyId }),
  });
  assert.is(minted.status, 200);
  const events = await target.waitFor(2);
  assert.is(events[1]!.verified?.type, "grant.created");
  assert.is((events[1]!.verified!.data["grant"] as Record<string, unknown>)["reason"], "merchant_connected");
});

test("SSRF: production endpoints must be https to public addresses; loopback, private, metadata and our own ports are refused", async () => {
  const refused = async (pair: Pair, url: string, rule: string) =>
    expectError(await call(pair, "POST", "/v1/webhook-endpoints", { url }), 400, "developer.webhook_url_invalid", {
      rule,
    });
  const publicOnly = "must resolve to public addresses only";
  await refused(production, "https://127.0.0.1/hooks", publicOnly);
  await refused(production, "https://localhost/hooks", publicOnly);
  await refused(production, "https://[::1]/hooks", publicOnly);
  await refused(production, "https://10.1.2.3/hooks", publicOnly);
  await refused(production, "https://192.168.0.10/hooks", publicOnly);
  await refused(production, "https://169.254.169.254/latest/meta-data", publicOnly);
  await refused(production, "https://[fd00:ec2::254]/", publicOnly);
  await refused(production, "https://[::ffff:127.0.0.1]/", publicOnly);
  await refused(production, "http://93.184.216.34/hooks", "must be https");
  await refused(production, "https://user:pw@93.184.216.34/hooks", "must not carry credentials");
  await refused(production, "https://unresolvable.test/hooks", "must resolve to an address");
  // Sandbox with WEBHOOK_ALLOW_LOOPBACK: loopback, but never the internal port or a database's.
  const loopbackRule = "must resolve to public addresses or loopback (not this service's own ports)";
  await refused(sandbox, `http://127.0.0.1:${app.app.grpc.port}/`, loopbackRule);
  await refused(sandbox, "http://127.0.0.1:5432/", loopbackRule);
  await refused(sandbox, "http://10.0.0.1/", loopbackRule);
});

test("DNS rebinding: a name public at registration and loopback at delivery is refused on the address connected to", async () => {
  const local = await receiver();
  rebindAnswers = ["93.184.216.34"];
  const created = await call(production, "POST", "/v1/webhook-endpoints", {
    url: `https://rebind.test:${local.port}/hooks`,
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const endpointId = (created.body["endpoint"] as { id: string }).id;
  rebindAnswers = ["127.0.0.1"];
  await call(production, "POST", `/v1/webhook-endpoints/${endpointId}/test`, {});
  const [delivery] = await deliveriesWhen(production, endpointId, (rows) => rows[0]?.state === "FAILED");
  assert.equal(
    delivery!.attempts.map((attempt) => attempt.outcome),
    ["ADDRESS_REFUSED", "ADDRESS_REFUSED"],
  );
  assert.is(delivery!.state, "FAILED");
  assert.is(local.received.length, 0);
});

test("hostile receivers are cut at their timeout, redirects are not followed, and another endpoint's event is not held up", async () => {
  const hang = await receiver("hang");
  const slow = await receiver("slow-headers");
  const huge = await receiver("huge-body");
  const redirect = await receiver("redirect");
  const healthy = await receiver();
  const ids = {
    hang: await register(sandbox, hang),
    slow: await register(sandbox, slow),
    huge: await register(sandbox, huge),
    redirect: await register(sandbox, redirect),
  };
  for (const id of Object.values(ids)) await call(sandbox, "POST", `/v1/webhook-endpoints/${id}/test`, {});
  await hang.waitFor(1);
  await slow.waitFor(1);
  // While the hostile ones hold their attempts open, a healthy endpoint's event arrives.
  const healthyId = await register(sandbox, healthy);
  await call(sandbox, "POST", `/v1/webhook-endpoints/${healthyId}/test`, {});
  await healthy.waitFor(1);
  const outcomes = async (id: string) =>
    (await deliveriesWhen(sandbox, id, (rows) => rows[0]?.state === "FAILED" || rows[0]?.state === "SUCCEEDED"))[0]!;
  const hung = await outcomes(ids.hang);
  assert.equal(
    hung.attempts.map((a) => a.outcome),
    ["TIMEOUT", "TIMEOUT"],
  );
  const slowed = await outcomes(ids.slow);
  assert.equal(
    slowed.attempts.map((a) => a.outcome),
    ["TIMEOUT", "TIMEOUT"],
  );
  const flooded = await outcomes(ids.huge);
  assert.is(flooded.state, "SUCCEEDED");
  assert.is(flooded.attempts[0]!.responseExcerpt, "x".repeat(256));
  const redirected = await outcomes(ids.redirect);
  assert.equal(
    redirected.attempts.map((a) => [a.outcome, a.statusCode]),
    [
      ["HTTP_ERROR", 302],
      ["HTTP_ERROR", 302],
    ],
  );
  assert.ok(
    redirect.received.every((request) => request.headers["webhook-id"] !== undefined),
    "nothing followed the Location",
  );
  assert.is(redirect.received.length, 2);
});

test.run();
