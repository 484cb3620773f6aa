// One request to the /v1 front, and every way it is answered: a message, a file of the reference page, a catalogue
// error in the shape of its route family, or nothing when the client went away. Each way writes the request line,
// counts the request, and (for a partner call) records it in the request log, so no step of front-server.ts does.
// A step that cannot go on throws a Refusal; the call's `settle` turns whatever a step threw into its answer.
import type http from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import { readServiceError, type ErrorToRender } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import { ClientGone, clientClosedStatus } from "../runtime/client-gone.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import type { FieldViolation } from "../runtime/wire/index.js";
import type { PartnerCallRecord } from "../request-log/index.js";
import type { PartnerIdentity } from "./partner-admission.js";
import type { ReferenceFile } from "./reference-page.js";
import { Refusal } from "./refusal.js";
import { renderError, validationCode } from "./render-error.js";
import type { Family } from "./route-table.js";
import { summarizeViolations } from "./violation-summary.js";

/** What every call of one front shares: where lines, counts and partner records go. */
export interface FrontCallDeps {
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
  requestLog?: { record(call: PartnerCallRecord): void };
  /** The app and environment of a client id (the OAuth endpoints' calls are logged under them); undefined: unknown. */
  identifyClient?: (clientId: string) => Promise<PartnerIdentity | undefined>;
  requestTimeoutMs: number;
}

/** The methods a metric label may name; anything else is "other" (a label's values stay bounded). */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Bounded label values only: a route template, a probe's fixed path, or "unmatched"; never the raw path. */
export function countRequest(
  metrics: Metrics | undefined,
  labels: { family: string; route: string; method: string | undefined; status: number },
  seconds: number,
): void {
  if (!metrics) return;
  const values = {
    family: labels.family,
    route: labels.route,
    method: knownMethods.has(labels.method ?? "") ? labels.method! : "other",
    status: String(labels.status),
  };
  metrics.httpRequests.inc(values);
  metrics.httpRequestDuration.observe(values, seconds);
}

const millisecondsOf = (seconds: number) => Math.round(seconds * 10_000) / 10;

/** One request in flight: its labels, the headers every answer carries, its deadline, and how it is answered. */
export class FrontCall {
  readonly started = performance.now();
  /** The route family whose error shape answers; partner until the route says otherwise. */
  family: Family = "partner";
  /** The metrics' labels: a family of the route table, or "probe" / "openapi"; a route template or "unmatched". */
  familyLabel = "partner";
  routeLabel = "unmatched";
  /** Headers every answer from here on carries (a partner call's X-RateLimit-*, once the gateway knows the app). */
  callHeaders: Record<string, string> = {};
  /** Who the call is from, once the gateway says: the request log records the answer under it. */
  partner: PartnerIdentity | undefined;
  /**
   * The client id an OAuth endpoint's call sent (in its body or by Basic): once answered, the call is logged under
   * that client's app when the id is one (a refused secret included), looked up off the request path.
   */
  clientId: string | undefined;
  /** Aborted when the client goes away or the deadline passes: the service call stops waiting. */
  readonly abort = new AbortController();
  private errorCode: string | undefined;
  private timedOut = false;
  private readonly deadline: NodeJS.Timeout;

  constructor(
    private readonly deps: FrontCallDeps,
    readonly request: http.IncomingMessage,
    readonly response: http.ServerResponse,
    readonly url: URL,
    readonly correlationId: string,
  ) {
    // The client closing before its answer is written aborts the service call; it is counted and logged as what
    // it is (499, info), never as an outage or a 5xx (src/runtime/client-gone.ts).
    response.once("close", () => {
      if (!response.writableFinished) this.abort.abort();
    });
    // The request's own deadline, end to end: whatever it waits for (the body, the database, a region), the client
    // hears 504 server.timeout by then, and the call is aborted so that it stops waiting and frees what it holds.
    this.deadline = setTimeout(() => this.passDeadline(), deps.requestTimeoutMs);
    this.deadline.unref();
  }

  /** Names the call's family and route for its answer's shape, its log line and its metrics. */
  label(family: Family | "probe" | "openapi", route: string): void {
    if (family !== "probe" && family !== "openapi") this.family = family;
    this.familyLabel = family;
    this.routeLabel = route;
  }

  /** Writes the answer, then its request line, metrics and (a partner call's) request-log record. */
  answer(status: number, headers: Record<string, string>, body: object): void {
    const { request, response } = this;
    // Already answered (the deadline, or a client gone): the late outcome of the call is dropped.
    if (response.headersSent || response.destroyed) return;
    clearTimeout(this.deadline);
    const text = JSON.stringify(body);
    // nosniff: every answer is JSON and must never be read as HTML or script, errors and 404s included. With its
    // length known, the head and the body leave in one write, not as chunks (RFC 9112 section 6.2).
    response.writeHead(status, {
      "Content-Type": "application/json",
      "X-Content-Type-Options": "nosniff",
      "X-Correlation-Id": this.correlationId,
      ...this.callHeaders,
      ...headers,
      "Content-Length": String(Buffer.byteLength(text)),
    });
    response.end(text);
    const seconds = (performance.now() - this.started) / 1000;
    this.recordInLog(status, body, seconds);
    // The request line: correlation and trace ids, route, app and company come from the log context.
    this.deps.logger.info("request", {
      method: request.method,
      path: this.url.pathname,
      family: this.familyLabel,
      route: this.routeLabel,
      status,
      ms: millisecondsOf(seconds),
    });
    countRequest(
      this.deps.metrics,
      { family: this.familyLabel, route: this.routeLabel, method: request.method, status },
      seconds,
    );
  }

  /**
   * The request log's record of the answer (after it is written): a partner call under the app the gateway named;
   * an OAuth endpoint's call under the app of the client id it sent, once that is looked up (outside the usage
   * counts: the per-app limit does not apply to it). A success's body is never recorded, a refusal's (our own
   * envelope, or the OAuth error body) is.
   */
  private recordInLog(status: number, body: object, seconds: number): void {
    const log = this.deps.requestLog;
    if (!log || (!this.partner && this.clientId === undefined)) return;
    const call = {
      at: this.deps.clock.now(),
      method: this.request.method ?? "GET",
      path: this.url.pathname,
      status,
      errorCode: this.errorCode,
      correlationId: this.correlationId,
      latencyMs: millisecondsOf(seconds),
      errorBody: status >= 400 ? body : undefined,
    };
    if (this.partner) {
      const { appId, environment, companyId } = this.partner;
      log.record({ ...call, appId, environment, companyId });
      return;
    }
    const identify = this.deps.identifyClient;
    if (!identify || !this.clientId) return;
    void identify(this.clientId).then(
      (client) => {
        if (client) log.record({ ...call, appId: client.appId, environment: client.environment, countsInUsage: false });
      },
      (error: unknown) => this.deps.logger.warn("request log: the client of a token call was not looked up", { error }),
    );
  }

  /** The reference page and its files: HTML, script, style, image, with their own type, cache and CSP headers. */
  answerFile(file: ReferenceFile): void {
    clearTimeout(this.deadline);
    this.response.writeHead(200, {
      "X-Correlation-Id": this.correlationId,
      "Content-Length": String(file.body.length),
      ...file.headers,
    });
    this.response.end(file.body);
    const seconds = (performance.now() - this.started) / 1000;
    // The file's path is one of the reference page's fixed set: a bounded label.
    const route = this.url.pathname;
    this.deps.logger.info("request", {
      method: this.request.method,
      path: route,
      family: "reference",
      route,
      status: 200,
      ms: millisecondsOf(seconds),
    });
    countRequest(this.deps.metrics, { family: "reference", route, method: this.request.method, status: 200 }, seconds);
  }

  /** Answers a catalogue error in the shape of the call's family (server.internal logged with its cause). */
  fail(error: ErrorToRender, cause?: unknown): void {
    const path = this.url.pathname;
    if (error.code === "server.internal") {
      this.deps.logger.error("unexpected failure", { correlationId: this.correlationId, path, error: cause });
    } else if (error.code === "server.database_unavailable") {
      this.deps.logger.warn("database unavailable", { correlationId: this.correlationId, path, error: cause });
    }
    const timestamp = new Date(this.deps.clock.now()).toISOString();
    this.errorCode = error.code;
    const acceptLanguage = this.request.headers["accept-language"];
    const context = { family: this.family, acceptLanguage, path, timestamp, correlationId: this.correlationId };
    const rendered = renderError(error, context);
    if (error.code === "request.body_too_large") rendered.headers["Connection"] = "close";
    this.answer(rendered.status, rendered.headers, rendered.body);
  }

  /**
   * Answers whatever a step threw: a Refusal as its error (a validation failure names at most a few fields, each
   * cut short, so the answer's size is bounded by a constant, never by the input: issue 27), a client gone as 499,
   * anything else as the catalogue error it carries (server.internal when it carries none).
   */
  settle(thrown: unknown): void {
    if (this.timedOut) return;
    if (thrown instanceof Refusal) {
      this.fail(thrown.error ?? this.invalidFields(thrown.violations!));
    } else if (thrown instanceof ClientGone || this.abort.signal.aborted) {
      this.gone(thrown);
    } else {
      const error = readServiceError(thrown);
      this.fail(error, error.code === "server.internal" ? thrown : ((thrown as ConnectError).cause ?? thrown));
    }
  }

  /** A validation failure: the family's validation code, naming a bounded summary of the fields. */
  private invalidFields(violations: readonly FieldViolation[]): ErrorToRender {
    const summary = summarizeViolations(violations);
    return { code: validationCode[this.family], params: { fields: summary.fields }, details: summary.details };
  }

  private passDeadline(): void {
    this.timedOut = true;
    this.abort.abort();
    const ms = this.deps.requestTimeoutMs;
    this.deps.logger.warn("request deadline passed", { path: this.url.pathname, route: this.routeLabel, ms });
    // Whatever of its body is still coming is not read: the connection ends with the answer.
    if (!this.response.headersSent) this.response.setHeader("Connection", "close");
    this.fail({ code: "server.timeout", params: {} });
  }

  private gone(cause: unknown): void {
    clearTimeout(this.deadline);
    const seconds = (performance.now() - this.started) / 1000;
    const { familyLabel: family, routeLabel: route } = this;
    this.deps.logger.info("client went away", {
      method: this.request.method,
      path: this.url.pathname,
      family,
      route,
      status: clientClosedStatus,
      ms: millisecondsOf(seconds),
      reason: cause instanceof ClientGone ? "closed while sending its request" : "closed before its answer",
    });
    countRequest(
      this.deps.metrics,
      { family, route, method: this.request.method, status: clientClosedStatus },
      seconds,
    );
    this.response.destroy();
  }
}
