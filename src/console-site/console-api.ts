// The console site's one way into the ConsoleService: the implementation the /v1/console routes call, called in
// process exactly as the front calls it (src/front/front-server.ts): the request validated strictly by the same
// schema (src/runtime/wire/), the developer's console access token as the Authorization header, the
// page's language as Accept-Language, and the caller's address in the context values (the console's limits count
// by it). So the web and the API can never disagree: both are the same calls.
import { fromJson, type DescMethodUnary, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { createContextValues, type ServiceImpl } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { entryOf, readServiceError, type ErrorCode } from "../errors/index.js";
import { callerInfoKey, correlationHeader } from "../runtime/caller-context.js";
import type { IdSource } from "../runtime/ids.js";
import { createRequestSchema, type RequestSchema } from "../runtime/wire/index.js";
import { createInProcessCaller } from "../runtime/service-caller.js";

type Methods = typeof ConsoleService.method;
export type ConsoleMethod = keyof Methods;
type Output<K extends ConsoleMethod> = Methods[K] extends DescMethodUnary ? MessageShape<Methods[K]["output"]> : never;

/** A refusal of the API: its catalogue code and params, and the fields it names (for errors shown beside them). */
export interface ApiError {
  code: ErrorCode;
  params: Record<string, string>;
  /** The request fields (JSON names) the error concerns: from its details, or its `fields` param. */
  fields: string[];
  status: number;
  /** The service's field-level details as sent (`[{ field, rule }]`); absent when it sent none. */
  details?: unknown;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };
export type CallResult<K extends ConsoleMethod> = ApiResult<Output<K>>;

/** Who calls: the session's access token (absent before sign-in), the page's language, the client's address. */
export interface CallerOf {
  accessToken?: string;
  locale: string;
  clientAddress: string;
  path: string;
}

export interface ConsoleApi {
  call<K extends ConsoleMethod>(
    method: K,
    fields: Record<string, JsonValue>,
    caller: CallerOf,
  ): Promise<ApiResult<Output<K>>>;
}

export function createConsoleApi(service: ServiceImpl<typeof ConsoleService>, ids: IdSource): ConsoleApi {
  const caller = createInProcessCaller(ConsoleService, service);
  const schemas = new Map<string, RequestSchema>();
  const schemaOf = (method: DescMethodUnary) => {
    let schema = schemas.get(method.localName);
    if (!schema) {
      schema = createRequestSchema(method.input);
      schemas.set(method.localName, schema);
    }
    return schema;
  };
  return {
    async call(name, fields, who) {
      const method = ConsoleService.method[name] as DescMethodUnary;
      // Validated as the front validates a JSON body: unknown fields, wrong types and broken rules are refused
      // with developer.invalid_request naming the fields, before the service runs.
      const validated = schemaOf(method).validate(fields, "json", {});
      if (!validated.ok) {
        const names = [...new Set(validated.violations.map((violation) => violation.field))];
        return {
          ok: false,
          error: {
            code: "developer.invalid_request",
            params: { fields: names.join(", ") },
            fields: names,
            status: 400,
          },
        };
      }
      const correlationId = ids.uuid();
      const headers = new Headers({ [correlationHeader]: correlationId, "accept-language": who.locale });
      if (who.accessToken) headers.set("authorization", `Bearer ${who.accessToken}`);
      const values = createContextValues().set(callerInfoKey, {
        clientAddress: who.clientAddress,
        path: who.path,
        correlationId,
      });
      try {
        const input = fromJson(method.input, validated.value as JsonValue);
        const output = await caller.call({ method, input, headers, values });
        return { ok: true, value: output as Output<typeof name> };
      } catch (cause) {
        const read = readServiceError(cause);
        // An internal failure or an outage is not the form's fault: the site's error page answers it.
        if (read.code === "server.internal" || read.code === "server.database_unavailable") throw cause;
        const params = Object.fromEntries(Object.entries(read.params).map(([key, value]) => [key, String(value)]));
        return {
          ok: false,
          error: {
            code: read.code,
            params,
            fields: fieldsOf(read.details, params),
            status: entryOf(read.code).status,
            ...(read.details === undefined ? {} : { details: read.details }),
          },
        };
      }
    },
  };
}

/** The fields an error concerns: `details[].field`, else the names in its `fields` param. */
function fieldsOf(details: unknown, params: Record<string, string>): string[] {
  if (Array.isArray(details)) {
    const named = details.flatMap((detail) =>
      detail && typeof detail === "object" && typeof (detail as { field?: unknown }).field === "string"
        ? [(detail as { field: string }).field]
        : [],
    );
    if (named.length > 0) return [...new Set(named)];
  }
  return params["fields"]
    ? params["fields"]
        .split(",")
        .map((field) => field.trim())
        .filter(Boolean)
    : [];
}
