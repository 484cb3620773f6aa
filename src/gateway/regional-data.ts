// Where each region's DataService runs, as the composition root wires it: in this process on the region's database,
// or in another process (`npm start -- --role data --region <r>`) reached over gRPC (connect-node, h2c) when
// REGION_GRPC_URL_<R> is set. The gateway sees one ServiceCaller per configured region either way.
import type { DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { Config } from "../config/config.js";
import type { DataServiceImpl } from "../data/index.js";
import { createInProcessCaller, type ServiceCaller, type UnaryCall } from "../runtime/service-caller.js";
import type { Region } from "../config/regions.js";

/** Calls a remote server through a Connect transport (gRPC, gRPC-Web or Connect), with the same headers and values. */
export function createRemoteCaller(transport: Transport, timeoutMs?: number): ServiceCaller {
  return {
    async call<M extends DescMethodUnary>({ method, input, headers, values, signal }: UnaryCall<M>) {
      const response = await transport.unary(method, signal, timeoutMs, headers, input as MessageInitShape<M["input"]>, values);
      return response.message as MessageShape<M["output"]>;
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
  /** Closes the HTTP/2 sessions of the remote callers. */
  close(): void;
}

/**
 * One caller per region in REGIONS: remote when REGION_GRPC_URL_<R> is set, else the in-process implementation
 * when this process has one (`local`). A region with neither is left out: its partner calls answer
 * partner.region_unavailable.
 */
export function createRegionalCallers(config: Config, local: ReadonlyMap<Region, DataServiceImpl>): RegionalCallers {
  const callers = new Map<Region, ServiceCaller>();
  const sessions: Http2SessionManager[] = [];
  for (const region of config.servedRegions) {
    const url = remoteDataUrl(config, region);
    if (url) {
      const sessionManager = new Http2SessionManager(url);
      sessions.push(sessionManager);
      callers.set(region, createRemoteCaller(createGrpcTransport({ baseUrl: url, sessionManager }), remoteDataTimeoutMs));
      continue;
    }
    const impl = local.get(region);
    if (impl) callers.set(region, createInProcessCaller(DataService, impl));
  }
  return {
    callers,
    close: () => {
      for (const session of sessions) session.abort();
    },
  };
}
