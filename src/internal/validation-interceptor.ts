// Request validation on the internal port by the rules the public front applies (the (partnerapi.v1.field) options,
// src/runtime/wire/), so the internal port cannot be fed what the public one refuses: a refused request is
// INVALID_ARGUMENT request.invalid_fields naming each field, with the violations as details. Internal callers keep
// sending proto messages; only the check reads them as the public wire spells them (requestAsSent: 64-bit integers
// as numbers, so a value beyond 2^53 is refused as out of range, and enums in their spellings, the zero value kept
// as its proto name so it is refused like the front refuses it).
import type { DescMessage } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { serviceErrorWithDetails } from "../errors/index.js";
import { createRequestSchema, requestAsSent, type RequestSchema } from "../runtime/wire/index.js";

/** Services whose requests carry our field rules; health and reflection are not ours to validate. */
export function createValidationInterceptor(options: { services: readonly string[] }): Interceptor {
  const validated = new Set(options.services);
  const schemas = new Map<DescMessage, RequestSchema>();
  const schemaOf = (message: DescMessage) => {
    let schema = schemas.get(message);
    if (!schema) {
      schema = createRequestSchema(message);
      schemas.set(message, schema);
    }
    return schema;
  };
  return (next) => async (request) => {
    if (request.stream || !validated.has(request.service.typeName)) return next(request);
    const json = requestAsSent(request.method.input, request.message);
    const result = schemaOf(request.method.input).validate(json, "json", {});
    if (!result.ok) {
      const fields = [...new Set(result.violations.map((violation) => violation.field))].join(", ");
      throw serviceErrorWithDetails(request.service.typeName, "request.invalid_fields", { fields }, result.violations);
    }
    return next(request);
  };
}
