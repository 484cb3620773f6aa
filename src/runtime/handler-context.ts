// The handler context of a call this process serves without connect's router: in process (./service-caller.ts) and
// over the hop between roles (src/internal/region-grpc-server.ts). connect's createHandlerContext copies the request
// headers and makes two more Headers, a deadline timer and a linked AbortController on every call (CPU profiles of
// the front and of the data role showed them); here each field is the call's own or is made only when read.
import { createContextValues, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import type { DescMethod, DescService } from "@bufbuild/protobuf";

/** What the call already has; anything absent is made when a handler first reads it. */
export interface CallFields {
  /** Absent: `<protocol>:///<service>/<method>`. */
  url?: string;
  /** The call's signal (shared, not copied: a handler only listens to it); absent: one that never aborts. */
  signal?: AbortSignal;
  headers?: Headers;
  values?: ContextValues;
  /** The caller's deadline (epoch ms); absent: none. */
  deadline?: number;
}

export class LazyHandlerContext implements HandlerContext {
  readonly requestMethod = "POST";
  readonly values: ContextValues;
  private requestHeaders: Headers | undefined;
  private responseHeaders: Headers | undefined;
  private responseTrailers: Headers | undefined;
  private ownSignal: AbortSignal | undefined;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    readonly protocolName: string,
    private readonly fields: CallFields,
  ) {
    this.values = fields.values ?? createContextValues();
    this.requestHeaders = fields.headers;
  }

  get url(): string {
    return this.fields.url ?? `${this.protocolName}:///${this.service.typeName}/${this.method.name}`;
  }
  get signal(): AbortSignal {
    if (this.fields.signal) return this.fields.signal;
    this.ownSignal ??= new AbortController().signal;
    return this.ownSignal;
  }
  get requestHeader(): Headers {
    this.requestHeaders ??= new Headers();
    return this.requestHeaders;
  }
  get responseHeader(): Headers {
    this.responseHeaders ??= new Headers();
    return this.responseHeaders;
  }
  get responseTrailer(): Headers {
    this.responseTrailers ??= new Headers();
    return this.responseTrailers;
  }
  /** What is left of the caller's deadline, if it sent one. */
  readonly timeoutMs = (): number | undefined =>
    this.fields.deadline === undefined ? undefined : Math.max(0, this.fields.deadline - Date.now());
}
