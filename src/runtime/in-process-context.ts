// The handler context of a call made in process (the front, the consent site and the token endpoint calling a
// service implementation directly): built the way connect builds one for its own calls, so a service reads headers
// and context values the same way whether it was called over the wire or not.
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { createContextValues, createHandlerContext, type ContextValues, type HandlerContext } from "@connectrpc/connect";

export interface InProcessCall {
  headers?: Headers;
  values?: ContextValues;
  signal?: AbortSignal;
  url?: string;
}

export function inProcessContext(service: DescService, method: DescMethod, call: InProcessCall = {}): HandlerContext {
  return createHandlerContext({
    service,
    method,
    protocolName: "in-process",
    requestMethod: "POST",
    url: call.url ?? `in-process:///${service.typeName}/${method.name}`,
    requestHeader: call.headers ?? new Headers(),
    contextValues: call.values ?? createContextValues(),
    ...(call.signal ? { requestSignal: call.signal } : {}),
  });
}
