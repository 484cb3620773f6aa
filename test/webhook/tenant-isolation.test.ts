// Tenant isolation of webhook delivery (issue 36) over real ports: ten endpoints of one app whose receivers accept
// the connection and never answer take at most WEBHOOK_APP_CONCURRENCY of a worker's WEBHOOK_WORKER_CONCURRENCY
// attempt slots, so every event of a healthy endpoint of another app of the same organization, and of an app of
// another organization, is delivered while the hanging attempts are all still held open (none yet cut by the
// attempt timeout). No wall time is asserted: the order of the two (every healthy event in, a hanging attempt cut)
// and the count of hanging attempts held at once are.
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { systemClock } from "../../src/runtime/clock.js";
import { answerOf, newApp, newOrganization } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, startTestApp, type TestApp } from "../support/test-app.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

interface Pair {
  clientId: string;
  clientSecret: string;
}

const Isolation = suite("webhook/tenant-isolation");
const workerSlots = 8;
const appSlots = 4;
const healthyEvents = 24;
let app: TestApp;
const receivers: Receiver[] = [];

async function call(pair: Pair, path: string, body: unknown) {
  const authorization = `Basic ${Buffer.from(`${encodeURIComponent(pair.clientId)}:${encodeURIComponent(pair.clientSecret)}`).toString("base64")}`;
  return answerOf(
    await fetch(app.base + path, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/** A receiver in `mode` and the sandbox endpoint of `pair` that points at it. */
async function endpointTo(pair: Pair, mode: "ok" | "hang"): Promise<{ receiver: Receiver; id: string }> {
  const receiver = await startReceiver(mode);
  receivers.push(receiver);
  const created = await call(pair, "/v1/webhook-endpoints", { url: receiver.url });
  assert.is(created.status, 200, JSON.stringify(created.body));
  receiver.secrets.push(created.body["secret"] as string);
  return { receiver, id: (created.body["endpoint"] as { id: string }).id };
}

async function sendTestEvent(pair: Pair, endpointId: string): Promise<string> {
  const sent = await call(pair, `/v1/webhook-endpoints/${endpointId}/test`, {});
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  return sent.body["eventId"] as string;
}

Isolation.before(async () => {
  app = await startTestApp({
    clock: systemClock,
    redis: false,
    env: {
      WEBHOOK_WORKER_CONCURRENCY: String(workerSlots),
      WEBHOOK_APP_CONCURRENCY: String(appSlots),
      // Far longer than the healthy deliveries need: a hanging attempt cut before they are all in is the failure.
      WEBHOOK_TIMEOUT_SECONDS: "30",
      WEBHOOK_RETRY_SCHEDULE_SECONDS: "1",
      WEBHOOK_ALLOW_LOOPBACK: "1",
      SANDBOX_ORDER_AUTOPILOT_SECONDS: "0",
    },
  });
});

Isolation.after(async () => {
  for (const receiver of receivers) {
    receiver.onReleased = undefined;
    await receiver.close();
  }
  await app?.stop();
});

Isolation(
  "ten hanging endpoints of one app hold only its share of the slots; another app's and another organization's events all arrive while they hang",
  async () => {
    const credentials = credentialServiceOf(app, systemClock);
    const organization = await newOrganization(credentials);
    const hostile = await newApp(credentials, organization, Product.FULL);
    const sibling = await newApp(credentials, organization, Product.FULL);
    const stranger = await newApp(credentials, await newOrganization(credentials), Product.FULL);

    const hanging: Array<{ receiver: Receiver; id: string }> = [];
    for (let i = 0; i < 10; i++) hanging.push(await endpointTo(hostile.sandbox, "hang"));
    let arrived = 0;
    let heldAtOnce = 0;
    let cut: () => void = () => {};
    const firstCut = new Promise<"a hanging attempt was cut">((resolve) => {
      cut = () => resolve("a hanging attempt was cut");
    });
    let bound: () => void = () => {};
    const boundReached = new Promise<void>((resolve) => {
      bound = resolve;
    });
    for (const { receiver } of hanging) {
      receiver.onReceived = () => {
        arrived += 1;
        heldAtOnce = Math.max(heldAtOnce, hanging.reduce((sum, h) => sum + h.receiver.held, 0) + 1);
        if (arrived >= appSlots) bound();
      };
      receiver.onReleased = cut;
    }
    // Two events per hanging endpoint: twenty attempts, far more than the worker's eight slots.
    for (const { id } of hanging) {
      await sendTestEvent(hostile.sandbox, id);
      await sendTestEvent(hostile.sandbox, id);
    }
    await boundReached;

    const healthy = [await endpointTo(sibling.sandbox, "ok"), await endpointTo(stranger.sandbox, "ok")];
    const sent: string[][] = [[], []];
    for (let i = 0; i < healthyEvents; i++) {
      sent[0]!.push(await sendTestEvent(sibling.sandbox, healthy[0]!.id));
      sent[1]!.push(await sendTestEvent(stranger.sandbox, healthy[1]!.id));
    }
    // Counted as they arrive (no timer of its own: the suite's limit bounds the wait).
    const allIn = Promise.all(
      healthy.map(
        ({ receiver }) =>
          new Promise<void>((resolve) => {
            receiver.onReceived = () => receiver.received.length >= healthyEvents && resolve();
            if (receiver.received.length >= healthyEvents) resolve();
          }),
      ),
    ).then(() => "every healthy event arrived" as const);
    assert.is(await Promise.race([allIn, firstCut]), "every healthy event arrived");

    // Every hanging attempt started is still held open, and no more were started than the app's share.
    assert.is(arrived, appSlots);
    assert.is(heldAtOnce, appSlots);
    assert.is(
      hanging.reduce((sum, h) => sum + h.receiver.held, 0),
      appSlots,
    );
    for (const [i, { receiver }] of healthy.entries()) {
      assert.equal(
        receiver.received.map((webhook) => webhook.headers["webhook-id"]).sort(),
        [...sent[i]!].sort(),
        "each event once",
      );
      assert.ok(
        receiver.received.every((webhook) => webhook.verified?.type === "webhook.test"),
        "each verified with its endpoint's secret",
      );
    }
  },
);

Isolation.run();
