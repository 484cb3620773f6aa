// The seam between the front and the services: the front calls a unary RPC through this interface, served in
// process (a direct call of the implementation, DESIGN.md: connect-node's stack costs ~1000x the call) or by a
// remote server over a Connect transport (a regional DataService in another process).
import { create, type DescMethodUnary, type DescService, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { createContextValues, type ContextValues, type ServiceImpl, type Transport } from "@connectrpc/connect";
import { inProcessContext } from "./in-process-context.js";

export interface UnaryCall<M extends DescMethodUnary = DescMethodUnary> {
  method: M;
  input: MessageShape<M["input"]>;
  /** Only the headers the service reads: Authorization, X-API-Key, Accept-Language. */
  headers: Headers;
  values: ContextValues;
  signal: AbortSignal;
  url: string;
}

export interface ServiceCaller {
  call<M extends DescMethodUnary>(call: UnaryCall<M>): Promise<MessageShape<M["output"]>>;
}

type AnyImpl = Record<string, (request: unknown, context: unknown) => unknown>;

/** Calls the implementation directly, with a handler context built the way connect builds one for its own calls. */
export function createInProcessCaller<S extends DescService>(service: S, impl: ServiceImpl<S>): ServiceCaller {
  const methods = impl as unknown as AnyImpl;
  return {
    async call<M extends DescMethodUnary>({ method, input, headers, values, signal, url }: UnaryCall<M>) {
      const handler = methods[method.localName];
      if (!handler) throw new Error(`${service.typeName} has no method ${method.name}`);
      const context = inProcessContext(service, method, { headers, values, signal, url });
      const output = await handler(input, context);
      // A ServiceImpl may return an init shape rather than a message; normalise it like connect does.
      return create(method.output, output as MessageInitShape<M["output"]>) as MessageShape<M["output"]>;
    },
  };
}

/** Calls a remote server through a Connect transport (gRPC, gRPC-Web or Connect), propagating the same headers. */
export function createRemoteCaller(transport: Transport, timeoutMs?: number): ServiceCaller {
  return {
    async call<M extends DescMethodUnary>({ method, input, headers, values, signal }: UnaryCall<M>) {
      const response = await transport.unary(method, signal, timeoutMs, headers, input as MessageInitShape<M["input"]>, values);
      return response.message as MessageShape<M["output"]>;
    },
  };
}

export { createContextValues };
