// The front's side of the region hop on @grpc/grpc-js: one channel per region (a grpc.Client, opened once and
// reused by every call), calling the data role's grpc-js port (REGION_GRPC_PORT) at REGION_GRPC_URL_<R>: cleartext
// h2c for http:, TLS for https: (trusting REGION_GRPC_CA when set). It implements ServiceCaller as the in-process
// caller does; its errors are the ConnectErrors connect's gRPC transport raised (src/runtime/grpc-js-wire.ts), so
// createRegionCaller's mapping holds unchanged.
import type { DescMethodUnary, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { serviceCredentialHeader } from "../runtime/caller-context.js";
import { connectErrorOf, deserializerOf, grpcPath, metadataOf, serializerOf } from "../runtime/grpc-js-wire.js";
import type { ServiceCaller, UnaryCall } from "../runtime/service-caller.js";

export interface GrpcJsCallerOptions {
  /** The `front` service credential presented on every call (X-Service-Credential); absent: none. */
  credential?: string;
  /** Extra trusted CA certificates (PEM) for an https URL. */
  ca?: Buffer;
  /** Each call's deadline (sent as grpc-timeout); absent: none. */
  timeoutMs?: number;
}

export interface GrpcJsCaller extends ServiceCaller {
  /** Closes the channel; calls in flight end as canceled. */
  close(): void;
}

/** The grpc-js target of a region URL: `host:port` (80 or 443 when the URL names none). */
export function grpcTarget(url: URL): string {
  // WHATWG URL keeps an IPv6 host in its brackets, as a grpc-js target wants it.
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
}

export function createGrpcJsCaller(url: string, options: GrpcJsCallerOptions = {}): GrpcJsCaller {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new Error(`a region URL is http: or https:, not ${parsed.protocol}`);
  const credentials =
    parsed.protocol === "https:" ? grpc.credentials.createSsl(options.ca ?? null) : grpc.credentials.createInsecure();
  const open = () =>
    new grpc.Client(grpcTarget(parsed), credentials, {
      "grpc.initial_reconnect_backoff_ms": 200,
      "grpc.max_reconnect_backoff_ms": 2_000,
      "grpc.keepalive_time_ms": 60_000,
      "grpc.keepalive_timeout_ms": 20_000,
    });
  let client = open();
  /**
   * The region's channel, replaced when its last connection attempt failed: grpc-js would fail every call fast until
   * its reconnect backoff ends, so a data role that is back would stay unreachable for up to that long, and from each
   * front at a different moment. A fresh channel connects on this call, as connect-node's session manager did; while
   * the region is down that is one connection attempt at a time (the calls that arrive meanwhile share it).
   */
  const channel = () => {
    if (client.getChannel().getConnectivityState(false) === grpc.connectivityState.TRANSIENT_FAILURE) {
      client.close();
      client = open();
    }
    return client;
  };
  const serializers = new Map<
    DescMethodUnary,
    { serialize: (value: object) => Buffer; deserialize: (bytes: Buffer) => unknown }
  >();
  const codecOf = (method: DescMethodUnary) => {
    let codec = serializers.get(method);
    if (!codec) {
      codec = { serialize: serializerOf(method.input), deserialize: deserializerOf(method.output) };
      serializers.set(method, codec);
    }
    return codec;
  };
  return {
    call<M extends DescMethodUnary>({
      method,
      input,
      headers,
      signal,
    }: UnaryCall<M>): Promise<MessageShape<M["output"]>> {
      const metadata = headers ? metadataOf(headers) : new grpc.Metadata();
      if (options.credential) metadata.set(serviceCredentialHeader, options.credential);
      const codec = codecOf(method);
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(new ConnectError("the call was canceled before it was sent", Code.Canceled));
          return;
        }
        const callOptions: grpc.CallOptions =
          options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
        const onAbort = () => call.cancel();
        const call = channel().makeUnaryRequest(
          grpcPath(method),
          codec.serialize,
          codec.deserialize,
          input as object,
          metadata,
          callOptions,
          (error, response) => {
            signal?.removeEventListener("abort", onAbort);
            if (error) reject(connectErrorOf(error));
            else resolve(response as MessageShape<M["output"]>);
          },
        );
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    close: () => client.close(),
  };
}
