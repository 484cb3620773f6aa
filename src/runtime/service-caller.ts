// The one way to call a service implementation in process, and the interface a remote caller shares with it.
// The public front, the gateway's region callers and the console call a ServiceImpl directly (DESIGN.md:
// connect-node's stack costs ~1000x the call itself), with a handler context built the way connect builds one, so a
// service reads headers and context values the same way whether it was called over the wire or not. Owners do not
// call each other so: they use each other's plain interface (docs/decisions.md, "How owners talk").
import {
  create,
  type DescMethod,
  type DescMethodUnary,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { ContextValues, HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { LazyHandlerContext } from "./handler-context.js";

/** What travels with a call beside its message: the headers and context values a service reads, and its signal. */
export interface CallOptions {
  /** Only the headers the service reads (Authorization, X-API-Key, Accept-Language); none by default. */
  headers?: Headers;
  values?: ContextValues;
  signal?: AbortSignal;
  /** The URL the handler context reports; `in-process:///<service>/<method>` by default. */
  url?: string;
}

export interface UnaryCall<M extends DescMethodUnary = DescMethodUnary> extends CallOptions {
  method: M;
  /** The request message, or its init shape (normalised with `create`, which returns a message as it is). */
  input: MessageShape<M["input"]> | MessageInitShape<M["input"]>;
}

/** Calls a unary RPC, in process or remotely (src/gateway/regional-data.ts), rejecting with the service's error. */
export interface ServiceCaller {
  call<M extends DescMethodUnary>(call: UnaryCall<M>): Promise<MessageShape<M["output"]>>;
}

/** Options that carry an incoming call's headers, values and signal on to a nested in-process call. */
export function forwardedFrom(context: HandlerContext): CallOptions {
  return { headers: context.requestHeader, values: context.values, signal: context.signal };
}

/** The handler context of an in-process call. */
export function inProcessContext(service: DescService, method: DescMethod, options: CallOptions = {}): HandlerContext {
  return new LazyHandlerContext(service, method, "in-process", options);
}

type AnyHandler = (request: unknown, context: HandlerContext) => unknown;

/** Calls the implementation directly; its answer is normalised to a message as connect does. */
export function createInProcessCaller<S extends DescService>(service: S, impl: ServiceImpl<S>): ServiceCaller {
  const handlers = impl as Record<string, AnyHandler | undefined>;
  return {
    async call<M extends DescMethodUnary>(call: UnaryCall<M>) {
      const handler = handlers[call.method.localName];
      if (!handler || call.method.parent.typeName !== service.typeName) {
        throw new Error(`${service.typeName} has no method ${call.method.parent.typeName}/${call.method.name}`);
      }
      const input = create(call.method.input, call.input as MessageInitShape<M["input"]>);
      const output = await handler(input, inProcessContext(service, call.method, call));
      return create(call.method.output, output as MessageInitShape<M["output"]>) as MessageShape<M["output"]>;
    },
  };
}

/** connect's `Client` shape over an in-process caller: one async function per unary method of the service. */
export type InProcessClient<S extends DescService> = {
  [K in keyof S["method"] as S["method"][K] extends DescMethodUnary ? K : never]: S["method"][K] extends DescMethodUnary
    ? (
        input: MessageInitShape<S["method"][K]["input"]>,
        options?: CallOptions,
      ) => Promise<MessageShape<S["method"][K]["output"]>>
    : never;
};

/** A typed client of `impl`, built on createInProcessCaller (the composition root and tests call services so). */
export function createInProcessClient<S extends DescService>(service: S, impl: ServiceImpl<S>): InProcessClient<S> {
  const caller = createInProcessCaller(service, impl);
  const client: Record<string, unknown> = {};
  for (const method of service.methods) {
    if (method.methodKind !== "unary") continue;
    const unary = method as DescMethodUnary;
    client[method.localName] = (input: MessageInitShape<DescMethodUnary["input"]>, options: CallOptions = {}) =>
      caller.call({ ...options, method: unary, input });
  }
  return client as InProcessClient<S>;
}
