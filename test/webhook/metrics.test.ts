// The webhook and signing-key metrics over real ports (issue 41): real deliveries to real receivers, then GET /metrics
// on the internal port. Attempts are counted by outcome once recorded, an endpoint disabled is counted by
// environment, the backlog's age is the clock's distance to the oldest due attempt (and 0 when nothing waits), and
// the signing key's age moves with the injected clock. The retry schedule is an hour: the queue (which keeps the
// database's own time) never runs a retry within the test, while the injected clock is moved past it.
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { sample, scrape } from "../support/metrics.js";
import { answerOf, newApp, newOrganization, type Answer } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

interface Context {
  app: TestApp;
  ok: Receiver;
  failing: Receiver;
  pair: { clientId: string; clientSecret: string };
}

const Metrics = suite<Context>("webhook/metrics");
// Whole seconds, near the real time: the queue schedules a retry an hour after the injected clock's settle time.
const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000);

Metrics.before(async (context) => {
  context.app = await startTestApp({
    clock,
    redis: false,
    env: {
      WEBHOOK_TIMEOUT_SECONDS: "5",
      WEBHOOK_RETRY_SCHEDULE_SECONDS: "3600",
      WEBHOOK_DISABLE_AFTER_SECONDS: "3600",
      WEBHOOK_ALLOW_LOOPBACK: "1",
    },
  });
  const credentials = credentialServiceOf(context.app, clock);
  context.pair = (await newApp(credentials, await newOrganization(credentials), Product.FULL, false)).sandbox;
  context.ok = await startReceiver("ok");
  context.failing = await startReceiver("fail");
});

Metrics.after(async (context) => {
  await context.ok?.close();
  await context.failing?.close();
  await context.app?.stop();
});

async function call(context: Context, path: string, body: unknown): Promise<Answer> {
  const { clientId, clientSecret } = context.pair;
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64");
  return answerOf(
    await fetch(context.app.base + path, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

async function endpointFor(context: Context, target: Receiver): Promise<string> {
  const created = await call(context, "/v1/webhook-endpoints", { url: target.url });
  assert.is(created.status, 200, JSON.stringify(created.body));
  return (created.body["endpoint"] as { id: string }).id;
}

async function sendTest(context: Context, endpointId: string): Promise<void> {
  const sent = await call(context, `/v1/webhook-endpoints/${endpointId}/test`, {});
  assert.is(sent.status, 200, JSON.stringify(sent.body));
}

/** The scrape once `done` holds for it: an attempt is counted after its outcome's transaction, a moment after the send. */
async function scrapeWhen(context: Context, done: (text: string) => boolean): Promise<string> {
  let text = "";
  for (let tries = 0; tries < 300; tries++) {
    text = await scrape(context.app.app.grpc.port);
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `the scrape never showed what was awaited:\n${text
      .split("\n")
      .filter((line) => line.startsWith("partnerapi_webhook"))
      .join("\n")}`,
  );
}

const attempts = (text: string, outcome: string) => sample(text, "partnerapi_webhook_attempts_total", { outcome });
const backlog = (text: string, stage: string) => sample(text, "partnerapi_webhook_backlog_age_seconds", { stage });
const keyAge = (text: string) => sample(text, "partnerapi_signing_key_age_seconds");

Metrics("attempts by outcome, the backlog's age, an endpoint disabled and the signing key's age", async (context) => {
  const before = await scrape(context.app.app.grpc.port);
  assert.is(backlog(before, "outbox"), 0);
  assert.is(backlog(before, "attempt"), 0);
  assert.is(attempts(before, "SUCCEEDED"), undefined);
  const ageAtStart = keyAge(before);
  assert.ok(ageAtStart !== undefined && ageAtStart >= 0, `signing key age ${ageAtStart}`);

  const ok = await endpointFor(context, context.ok);
  const failing = await endpointFor(context, context.failing);
  await sendTest(context, ok);
  await sendTest(context, failing);
  await context.ok.waitFor(1);
  await context.failing.waitFor(1);
  const first = await scrapeWhen(
    context,
    (text) => attempts(text, "SUCCEEDED") === 1 && attempts(text, "HTTP_ERROR") === 1,
  );
  // Relayed and sent: nothing waits. The failed delivery's retry is due in an hour.
  assert.is(backlog(first, "outbox"), 0);
  assert.is(backlog(first, "attempt"), 0);
  assert.is(sample(first, "partnerapi_webhook_endpoints_disabled_total", { environment: "SANDBOX" }), undefined);

  // An hour and a minute later the retry has been due for 60 s (no worker ran it: the queue's time has not come).
  // A second event to the failing endpoint fails again, past WEBHOOK_DISABLE_AFTER_SECONDS of failures: disabled.
  clock.advance(3_660_000);
  await sendTest(context, failing);
  await context.failing.waitFor(2);
  const second = await scrapeWhen(
    context,
    (text) =>
      attempts(text, "HTTP_ERROR") === 2 &&
      sample(text, "partnerapi_webhook_endpoints_disabled_total", { environment: "SANDBOX" }) === 1,
  );
  assert.is(attempts(second, "SUCCEEDED"), 1);
  assert.is(sample(second, "partnerapi_webhook_endpoints_disabled_total", { environment: "PRODUCTION" }), undefined);
  assert.is(backlog(second, "attempt"), 60);
  assert.is(backlog(second, "outbox"), 0);
  assert.is(keyAge(second), ageAtStart! + 3660);
  assert.match(second, "# TYPE partnerapi_webhook_backlog_age_seconds gauge");
});

Metrics.run();
