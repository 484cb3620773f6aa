// The internal port: the five services over connect-node, gRPC / gRPC-Web / Connect on HTTP/2 and HTTP/1.1 on one
// port. Cleartext (h2c) by default, each connection routed by sniffing the HTTP/2 connection preface (RFC 9113
// section 3.4); with a certificate, TLS only, the protocol chosen by ALPN. Every call passes the interceptors:
// access log and correlation id, error normalisation, service-credential authentication, request validation.
// GET /metrics (Prometheus text format) is answered before the RPC router, anonymous like health: the port is
// never published (docs/operations.md, "Metrics").
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import type { AddressInfo, Socket } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { createConnectRouter, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import { answerMetrics, type Metrics } from "../runtime/metrics.js";
import { closeGracefully, listen, trackSockets } from "../runtime/http-shutdown.js";
import { accessPolicy, checkAccessPolicy, type AccessPolicy } from "./access-policy.js";
import { createAccessLogInterceptor } from "./access-log-interceptor.js";
import { createTracingInterceptor } from "./tracing-interceptor.js";
import { createAuthInterceptor } from "./auth-interceptor.js";
import { createErrorInterceptor } from "./error-interceptor.js";
import type { ServiceCredentials } from "./service-credentials.js";
import { createValidationInterceptor } from "./validation-interceptor.js";

/** Every HTTP/2 connection opens with this preface; HTTP/1.x requests open with a method name, never "PRI ". */
const h2Preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface InternalServerOptions {
  routes: (router: ConnectRouter) => void;
  /** The accepted service credentials. */
  credentials: ServiceCredentials;
  /** PEM certificate chain and key: TLS only (h2 and HTTP/1.1 by ALPN); absent: cleartext. */
  tls?: { cert: Buffer; key: Buffer };
  logger: Logger;
  ids: IdSource;
  /** Who may call what; the app's table (./access-policy.ts) by default. */
  policy?: AccessPolicy;
  /** Served at GET /metrics, and counts the calls; absent: no /metrics. */
  metrics?: Metrics;
}

export interface InternalServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets calls in flight finish for up to `graceMs`, then closes every connection. */
  close(graceMs: number): Promise<void>;
}

/** The services `routes` registers, in registration order. */
function servicesOf(routes: (router: ConnectRouter) => void): DescService[] {
  const probe = createConnectRouter();
  routes(probe);
  return [...new Set(probe.handlers.map((handler) => handler.service))];
}

/**
 * The interceptors of every internal listener (this port, and the region hop's grpc-js port:
 * ./region-grpc-server.ts), outermost first: the call's span (./tracing-interceptor.ts) holds everything; the log sees the final code; errors are normalised before; validation
 * runs once authenticated.
 */
export function internalInterceptors(
  options: { credentials: ServiceCredentials; logger: Logger; ids: IdSource; policy: AccessPolicy; metrics?: Metrics },
  services: readonly DescService[],
): Interceptor[] {
  return [
    createTracingInterceptor(),
    createAccessLogInterceptor({ logger: options.logger, ids: options.ids, metrics: options.metrics }),
    createErrorInterceptor({ logger: options.logger }),
    createAuthInterceptor({ credentials: options.credentials, logger: options.logger, policy: options.policy }),
    createValidationInterceptor({
      services: services
        .filter((service) => service.typeName.startsWith("partnerapi."))
        .map((service) => service.typeName),
    }),
  ];
}

/** Builds the server; throws AccessPolicyError when a served RPC has no row in the access policy. */
export function createInternalServer(options: InternalServerOptions): InternalServer {
  const services = servicesOf(options.routes);
  const policy = options.policy ?? accessPolicy;
  checkAccessPolicy(services, policy);
  const rpc = connectNodeAdapter({
    routes: options.routes,
    interceptors: internalInterceptors({ ...options, policy }, services),
  });
  const metrics = options.metrics;
  const handler: typeof rpc = metrics
    ? (request, response) => {
        if (!(request.url ?? "").startsWith("/metrics")) return rpc(request, response);
        answerMetrics(metrics, request as http.IncomingMessage, response as http.ServerResponse).then(
          (answered) => {
            if (!answered) rpc(request, response);
          },
          (error: unknown) => {
            options.logger.error("metrics could not be rendered", { error });
            if (!response.headersSent) response.writeHead(500);
            response.end();
          },
        );
      }
    : rpc;
  if (options.tls) return secureServer(handler, options.tls);
  const h1 = http.createServer(handler);
  const h2 = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const tcp = net.createServer((socket) => routeBySniffing(socket, h1, h2, options.logger));
  const sockets = trackSockets(tcp);

  return {
    listen: (port, host) => listen(tcp, port, host),
    close: (graceMs) =>
      closeGracefully(tcp, sockets, graceMs, () => {
        h1.closeIdleConnections();
        for (const session of sessions) session.close();
      }),
  };
}

/** TLS only: node:http2's secure server answers HTTP/1.1 too (allowHTTP1), the protocol chosen by ALPN. */
function secureServer(
  handler: ReturnType<typeof connectNodeAdapter>,
  tls: { cert: Buffer; key: Buffer },
): InternalServer {
  const server = http2.createSecureServer(
    { cert: tls.cert, key: tls.key, allowHTTP1: true, minVersion: "TLSv1.2" },
    handler,
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const sockets = trackSockets(server);
  return {
    listen: (port, host) => listen(server, port, host),
    close: (graceMs) =>
      closeGracefully(server, sockets, graceMs, () => {
        for (const session of sessions) session.close();
      }),
  };
}

/** Reads just enough of a new connection to tell HTTP/2 from HTTP/1.1, puts it back, and hands the socket over. */
function routeBySniffing(socket: Socket, h1: http.Server, h2: http2.Http2Server, logger: Logger): void {
  let seen = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    seen = Buffer.concat([seen, chunk]);
    const prefix = h2Preface.subarray(0, Math.min(seen.length, h2Preface.length));
    const couldBeH2 = seen.subarray(0, prefix.length).equals(prefix);
    if (couldBeH2 && seen.length < h2Preface.length) return; // wait for the rest of the preface
    socket.off("data", onData);
    socket.off("error", onError);
    socket.pause();
    socket.unshift(seen);
    if (couldBeH2) {
      // node:http2 feeds bytes already buffered on the socket to its session on the next tick; resuming here
      // would emit them as 'data' to nobody and lose the preface.
      h2.emit("connection", socket);
    } else {
      h1.emit("connection", socket);
      socket.resume();
    }
  };
  const onError = (error: Error) => {
    logger.debug("internal connection failed before its protocol was known", { error: error.message });
    socket.destroy();
  };
  socket.on("data", onData);
  socket.on("error", onError);
}
