// Where each region's DataService runs, as the composition root wires it: in this process on the region's database,
// or in another process (`npm start -- --role data --region <r>`) reached over gRPC on @grpc/grpc-js (its
// REGION_GRPC_PORT; h2c for http: URLs, TLS for https:, ./grpc-js-caller.ts) when REGION_GRPC_URL_<R> is set. The gateway sees one ServiceCaller per configured region
// either way. The hop authenticates as the `front` role (REGION_GRPC_CREDENTIAL_FILE) and carries only what the
// DataService reads (docs/decisions.md, "Internal port"): never a partner's bearer token or API key.
import type { DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { Config } from "../config/config.js";
import { partnerAppHeader, partnerEnvironmentHeader, storeScopeHeader, type DataServiceImpl } from "../data/index.js";
import { serviceError } from "../errors/index.js";
import { correlationHeader } from "../runtime/caller-context.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { traceparentHeader } from "../runtime/trace-context.js";
import { inRpcSpan } from "../runtime/spans.js";
import { createInProcessCaller, type ServiceCaller, type UnaryCall } from "../runtime/service-caller.js";
import type { Region } from "../config/regions.js";
import { createGrpcJsCaller, type GrpcJsCaller } from "./grpc-js-caller.js";

/**
 * The only request headers that cross the hop: what a DataService reads, the call's correlation id and its W3C
 * trace context. The one list every hop transport sends (a region's data role logs with the same ids).
 */
export const hopHeaders = [
  "accept-language",
  correlationHeader,
  traceparentHeader,
  storeScopeHeader,
  partnerAppHeader,
  partnerEnvironmentHeader,
] as const;

/** Calls a remote server through a Connect transport (gRPC, gRPC-Web or Connect), with the same headers and values. */
export function createRemoteCaller(transport: Transport, timeoutMs?: number): ServiceCaller {
  return {
    async call<M extends DescMethodUnary>({ method, input, headers, values, signal }: UnaryCall<M>) {
      const response = await transport.unary(
        method,
        signal,
        timeoutMs,
        headers,
        input as MessageInitShape<M["input"]>,
        values,
      );
      return response.message as MessageShape<M["output"]>;
    },
  };
}

/**
 * A region's remote caller as the gateway uses it: only `hopHeaders` cross; a region that refuses this front's
 * credential (unauthenticated, or a role it does not admit) is a misconfigured deployment the partner cannot fix,
 * so it answers partner.region_unavailable (503) and the detail goes to the log, never a pass and never a 500.
 */
export function createRegionCaller(
  region: Region,
  remote: ServiceCaller,
  logger: Logger,
  metrics?: Metrics,
): ServiceCaller {
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    if (!metrics) return work();
    const started = performance.now();
    let grpcCode = "OK";
    try {
      return await work();
    } catch (error) {
      grpcCode = Code[ConnectError.from(error).code] ?? "Unknown";
      throw error;
    } finally {
      metrics.regionHopCalls.inc({ region, grpc_code: grpcCode });
      metrics.regionHopDuration.observe({ region }, (performance.now() - started) / 1000);
    }
  };
  return {
    async call(call) {
      const headers = new Headers();
      for (const name of hopHeaders) {
        const value = call.headers?.get(name);
        if (value !== null && value !== undefined) headers.set(name, value);
      }
      try {
        // The hop is a client span; its traceparent replaces the front's, so the data role's span is its child.
        return await inRpcSpan(
          {
            kind: "client",
            service: call.method.parent.typeName,
            method: call.method.name,
            system: "grpc",
            headers,
            codeOf: (error) => (error instanceof ConnectError ? error.code : undefined),
          },
          () => counted(() => remote.call({ ...call, headers })),
        );
      } catch (error) {
        if (
          error instanceof ConnectError &&
          (error.code === Code.Unauthenticated || error.code === Code.PermissionDenied)
        ) {
          logger.error("region refused this front's service credential", {
            region,
            grpcCode: Code[error.code],
            correlationId: headers.get(correlationHeader) ?? undefined,
          });
          throw serviceError(DataService.typeName, "partner.region_unavailable", {}, error);
        }
        // A stream or connection reset this front did not ask for (e.g. h2c against a TLS-only port: RST_STREAM CANCEL,
        // RFC 9113 section 8.4, or ECONNRESET, by timing) is an unreachable region, as a refused connection is: 503
        // server.unavailable, never a 500. The region's own answers carry an ErrorInfo; no catalogue code is either.
        const uncoded = error instanceof ConnectError && error.findDetails(ErrorInfoSchema).length === 0;
        const reset = uncoded && (error.code === Code.Canceled || error.code === Code.Aborted);
        if (reset && !call.signal?.aborted) {
          logger.error("region hop failed: the connection was reset", {
            region,
            grpcCode: Code[error.code],
            error: error.rawMessage,
            correlationId: headers.get(correlationHeader) ?? undefined,
          });
          throw serviceError(DataService.typeName, "server.unavailable", {}, error);
        }
        // A data role that is not there (connection refused, host unreachable) is Unavailable with the socket error as
        // its cause. Coded here: read bare, that cause (ECONNREFUSED) would pass for this front's own database being
        // down (server.database_unavailable, Retry-After), which it is not (docs/decisions.md, "Regions").
        if (uncoded && error.code === Code.Unavailable) {
          logger.error("region hop failed: the region is unreachable", {
            region,
            error: error.rawMessage,
            correlationId: headers.get(correlationHeader) ?? undefined,
          });
          throw serviceError(DataService.typeName, "server.unavailable", {}, error);
        }
        throw error;
      }
    },
  };
}

/** How long the front waits for a remote DataService before answering server.timeout. */
export const remoteDataTimeoutMs = 10_000;

/** The remote DataService URL configured for `region`, if any. */
export function remoteDataUrl(config: Config, region: Region): string | undefined {
  return config.regions[region].grpcUrl;
}

export interface RegionalCallers {
  callers: ReadonlyMap<Region, ServiceCaller>;
  /** Closes the channels of the remote callers. */
  close(): void;
}

export interface RemoteRegionOptions {
  /** The `front` service credential presented to every remote region; absent: none (each region refuses). */
  credential: string | undefined;
  /** Extra trusted CA certificates (PEM) for https region URLs. */
  ca: Buffer | undefined;
  logger: Logger;
  /** Counts the hop's calls and latency; absent: not counted. */
  metrics?: Metrics;
}

/**
 * One caller per region in REGIONS: remote when REGION_GRPC_URL_<R> is set, else the in-process implementation
 * when this process has one (`local`). A region with neither is left out: its partner calls answer
 * partner.region_unavailable.
 */
export function createRegionalCallers(
  config: Config,
  local: ReadonlyMap<Region, DataServiceImpl>,
  remote: RemoteRegionOptions,
): RegionalCallers {
  const callers = new Map<Region, ServiceCaller>();
  const channels: GrpcJsCaller[] = [];
  for (const region of config.servedRegions) {
    const url = remoteDataUrl(config, region);
    if (url) {
      // One channel per region for the life of the process, closed on shutdown.
      const channel = createGrpcJsCaller(url, {
        credential: remote.credential,
        ca: remote.ca,
        timeoutMs: remoteDataTimeoutMs,
      });
      channels.push(channel);
      callers.set(region, createRegionCaller(region, channel, remote.logger, remote.metrics));
      continue;
    }
    const impl = local.get(region);
    if (impl) callers.set(region, createInProcessCaller(DataService, impl));
  }
  return {
    callers,
    close: () => {
      for (const channel of channels) channel.close();
    },
  };
}
