// A client that closes its connection mid-body (issue 27): it was logged as "database unavailable" and counted as a
// 503, so an alert on 503s fired on impatient clients. Over real ports, at the front and at the consent site: the
// request is logged as "client went away" at info and counted 499 in the metrics; no 503, no outage line.
import { connect } from "node:net";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { sample, scrape, total } from "../support/metrics.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Gone = suite("front/client-gone");
const clock = createManualClock(Date.UTC(2026, 10, 26, 9, 0, 30));
let test: TestApp;

Gone.before(async () => {
  test = await startTestApp({ clock, redis: false });
});
Gone.after(async () => {
  await test.stop();
});

/** Sends the head and part of a body that announces 4,000 bytes, then closes the connection. */
async function closeMidBody(base: string, path: string): Promise<void> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4000\r\n\r\ngrant_type=client_credentials&client_id=`,
  );
  // The server has the head and is reading the body when the client goes.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

/** Waits (bounded) for a log line matching `pattern`: the server notices the close asynchronously. */
async function logged(pattern: RegExp): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const line = test.logs.find((entry) => pattern.test(entry));
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never logged: ${pattern}`);
}

Gone("front: a client closing mid-body is logged as gone and counted 499, never as an outage or a 503", async () => {
  await closeMidBody(test.base, "/v1/oauth/token");
  const line = JSON.parse(await logged(/"client went away"/)) as Record<string, unknown>;
  assert.is(line["status"], 499);
  assert.is(line["route"], "/v1/oauth/token");
  assert.is(line["reason"], "closed while sending its request");
  assert.is(line["level"], "info");
  const metrics = await scrape(test.app.grpc.port);
  assert.is(
    sample(metrics, "partnerapi_http_requests_total", {
      family: "oauth",
      route: "/v1/oauth/token",
      method: "POST",
      status: "499",
    }),
    1,
  );
  assert.is(
    sample(metrics, "partnerapi_http_requests_total", {
      family: "oauth",
      route: "/v1/oauth/token",
      method: "POST",
      status: "503",
    }),
    undefined,
  );
  assert.is(
    total(
      metrics
        .split("\n")
        .filter((l) => l.includes('status="503"'))
        .join("\n"),
      "partnerapi_http_requests_total",
    ),
    0,
  );
  assert.not.ok(
    test.logs.some((entry) => entry.includes("database unavailable")),
    "no outage logged",
  );
});

Gone("consent site: a client closing mid-form is logged 499, not as a database outage", async () => {
  await closeMidBody(test.auth, "/oauth/sign-in");
  const line = JSON.parse(await logged(/"status":499.*"msg":"consent request"/)) as Record<string, unknown>;
  assert.is(line["path"], "/oauth/sign-in");
  assert.not.ok(
    test.logs.some((entry) => entry.includes("database unavailable")),
    "no outage logged",
  );
  assert.not.ok(
    test.logs.some((entry) => entry.includes('"status":503')),
    "no 503",
  );
});

Gone.run();
