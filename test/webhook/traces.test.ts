// A webhook delivery attempt's span links back to the request whose commit recorded the event (issue 41): the
// outbox keeps that request's traceparent, the relay hands it to each delivery, the attempt starts a trace of its own
// linked to it. The app, the partner's receiver and the OTLP/HTTP receiver on real ports; tracing on in this process.
// An order placement is one trace, from the front's span of POST /v1/online-orders down to the region's commit, and
// its online_order.created delivery attempt links back into it.
import * as assert from "uvu/assert";
import { systemClock } from "../../src/runtime/clock.js";
import { roleAttribute, startTracing, type Tracing } from "../../src/runtime/tracing.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { answerOf, newApp, newOrganization, newSandboxMerchant, type Answer } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

interface Context {
  otlp: OtlpReceiver;
  tracing: Tracing;
  app: TestApp;
  target: Receiver;
  pair: { clientId: string; clientSecret: string };
  organizationId: bigint;
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
  context.organizationId = await newOrganization(credentials);
  const made = await newApp(credentials, context.organizationId, Product.FULL, false);
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

/** Every span so far, flushed until `ready` holds (a span reaches the receiver after it ends and its batch goes). */
async function spansWhen(context: Context, ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  let spans = context.otlp.spans();
  for (let flushes = 0; flushes < 100 && !ready(spans); flushes++) {
    await context.tracing.flush();
    spans = context.otlp.spans();
    if (!ready(spans)) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return spans;
}

Traces("an order placement is one trace, and its online_order.created attempt links back into it", async (context) => {
  const credentials = credentialServiceOf(context.app, systemClock);
  const ordering = await newApp(credentials, context.organizationId, Product.ONLINE_ORDER);
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(ordering.sandbox.clientId)}:${encodeURIComponent(ordering.sandbox.clientSecret)}`).toString("base64")}`;
  const target = await startReceiver("ok");
  try {
    const created = await answerOf(
      await fetch(`${context.app.base}/v1/webhook-endpoints`, {
        method: "POST",
        headers: { authorization: basic, "content-type": "application/json" },
        body: JSON.stringify({ url: target.url, events: ["online_order.created"] }),
      }),
    );
    assert.is(created.status, 200, JSON.stringify(created.body));
    const merchant = await newSandboxMerchant(credentials, context.organizationId);
    const minted = await answerOf(
      await fetch(`${context.app.base}/v1/token`, {
        method: "POST",
        headers: { authorization: basic, "content-type": "application/json" },
        body: JSON.stringify({ merchant_id: merchant.companyId }),
      }),
    );
    assert.is(minted.status, 200);
    const bearer = { authorization: `Bearer ${minted.body["access_token"] as string}` };
    const partner = async (path: string, body?: unknown) =>
      fetch(context.app.base + path, {
        method: body === undefined ? "GET" : "POST",
        headers: body === undefined ? bearer : { ...bearer, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const stores = (await answerOf(await partner("/v1/stores"))).body["stores"] as Array<{ id: number }>;
    const items = (await answerOf(await partner("/v1/items?limit=1"))).body["items"] as Array<{ id: number }>;
    const placedResponse = await partner("/v1/online-orders", {
      storeId: stores[0]!.id,
      lines: [{ itemId: items[0]!.id, quantity: 1 }],
      fulfilment: { type: "PICKUP" },
      customer: { name: "Asha Rao" },
      externalReference: "traced-order-1",
    });
    const placed = await answerOf(placedResponse);
    assert.is(placed.status, 200, JSON.stringify(placed.body));
    const traceId = placedResponse.headers.get("x-correlation-id")!.replaceAll("-", "");
    const [delivered] = await target.waitFor(1);
    const eventId = delivered!.headers["webhook-id"];

    const isAttempt = (span: ReceivedSpan) =>
      span.name === "POST webhook" && span.attributes["webhook.event_id"] === eventId;
    const spans = await spansWhen(context, (all) => all.some(isAttempt));
    // One trace: the front's server span is its only root, and every other span's parent is in it.
    const order = spans.filter((span) => span.traceId === traceId);
    const roots = order.filter((span) => span.parentSpanId === "");
    assert.equal(
      roots.map((span) => [span.name, span.kind]),
      [["POST /v1/online-orders", 2]],
    );
    const ids = new Set(order.map((span) => span.spanId));
    assert.equal(
      order.filter((span) => span.parentSpanId !== "" && !ids.has(span.parentSpanId)).map((span) => span.name),
      [],
    );
    assert.is(roots[0]!.attributes["http.response.status_code"], 200);

    // The attempt: a client span, the root of a trace of its own, linked to the span in the order's trace that was
    // current at the commit (a descendant of the request's span).
    const attempt = spans.find(isAttempt)!;
    assert.ok(attempt, "the attempt's span");
    assert.is(attempt.kind, 3);
    assert.is(attempt.parentSpanId, "");
    assert.is.not(attempt.traceId, traceId);
    assert.is(attempt.links.length, 1);
    assert.is(attempt.links[0]!.traceId, traceId);
    const linked = order.find((span) => span.spanId === attempt.links[0]!.spanId);
    assert.ok(linked, `the linked span is in the order's trace: ${JSON.stringify(order.map((span) => span.name))}`);
    let ancestor: ReceivedSpan | undefined = linked;
    while (ancestor && ancestor.parentSpanId !== "")
      ancestor = order.find((span) => span.spanId === ancestor!.parentSpanId);
    assert.is(ancestor?.spanId, roots[0]!.spanId);
    assert.equal(
      {
        type: attempt.attributes["webhook.event_type"],
        outcome: attempt.attributes["webhook.outcome"],
        status: attempt.attributes["http.response.status_code"],
      },
      { type: "online_order.created", outcome: "SUCCEEDED", status: 204 },
    );
    assert.equal(context.otlp.problems(), []);
  } finally {
    await target.close();
  }
});

Traces.run();
