// Request validation on the internal port by the rules the public front applies (the (partnerapi.v1.field) options,
// src/runtime/wire/), so the internal port cannot be fed what the public one refuses: a refused request
// is INVALID_ARGUMENT request.invalid_fields naming each field, with the violations as details.
import { ScalarType, toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { serviceErrorWithDetails } from "../errors/index.js";
import { createRequestSchema, wireEnumNameOf, type RequestSchema } from "../runtime/wire/index.js";

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
    const json = asWireJson(request.method.input, toJson(request.method.input, request.message));
    const result = schemaOf(request.method.input).validate(json, "json", {});
    if (!result.ok) {
      const fields = [...new Set(result.violations.map((violation) => violation.field))].join(", ");
      throw serviceErrorWithDetails(request.service.typeName, "request.invalid_fields", { fields }, result.violations);
    }
    return next(request);
  };
}

const int64Kinds = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

/**
 * The request as the front's schema reads it (the public wire): protobuf JSON writes 64-bit integers as strings, which
 * become the JSON numbers of our wire (jstype = JS_NUMBER; a value beyond 2^53 becomes an unsafe number, which the
 * schema refuses as out of range, as the front does), and enum proto names, which become their wire spellings
 * (../runtime/wire/spelling.ts: PRODUCT_FULL -> FULL). Internal callers keep sending proto messages; only the check
 * reads them in the wire's spelling. A zero enum value keeps its proto name, so the schema refuses it like the front.
 */
function asWireJson(message: DescMessage, json: JsonValue): JsonValue {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return json;
  const out: Record<string, JsonValue> = { ...json };
  for (const field of message.fields) {
    const value = out[field.jsonName];
    if (value === undefined) continue;
    const convert = (item: JsonValue): JsonValue => {
      if (field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar")) {
        return int64Kinds.has(field.scalar!) && typeof item === "string" ? Number(item) : item;
      }
      if (field.fieldKind === "enum" || (field.fieldKind === "list" && field.listKind === "enum")) {
        return typeof item === "string" ? (wireEnumNameOf(field.enum!, item) ?? item) : item;
      }
      if (field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message"))
        return asWireJson(field.message!, item);
      return item;
    };
    out[field.jsonName] = Array.isArray(value) && field.fieldKind === "list" ? value.map(convert) : convert(value);
  }
  return out;
}
