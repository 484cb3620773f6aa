// A mail's send links back to the request that asked for it (issue 41): the queued job keeps that request's sampled
// traceparent (src/console/mail-queue.ts), and each try to send is the root of a trace of its own linked to it, as a
// webhook attempt is. The app, its durable mail queue and the OTLP/HTTP receiver on real ports; tracing on in this
// process, exported in the default encoding (http/protobuf).
import * as assert from "uvu/assert";
import type { Mail, MailTransport } from "../../src/console/mail.js";
import { systemClock } from "../../src/runtime/clock.js";
import { roleAttribute, startTracing, type Tracing } from "../../src/runtime/tracing.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

interface Context {
  otlp: OtlpReceiver;
  tracing: Tracing;
  app: TestApp;
  sent: Mail[];
  /** Recipients whose first send fails (a server refusing once): their mail is sent on the second try. */
  failOnce: Set<string>;
}

const Traces = suite<Context>("console/mail-traces");

Traces.before(async (context) => {
  context.otlp = await startOtlpReceiver();
  context.tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: context.otlp.url }, { [roleAttribute]: "all" })!;
  context.sent = [];
  context.failOnce = new Set();
  const transport: MailTransport = {
    async send(mail) {
      if (context.failOnce.delete(mail.to))
        throw Object.assign(new Error("421 try again later"), { code: "EENVELOPE" });
      context.sent.push(mail);
    },
  };
  context.app = await startTestApp({ clock: systemClock, redis: false, mailTransport: transport });
});

Traces.after(async (context) => {
  await context.app?.stop();
  await context.tracing?.shutdown();
  await context.otlp?.close();
});

/** Signs `email` up (which queues its verification mail); the trace id of the request, from its correlation id. */
async function signUp(context: Context, email: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${context.app.base}/v1/console/account/sign-up`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password: "correct horse battery staple" }),
  });
  assert.is(response.status, 200, await response.clone().text());
  return response.headers.get("x-correlation-id")!.replaceAll("-", "");
}

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

const address = (name: string) => `${name}.${process.pid}.${Date.now()}@partner.test`;

Traces(
  "each try to send a mail is a span of its own trace, linked to the request that asked for it",
  async (context) => {
    const email = address("traced");
    context.failOnce.add(email);
    const traceId = await signUp(context, email);
    await context.app.app.mail.idle();
    assert.equal(context.sent.filter((mail) => mail.to === email).length, 1, "sent on the second try");

    const messageId = context.sent.find((mail) => mail.to === email)!.messageId!;
    const jobId = /^<([^@]+)@/.exec(messageId)![1]!;
    const isSend = (span: ReceivedSpan) => span.name === "mail send" && span.attributes["mail.job_id"] === jobId;
    const spans = await spansWhen(
      context,
      (all) =>
        all.filter(isSend).length === 2 && all.some((span) => span.traceId === traceId && span.parentSpanId === ""),
    );
    const tries = spans
      .filter(isSend)
      .sort((a, b) => Number(a.attributes["mail.try"]) - Number(b.attributes["mail.try"]));
    assert.equal(
      tries.map((span) => [span.attributes["mail.try"], span.attributes["mail.kind"], span.status, span.kind]),
      [
        [1, "email verification", 2, 3],
        [2, "email verification", 0, 3],
      ],
      "a failed try, then the one that went: client spans",
    );
    const request = spans.filter((span) => span.traceId === traceId);
    const root = request.find((span) => span.parentSpanId === "");
    assert.ok(root, `the request's span: ${JSON.stringify(spans.map((span) => span.name))}`);
    assert.is(root.kind, 2);
    assert.is(root.attributes["http.request.method"], "POST");
    for (const sent of tries) {
      assert.is(sent.parentSpanId, "", "the root of a trace of its own");
      assert.is.not(sent.traceId, traceId);
      assert.is(sent.links.length, 1);
      assert.is(sent.links[0]!.traceId, traceId, "linked into the request's trace");
      // The linked span is the one that queued the mail: in the request's trace, under its server span.
      let linked = request.find((span) => span.spanId === sent.links[0]!.spanId);
      assert.ok(linked, `the linked span is in the request's trace: ${JSON.stringify(request.map((s) => s.name))}`);
      while (linked && linked.parentSpanId !== "") {
        const parentId: string = linked.parentSpanId;
        linked = request.find((span) => span.spanId === parentId);
      }
      assert.is(linked?.spanId, root.spanId);
      // Neither the recipient nor the link is in the span.
      assert.not.ok(JSON.stringify(sent).includes(email.split("@")[0]!), "no recipient in the span");
    }
    assert.not.equal(tries[0]!.traceId, tries[1]!.traceId, "each try is a trace of its own");
    assert.equal(context.otlp.problems(), []);
  },
);

Traces("a request whose caller sampled it out queues a mail whose send links to nothing", async (context) => {
  const email = address("unsampled");
  const unsampled = "6bf92f3577b34da6a3ce929d0e0e4738";
  const traceId = await signUp(context, email, { traceparent: `00-${unsampled}-00f067aa0ba902b9-00` });
  assert.is(traceId, unsampled, "the caller's trace");
  await context.app.app.mail.idle();
  const messageId = context.sent.find((mail) => mail.to === email)!.messageId!;
  const jobId = /^<([^@]+)@/.exec(messageId)![1]!;
  const isSend = (span: ReceivedSpan) => span.name === "mail send" && span.attributes["mail.job_id"] === jobId;
  const spans = await spansWhen(context, (all) => all.some(isSend));
  const sent = spans.find(isSend);
  assert.ok(sent, "the send is traced by this process's own sampler");
  assert.equal(sent.links, [], "no link to a trace nobody records");
  assert.equal(
    spans.filter((span) => span.traceId === unsampled),
    [],
  );
});

Traces.run();
