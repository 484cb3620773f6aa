// The answer of an RPC that is defined in the contract but not built yet: gRPC UNIMPLEMENTED, never a fake success.
import { Code, ConnectError } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";

/** Returns a handler that rejects with UNIMPLEMENTED, naming the method so the log says what was asked for. */
export function notBuilt(service: DescService, method: string): () => never {
  return () => {
    throw new ConnectError(`${service.typeName}/${method} is not built yet`, Code.Unimplemented);
  };
}
