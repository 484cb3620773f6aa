// The client's webhook-endpoint methods on the wire (an injected fetch): HTTP Basic with each part form-encoded
// (RFC 6749 2.3.1), the route and method of each, the body sent, the answer read; an error body surfaced as
// PartnerApiError; no credentials refused before any request. The same methods against the real app: the example
// partner app's test (test/examples/partner-app.test.ts).
import * as assert from "uvu/assert";
import { createPartnerClient, PartnerApiError } from "../../src/client/index.js";
import { suite } from "../support/suite.js";

const Endpoints = suite("client/webhook-endpoints");

const endpoint = {
  id: "we_1",
  url: "https://app.example/hooks",
  events: [],
  environment: "sandbox",
  status: "enabled",
  createdAt: "2026-11-26T10:00:00Z",
};

function recorded(answers: Array<[number, unknown]>) {
  const requests: Array<{ method: string; url: string; authorization: string | null; body: unknown }> = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    requests.push({
      method: init?.method ?? "GET",
      url: String(input),
      authorization: headers.get("authorization"),
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    });
    const [status, body] = answers.shift()!;
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  };
  const client = createPartnerClient({
    baseUrl: "https://api.example",
    clientId: "lp_app:1",
    clientSecret: "s3cret +/",
    fetch,
    sleep: async () => {},
  });
  return { client, requests };
}

Endpoints("each method's route, method and body, with Basic credentials form-encoded before Base64", async () => {
  const { client, requests } = recorded([
    [200, { endpoint, secret: "whsec_a" }],
    [200, { endpoints: [endpoint] }],
    [200, { endpoint: { ...endpoint, status: "enabled" } }],
    [200, { endpoint, secret: "whsec_b" }],
    [200, { eventId: "msg_1" }],
    [200, { deliveries: [], nextCursor: "c2" }],
    [
      200,
      {
        delivery: {
          id: "wd_1",
          eventId: "msg_1",
          eventType: "webhook.test",
          state: "PENDING",
          createdAt: "x",
          attempts: [],
        },
      },
    ],
    [200, { deleted: true }],
  ]);
  const created = await client.webhookEndpoints.create({ url: endpoint.url, events: ["grant.revoked"] });
  assert.equal(created, { endpoint, secret: "whsec_a" });
  assert.equal(await client.webhookEndpoints.list(), [endpoint]);
  assert.is((await client.webhookEndpoints.update("we_1", { enabled: true })).id, "we_1");
  assert.is((await client.webhookEndpoints.rotateSecret("we_1")).secret, "whsec_b");
  assert.equal(await client.webhookEndpoints.sendTest("we_1"), { eventId: "msg_1" });
  assert.equal(await client.webhookEndpoints.deliveries("we_1", { limit: 5, cursor: "c1" }), {
    deliveries: [],
    nextCursor: "c2",
  });
  assert.is((await client.webhookEndpoints.resend("we_1", "wd_1")).eventId, "msg_1");
  await client.webhookEndpoints.remove("we_1");
  const basic = `Basic ${Buffer.from("lp_app%3A1:s3cret%20%2B%2F").toString("base64")}`;
  assert.equal(
    requests.map(({ method, url, body }) => [method, url, body]),
    [
      ["POST", "https://api.example/v1/webhook-endpoints", { url: endpoint.url, events: ["grant.revoked"] }],
      ["GET", "https://api.example/v1/webhook-endpoints", undefined],
      ["PATCH", "https://api.example/v1/webhook-endpoints/we_1", { enabled: true }],
      ["POST", "https://api.example/v1/webhook-endpoints/we_1/rotate-secret", {}],
      ["POST", "https://api.example/v1/webhook-endpoints/we_1/test", {}],
      ["GET", "https://api.example/v1/webhook-endpoints/we_1/deliveries?limit=5&cursor=c1", undefined],
      ["POST", "https://api.example/v1/webhook-endpoints/we_1/deliveries/wd_1/resend", {}],
      ["DELETE", "https://api.example/v1/webhook-endpoints/we_1", undefined],
    ],
  );
  for (const request of requests) assert.is(request.authorization, basic);
});

Endpoints(
  "an error answer is a PartnerApiError with its code; no credentials: client.misconfigured, nothing sent",
  async () => {
    const { client } = recorded([
      [404, { error: { code: "webhook.endpoint_not_found", message: "No such endpoint.", details: [], params: {} } }],
    ]);
    const missing = await client.webhookEndpoints.get("we_9").catch((error: unknown) => error);
    assert.ok(missing instanceof PartnerApiError);
    assert.is(missing.status, 404);
    assert.is(missing.code, "webhook.endpoint_not_found");

    let sent = 0;
    const anonymous = createPartnerClient({
      baseUrl: "https://api.example",
      fetch: async () => {
        sent++;
        return new Response("{}");
      },
    });
    const refused = await anonymous.webhookEndpoints.list().catch((error: unknown) => error);
    assert.ok(refused instanceof PartnerApiError);
    assert.is(refused.code, "client.misconfigured");
    assert.is(sent, 0);
  },
);

Endpoints.run();
