// The metrics registry: one per app, every metric in the Prometheus text format, availability asked at scrape time,
// and METRICS_PORT's listener serving only GET /metrics.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createMetrics, listenForMetrics } from "../../src/runtime/metrics.js";
import { sample } from "../support/metrics.js";

const Metrics = suite("runtime/metrics");

Metrics("two apps' registries are separate; counters and histograms render with their labels", async () => {
  const [one, two] = [createMetrics({ processMetrics: false }), createMetrics({ processMetrics: false })];
  one.tokensMinted.inc({ grant_type: "refresh_token" });
  one.tokensMinted.inc({ grant_type: "refresh_token" });
  one.httpRequestDuration.observe(
    { family: "partner", route: "/v1/items/{id}", method: "PATCH", status: "200" },
    0.003,
  );
  const text = await one.registry.metrics();
  assert.is(sample(text, "partnerapi_tokens_minted_total", { grant_type: "refresh_token" }), 2);
  assert.is(
    sample(text, "partnerapi_http_request_duration_seconds_bucket", {
      family: "partner",
      route: "/v1/items/{id}",
      method: "PATCH",
      status: "200",
      le: "0.005",
    }),
    1,
  );
  assert.is(
    sample(text, "partnerapi_http_request_duration_seconds_bucket", {
      family: "partner",
      route: "/v1/items/{id}",
      method: "PATCH",
      status: "200",
      le: "0.0025",
    }),
    0,
  );
  assert.is(
    sample(await two.registry.metrics(), "partnerapi_tokens_minted_total", { grant_type: "refresh_token" }),
    undefined,
  );
});

Metrics("availability gauges ask the probe at each scrape: down databases and Redis are 0, the others 1", async () => {
  const metrics = createMetrics({ processMetrics: false });
  let down: string[] = [];
  let probes = 0;
  metrics.followAvailability({
    databases: ["database:control", "database:region_us"],
    redis: true,
    probe: async () => {
      probes++;
      return { down };
    },
  });
  let text = await metrics.registry.metrics();
  assert.equal(
    [
      sample(text, "partnerapi_database_up", { database: "control" }),
      sample(text, "partnerapi_database_up", { database: "region_us" }),
      sample(text, "partnerapi_redis_up"),
    ],
    [1, 1, 1],
  );
  assert.is(probes, 1, "one probe serves both gauges of a scrape");
  down = ["database:region_us", "redis"];
  text = await metrics.registry.metrics();
  assert.equal(
    [
      sample(text, "partnerapi_database_up", { database: "control" }),
      sample(text, "partnerapi_database_up", { database: "region_us" }),
      sample(text, "partnerapi_redis_up"),
    ],
    [1, 0, 0],
  );
});

Metrics("process metrics are collected into the app's registry", async () => {
  const text = await createMetrics().registry.metrics();
  assert.ok(sample(text, "process_cpu_user_seconds_total") !== undefined);
  assert.ok(sample(text, "nodejs_heap_size_used_bytes") !== undefined);
});

Metrics("METRICS_PORT serves GET /metrics in the text format, 405 for another method, 404 elsewhere", async () => {
  const metrics = createMetrics({ processMetrics: false });
  metrics.throttleRefusals.inc({ throttle: "oauth_address" });
  const listener = await listenForMetrics(metrics, 0, "127.0.0.1");
  try {
    const origin = `http://127.0.0.1:${listener.address.port}`;
    const scrape = await fetch(`${origin}/metrics`);
    assert.is(scrape.status, 200);
    assert.is(scrape.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.is(sample(await scrape.text(), "partnerapi_throttle_refusals_total", { throttle: "oauth_address" }), 1);
    const post = await fetch(`${origin}/metrics`, { method: "POST" });
    assert.equal([post.status, post.headers.get("allow")], [405, "GET, HEAD"]);
    assert.is((await fetch(`${origin}/v1/items`)).status, 404);
  } finally {
    await listener.close(1000);
  }
});

Metrics.run();
