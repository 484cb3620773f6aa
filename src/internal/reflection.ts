// gRPC server reflection (grpc.reflection.v1 and v1alpha), so buf curl and grpcurl can find our schemas unaided.
import {
  create,
  createRegistry,
  toBinary,
  type DescExtension,
  type DescFile,
  type DescService,
  type Registry,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

/** A reflection request with the version-specific type names stripped: v1 and v1alpha share this shape. */
type ReflectionQuery = {
  messageRequest:
    | { case: "fileByFilename"; value: string }
    | { case: "fileContainingSymbol"; value: string }
    | { case: "fileContainingExtension"; value: { containingType: string; extensionNumber: number } }
    | { case: "allExtensionNumbersOfType"; value: string }
    | { case: "listServices"; value: string }
    | { case: undefined; value?: undefined };
};

/** The answer to one request, as a plain init object both versions' response schemas accept. */
type ReflectionAnswer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

/**
 * The schema index one reflection service answers from: every file the given services need, with their
 * transitive imports (well-known types included), each serialised once as a google.protobuf.FileDescriptorProto.
 */
export type ReflectionIndex = {
  /** Full names of the services `list_services` reports, in the order given. */
  readonly serviceNames: readonly string[];
  /**
   * Answers one request. `sent` holds the file names already sent on this stream: as grpc-go does, the
   * requested file always comes first and its transitive imports follow unless the stream already has them.
   */
  answer(query: ReflectionQuery, sent: Set<string>): ReflectionAnswer;
};

/**
 * Builds the index from the generated service descriptors. Pass every service the server exposes, the reflection
 * services and `grpc.health.v1.Health` included: `list_services` reports exactly this list. `files` adds schemas no
 * service imports but clients may need, such as the error detail messages (`file_google_rpc_error_details`) that
 * buf curl resolves to print details.
 */
export function createReflectionIndex(
  services: readonly DescService[],
  files: readonly DescFile[] = [],
): ReflectionIndex {
  const byName = new Map<string, DescFile>();
  const visit = (file: DescFile): void => {
    const fileName = protoFileName(file);
    if (byName.has(fileName)) return;
    byName.set(fileName, file);
    file.dependencies.forEach(visit);
  };
  for (const service of services) visit(service.file);
  files.forEach(visit);

  const registry: Registry = createRegistry(...byName.values());
  const encoded = new Map<string, Uint8Array>();
  const encode = (file: DescFile): Uint8Array => {
    const fileName = protoFileName(file);
    let bytes = encoded.get(fileName);
    if (bytes === undefined) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      encoded.set(fileName, bytes);
    }
    return bytes;
  };

  const withDependencies = (file: DescFile, sent: Set<string>): ReflectionAnswer => {
    const out: Uint8Array[] = [];
    const queue: DescFile[] = [file];
    for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
      const fileName = protoFileName(current);
      if (out.length > 0 && sent.has(fileName)) continue;
      sent.add(fileName);
      out.push(encode(current));
      queue.push(...current.dependencies);
    }
    return { case: "fileDescriptorResponse", value: { fileDescriptorProto: out } };
  };

  const extensionsOf = (typeName: string): DescExtension[] => {
    const found: DescExtension[] = [];
    for (const desc of registry) {
      if (desc.kind === "extension" && desc.extendee.typeName === typeName) found.push(desc);
    }
    return found;
  };

  const fileOfSymbol = (symbol: string): DescFile | undefined => {
    const desc = registry.get(symbol);
    if (desc !== undefined) return desc.file;
    // Methods, fields, oneofs and enum values are not registry entries: look in their parent.
    const dot = symbol.lastIndexOf(".");
    if (dot < 0) return undefined;
    const parent = registry.get(symbol.slice(0, dot));
    const member = symbol.slice(dot + 1);
    switch (parent?.kind) {
      case "service":
        return parent.methods.some((m) => m.name === member) ? parent.file : undefined;
      case "message":
        return parent.fields.some((f) => f.name === member) || parent.oneofs.some((o) => o.name === member)
          ? parent.file
          : undefined;
      default:
        break;
    }
    // Enum values are scoped as siblings of their enum.
    for (const desc of registry) {
      if (desc.kind === "enum" && desc.values.some((v) => symbol === siblingName(desc.typeName, v.name))) {
        return desc.file;
      }
    }
    return undefined;
  };

  const serviceNames = services.map((s) => s.typeName);

  return {
    serviceNames,
    answer(query, sent) {
      const request = query.messageRequest;
      switch (request.case) {
        case "listServices":
          return { case: "listServicesResponse", value: { service: serviceNames.map((name) => ({ name })) } };
        case "fileByFilename": {
          const file = byName.get(request.value);
          return file ? withDependencies(file, sent) : notFound(`file not found: ${request.value}`);
        }
        case "fileContainingSymbol": {
          const file = fileOfSymbol(request.value);
          return file ? withDependencies(file, sent) : notFound(`symbol not found: ${request.value}`);
        }
        case "fileContainingExtension": {
          const { containingType, extensionNumber } = request.value;
          const extendee = registry.getMessage(containingType);
          const extension = extendee ? registry.getExtensionFor(extendee, extensionNumber) : undefined;
          return extension
            ? withDependencies(extension.file, sent)
            : notFound(`extension not found: ${containingType} ${extensionNumber}`);
        }
        case "allExtensionNumbersOfType": {
          if (registry.getMessage(request.value) === undefined) return notFound(`type not found: ${request.value}`);
          const numbers = extensionsOf(request.value).map((e) => e.number);
          return {
            case: "allExtensionNumbersResponse",
            value: { baseTypeName: request.value, extensionNumber: numbers.sort((a, b) => a - b) },
          };
        }
        default:
          return {
            case: "errorResponse",
            value: { errorCode: Code.InvalidArgument, errorMessage: "invalid message_request" },
          };
      }
    },
  };
}

/**
 * The grpc.reflection.v1 ServerReflection implementation: one bidirectional stream, one response per request,
 * each echoing its request; a file is sent at most once per stream unless asked for by name.
 */
export function createReflectionV1(index: ReflectionIndex): ServiceImpl<typeof v1.ServerReflection> {
  return {
    async *serverReflectionInfo(requests) {
      const sent = new Set<string>();
      for await (const request of requests) {
        yield create(v1.ServerReflectionResponseSchema, {
          validHost: request.host,
          originalRequest: request,
          messageResponse: index.answer(request, sent),
        });
      }
    },
  };
}

/** The same service under the grpc.reflection.v1alpha name, which older clients (and buf curl's fallback) use. */
export function createReflectionV1alpha(index: ReflectionIndex): ServiceImpl<typeof v1alpha.ServerReflection> {
  return {
    async *serverReflectionInfo(requests) {
      const sent = new Set<string>();
      for await (const request of requests) {
        yield create(v1alpha.ServerReflectionResponseSchema, {
          validHost: request.host,
          originalRequest: request,
          messageResponse: index.answer(request, sent),
        });
      }
    },
  };
}

/**
 * Registers reflection v1 and v1alpha on the router. `services` is everything `list_services` reports and, with
 * their imports and the optional extra `files`, every schema reflection can describe: pass the reflection services
 * and Health along with our own, for example
 * `registerReflection(router, [TokenService, ...reflectionServices, Health], [file_google_rpc_error_details])`.
 */
export function registerReflection(
  router: ConnectRouter,
  services: readonly DescService[],
  files: readonly DescFile[] = [],
): void {
  const index = createReflectionIndex(services, files);
  router.service(v1.ServerReflection, createReflectionV1(index));
  router.service(v1alpha.ServerReflection, createReflectionV1alpha(index));
}

/** The descriptors of both reflection services, for the list passed to {@link registerReflection}. */
export const reflectionServices: readonly DescService[] = [v1.ServerReflection, v1alpha.ServerReflection];

/** `foo/bar.proto`: DescFile.name drops the suffix, reflection clients ask with it. */
function protoFileName(file: DescFile): string {
  return file.proto.name;
}

/** Enum values live in the scope enclosing their enum: `pkg.Enum` + `VALUE` is `pkg.VALUE`. */
function siblingName(typeName: string, name: string): string {
  const dot = typeName.lastIndexOf(".");
  return dot < 0 ? name : `${typeName.slice(0, dot)}.${name}`;
}

function notFound(message: string): ReflectionAnswer {
  return { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: message } };
}
