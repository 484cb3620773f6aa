// Every metric this program exports, in one place, on one prom-client Registry per running app (tests start several
// apps in one process; a global registry would mix them). Label values are bounded by construction: route templates
// (never raw paths or ids), gRPC code names, fixed reason lists. docs/operations.md, "Metrics", lists each one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { closeGracefully, listen, trackSockets } from "./http-shutdown.js";

/** Latency buckets in seconds: 1 ms to 10 s (the hop's timeout), finer where the API's budget lies. */
const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  registry: Registry;
  /** The front's requests: family (oauth, developer, partner, probe, openapi), route template, method, status. */
  httpRequests: Counter<"family" | "route" | "method" | "status">;
  httpRequestDuration: Histogram<"family" | "route" | "method" | "status">;
  /** The per-app partner rate limit's decisions: allowed or limited. */
  rateLimitDecisions: Counter<"decision">;
  /** Successful token responses by grant_type (sandbox_client_credentials for POST /v1/token). */
  tokensMinted: Counter<"grant_type">;
  /** Rotated-out refresh tokens presented again (RFC 6819 section 5.2.2.3): each revokes its family. */
  refreshReuseDetections: Counter;
  /** Refresh-token families ended by the token service: refresh_reused, code_replayed, app_revoked. */
  familyRevocations: Counter<"reason">;
  /** Calls refused by the token endpoints' throttles (oauth_address, oauth_client, oauth_credential, sandbox_address). */
  throttleRefusals: Counter<"throttle">;
  /** API-key verifications that failed closed (503 partner.api_key_unavailable) because the control database did not answer. */
  apiKeyFailClosed: Counter<"step">;
  /** 1 when the database answers (the readiness probe, asked at scrape time), else 0. */
  databaseUp: Gauge<"database">;
  /** 1 when the configured Redis answers, else 0; always 1 without REDIS_URL (the in-process store). */
  redisUp: Gauge;
  /** Calls over the region hop to a remote DataService, by region and gRPC code name ("OK" for success). */
  regionHopCalls: Counter<"region" | "grpc_code">;
  regionHopDuration: Histogram<"region">;
  /** Calls answered by the internal port, by RPC and gRPC code name. */
  internalCalls: Counter<"method" | "grpc_code">;
  /** Webhook delivery attempts this process ran, by recorded outcome (SUCCEEDED, HTTP_ERROR, TIMEOUT, ...). */
  webhookAttempts: Counter<"outcome">;
  /** Webhook endpoints this process disabled after failing WEBHOOK_DISABLE_AFTER_SECONDS in a row, by environment. */
  webhookEndpointsDisabled: Counter<"environment">;
  /**
   * Sets the webhook backlog gauge from a probe asked at scrape time: the oldest outbox event not yet relayed, and
   * the longest a due attempt has waited for a worker, in seconds (0 when none).
   */
  followWebhookBacklog(probe: () => Promise<{ outbox: number; attempt: number }>): void;
  /** Sets the signing-key age gauge from a probe asked at scrape time: seconds since the signing key began to sign. */
  followSigningKey(probe: () => Promise<number | undefined>): void;
  /**
   * Sets the availability gauges from a probe asked at scrape time (the readiness probe /readyz uses): each name in
   * `databases` is 1 unless the probe says it is down; Redis only counts when one is configured.
   */
  followAvailability(options: {
    databases: readonly string[];
    redis: boolean;
    probe: () => Promise<{ down: readonly string[] }>;
  }): void;
}

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC: prom-client's collectDefaultMetrics); default true. */
  processMetrics?: boolean;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // prom-client asks each metric's collect() before rendering; one probe serves both gauges of a scrape.
  let availability: (() => Promise<void>) | undefined;
  let pending: Promise<void> | undefined;
  const collectAvailability = () => {
    if (!availability) return undefined;
    pending ??= availability().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  const databaseUp = new Gauge({
    name: "partnerapi_database_up",
    help: "Whether each database this process uses answers (1) or not (0).",
    labelNames: ["database"],
    registers,
    collect: collectAvailability,
  });
  const redisUp = new Gauge({
    name: "partnerapi_redis_up",
    help: "Whether the configured Redis answers (1) or not (0).",
    registers,
    collect: collectAvailability,
  });
  return {
    registry,
    httpRequests: new Counter({
      name: "partnerapi_http_requests_total",
      help: "Requests answered by the public front.",
      labelNames: ["family", "route", "method", "status"],
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: "partnerapi_http_request_duration_seconds",
      help: "Time from a request's arrival at the front to its answer.",
      labelNames: ["family", "route", "method", "status"],
      buckets: latencyBuckets,
      registers,
    }),
    rateLimitDecisions: new Counter({
      name: "partnerapi_rate_limit_decisions_total",
      help: "Per-app partner rate limit decisions.",
      labelNames: ["decision"],
      registers,
    }),
    tokensMinted: new Counter({
      name: "partnerapi_tokens_minted_total",
      help: "Access tokens issued, by grant type.",
      labelNames: ["grant_type"],
      registers,
    }),
    refreshReuseDetections: new Counter({
      name: "partnerapi_refresh_reuse_detections_total",
      help: "Rotated-out refresh tokens presented again.",
      registers,
    }),
    familyRevocations: new Counter({
      name: "partnerapi_refresh_family_revocations_total",
      help: "Refresh-token families revoked by the token service, by reason.",
      labelNames: ["reason"],
      registers,
    }),
    throttleRefusals: new Counter({
      name: "partnerapi_throttle_refusals_total",
      help: "Calls refused by the token endpoints' throttles.",
      labelNames: ["throttle"],
      registers,
    }),
    apiKeyFailClosed: new Counter({
      name: "partnerapi_api_key_fail_closed_total",
      help: "API-key verifications failed closed: the control database did not answer.",
      labelNames: ["step"],
      registers,
    }),
    databaseUp,
    redisUp,
    regionHopCalls: new Counter({
      name: "partnerapi_region_hop_calls_total",
      help: "Calls to remote regions' DataServices.",
      labelNames: ["region", "grpc_code"],
      registers,
    }),
    regionHopDuration: new Histogram({
      name: "partnerapi_region_hop_duration_seconds",
      help: "Latency of calls to remote regions' DataServices.",
      labelNames: ["region"],
      buckets: latencyBuckets,
      registers,
    }),
    internalCalls: new Counter({
      name: "partnerapi_internal_calls_total",
      help: "Calls answered by the internal port.",
      labelNames: ["method", "grpc_code"],
      registers,
    }),
    ...webhookAndKeyMetrics(registry),
    followAvailability({ databases, redis, probe }) {
      availability = async () => {
        const { down } = await probe();
        for (const name of databases)
          databaseUp.set({ database: name.replace(/^database:/, "") }, down.includes(name) ? 0 : 1);
        redisUp.set(redis && down.includes("redis") ? 0 : 1);
      };
    },
  };
}

/**
 * Webhook delivery's counters, and the gauges a process registers only when it has something to ask at scrape time
 * (a delivering process's webhook backlog, a token issuer's signing key): elsewhere they would read 0 and hide a
 * stalled worker.
 */
function webhookAndKeyMetrics(registry: Registry) {
  const registers = [registry];
  let backlog: (() => Promise<{ outbox: number; attempt: number }>) | undefined;
  const webhookBacklog = new Gauge({
    name: "partnerapi_webhook_backlog_age_seconds",
    help: "Age of the oldest webhook work waiting: an outbox event not yet relayed (stage outbox), a due attempt not yet started (stage attempt).",
    labelNames: ["stage"],
    registers: [],
    async collect() {
      if (!backlog) return;
      // A database that does not answer leaves the series out of this scrape (partnerapi_database_up says why),
      // rather than failing the whole scrape.
      const ages = await backlog().catch(() => undefined);
      this.reset();
      if (!ages) return;
      this.set({ stage: "outbox" }, ages.outbox);
      this.set({ stage: "attempt" }, ages.attempt);
    },
  });
  let signingKey: (() => Promise<number | undefined>) | undefined;
  const signingKeyAge = new Gauge({
    name: "partnerapi_signing_key_age_seconds",
    help: "Seconds since the token signing key that signs now began to sign.",
    registers: [],
    async collect() {
      if (!signingKey) return;
      const age = await signingKey().catch(() => undefined);
      if (age !== undefined) this.set(age);
    },
  });
  return {
    webhookAttempts: new Counter({
      name: "partnerapi_webhook_attempts_total",
      help: "Webhook delivery attempts run by this process, by outcome.",
      labelNames: ["outcome"],
      registers,
    }),
    webhookEndpointsDisabled: new Counter({
      name: "partnerapi_webhook_endpoints_disabled_total",
      help: "Webhook endpoints this process disabled after failing for days in a row, by environment.",
      labelNames: ["environment"],
      registers,
    }),
    followWebhookBacklog(probe: () => Promise<{ outbox: number; attempt: number }>) {
      if (!backlog) registry.registerMetric(webhookBacklog);
      backlog = probe;
    },
    followSigningKey(probe: () => Promise<number | undefined>) {
      if (!signingKey) registry.registerMetric(signingKeyAge);
      signingKey = probe;
    },
  };
}

/** Answers GET /metrics with the registry in the Prometheus text format; false when the request is not that. */
export async function answerMetrics(
  metrics: Metrics,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<boolean> {
  const path = (request.url ?? "/").split("?")[0];
  if (path !== "/metrics") return false;
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain" }).end("method not allowed\n");
    return true;
  }
  const body = await metrics.registry.metrics();
  response.writeHead(200, { "Content-Type": metrics.registry.contentType, "Cache-Control": "no-store" });
  response.end(request.method === "HEAD" ? undefined : body);
  return true;
}

export interface MetricsListener {
  address: AddressInfo;
  close(graceMs: number): Promise<void>;
}

/** METRICS_PORT: a listener of its own that serves only GET /metrics (404 for anything else). */
export async function listenForMetrics(metrics: Metrics, port: number, host: string): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    answerMetrics(metrics, request, response).then(
      (answered) => {
        if (!answered) response.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
      },
      () => {
        if (!response.headersSent) response.writeHead(500, { "Content-Type": "text/plain" });
        response.end();
      },
    );
  });
  const sockets = trackSockets(server);
  const address = await listen(server, port, host);
  return {
    address,
    close: (graceMs) => closeGracefully(server, sockets, graceMs, () => server.closeIdleConnections()),
  };
}
