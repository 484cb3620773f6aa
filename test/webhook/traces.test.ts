// A webhook delivery attempt's span links back to the request whose commit recorded the event (issue 41): the
// outbox keeps that request's traceparent, the relay hands it to each delivery, the attempt starts a trace of its own
// linked to it. The app, the partner's receiver and the OTLP/HTTP receiver on real ports; tracing on in this process.
import * as assert from "uvu/assert";
import { systemClock } from "../../src/runtime/clock.js";
import { roleAttribute, startTracing, type Tracing } from "../../src/runtime/tracing.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";
import { answerOf, newApp, newOrganization, type Answer } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

interface Context {
  otlp: OtlpReceiver;
  tracing: Tracing;
  app: TestApp;
  target: Receiver;
  pair: { clientId: string; clientSecret: string };
}

const Traces = suite<Context>("webhook/traces");

Traces.before(async (context) => {
  context.otlp = await startOtlpReceiver();
  context.tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: context.otlp.url }, { [roleAttribute]: "all" })!;
  context.app = await startTestApp({
    clock: systemClock,
    redis: false,
    env: { WEBHOOK_TIMEOUT_SECONDS: "2", WEBHOOK_RETRY_SCHEDULE_SECONDS: "1", WEBHOOK_ALLOW_LOOPBACK: "1" },
  });
  const credentials = credentialServiceOf(context.app, systemClock);
  const made = await newApp(credentials, await newOrganization(credentials), Product.FULL, false);
  context.pair = made.sandbox;
  context.target = await startReceiver("ok");
});

Traces.after(async (context) => {
  await context.target?.close();
  await context.app?.stop();
  await context.tracing?.shutdown();
  await context.otlp?.close();
});

async function call(context: Context, method: string, path: string, body?: unknown): Promise<Answer> {
  const { clientId, clientSecret } = context.pair;
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64");
  return answerOf(
    await fetch(context.app.base + path, {
      method,
      headers: { authorization: `Basic ${basic}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

Traces(
  "the delivery attempt's span is the root of its own trace, linked to the request that recorded the event",
  async (context) => {
    const created = await call(context, "POST", "/v1/webhook-endpoints", { url: context.target.url });
    assert.is(created.status, 200, JSON.stringify(created.body));
    const endpointId = (created.body["endpoint"] as { id: string }).id;
    const sent = await fetch(`${context.app.base}/v1/webhook-endpoints/${endpointId}/test`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(context.pair.clientId)}:${encodeURIComponent(context.pair.clientSecret)}`).toString("base64")}`,
        "content-type": "application/json",
      },
      body: "{}",
    });
    assert.is(sent.status, 200);
    const eventId = ((await sent.json()) as { eventId: string }).eventId;
    const traceId = sent.headers.get("x-correlation-id")!.replaceAll("-", "");
    await context.target.waitFor(1);

    // The attempt's span ends once the receiver's answer is in: flushed until it is there.
    const isAttempt = (span: { name: string; attributes: Record<string, unknown> }) =>
      span.name === "POST webhook" && span.attributes["webhook.event_id"] === eventId;
    let spans = context.otlp.spans();
    for (let flushes = 0; flushes < 100 && !spans.some(isAttempt); flushes++) {
      await context.tracing.flush();
      spans = await context.otlp.waitFor(() => true);
      if (!spans.some(isAttempt)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const request = spans.find(
      (span) => span.traceId === traceId && span.name === "POST /v1/webhook-endpoints/{endpoint_id}/test",
    );
    assert.ok(request, `the request's span: ${JSON.stringify(spans.map((span) => span.name))}`);
    const attempt = spans.find(isAttempt)!;
    assert.ok(attempt, "the attempt's span");
    assert.is(attempt.kind, 3, "a client span");
    assert.is(attempt.parentSpanId, "", "the root of a trace of its own");
    assert.is.not(attempt.traceId, traceId);
    // The link names the span that recorded the event: the request's service call, a child of the request's span.
    const recorded = spans.find((span) => span.traceId === traceId && span.parentSpanId === request.spanId);
    assert.is(recorded?.name, "partnerapi.v1.WebhookService/SendTestWebhook");
    assert.equal(attempt.links, [{ traceId, spanId: recorded!.spanId }]);
    assert.equal(
      {
        method: attempt.attributes["http.request.method"],
        host: attempt.attributes["server.address"],
        status: attempt.attributes["http.response.status_code"],
        outcome: attempt.attributes["webhook.outcome"],
        type: attempt.attributes["webhook.event_type"],
        attempt: attempt.attributes["webhook.attempt"],
        endpoint: attempt.attributes["webhook.endpoint_id"],
      },
      {
        method: "POST",
        host: "127.0.0.1",
        status: 204,
        outcome: "SUCCEEDED",
        type: "webhook.test",
        attempt: 1,
        endpoint: endpointId,
      },
    );
    assert.equal(context.otlp.problems(), []);
  },
);

Traces.run();
