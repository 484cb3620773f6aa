// Renders a response message as the JSON of the spec: protobuf JSON names (lowerCamel), fields with implicit presence
// always present, 64-bit integers as JSON numbers (the spec's ids and amounts are numbers; ours stay below 2^53),
// and enum values in the spec's spellings (FULL, SANDBOX, OWNER: ./spelling.ts), the zero value absent. The OpenAPI
// response schemas (responseJsonSchemas) describe exactly this.
import {
  ScalarType,
  toJson,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence as FieldPresence } from "@bufbuild/protobuf/wkt";
import { isInt64, isTimestamp, wireEnumNameOf, wireEnumValues } from "./spelling.js";

export function messageToJson(schema: DescMessage, message: Message): JsonObject {
  const json = toJson(schema, message, { alwaysEmitImplicit: true }) as JsonObject;
  return numbersForInt64(schema, json);
}

function numbersForInt64(schema: DescMessage, json: JsonObject): JsonObject {
  for (const field of schema.fields) {
    const value = json[field.jsonName];
    if (value === undefined || value === null) continue;
    const converted = convertField(field, value);
    if (converted === undefined) delete json[field.jsonName];
    else json[field.jsonName] = converted;
  }
  return json;
}

/** The wire value of one field; undefined to leave it out (an enum at its zero value: unset, so absent). */
function convertField(field: DescField, value: JsonValue): JsonValue | undefined {
  switch (field.fieldKind) {
    case "scalar":
      return isInt64(field.scalar) ? Number(value) : value;
    case "enum":
      return wireEnumNameOf(field.enum, value as string);
    case "message":
      return numbersForInt64(field.message, value as JsonObject);
    case "list":
      if (field.listKind === "scalar" && isInt64(field.scalar)) return (value as JsonValue[]).map(Number);
      if (field.listKind === "message")
        return (value as JsonObject[]).map((item) => numbersForInt64(field.message, item));
      if (field.listKind === "enum")
        return (value as string[]).flatMap((item) => wireEnumNameOf(field.enum, item) ?? []);
      return value;
    default:
      return value;
  }
}

/**
 * The JSON Schemas of the responses messageToJson writes, one per message `schema` reaches, keyed by its full
 * type name: fields with implicit presence (and every list and map) are always there, so required; a field with
 * explicit presence (`optional`, a message, a oneof member) only when set; 64-bit integers are numbers.
 * `ref(typeName)` says how one message schema points at another (an OpenAPI component reference).
 */
export function responseJsonSchemas(
  schema: DescMessage,
  ref: (typeName: string) => string,
  into: Record<string, JsonObject> = {},
): Record<string, JsonObject> {
  if (Object.hasOwn(into, schema.typeName)) return into;
  const properties: JsonObject = {};
  const required: string[] = [];
  into[schema.typeName] = { type: "object", properties, required, additionalProperties: false };
  for (const field of schema.fields) {
    properties[field.jsonName] = fieldResponseSchema(field, ref, into);
    // An enum is absent at its zero value, so never required.
    const alwaysWritten =
      field.fieldKind === "list" ||
      field.fieldKind === "map" ||
      (field.presence === FieldPresence.IMPLICIT && field.fieldKind !== "enum");
    if (alwaysWritten) required.push(field.jsonName);
  }
  return into;
}

function fieldResponseSchema(
  field: DescField,
  ref: (typeName: string) => string,
  into: Record<string, JsonObject>,
): JsonObject {
  const message = (descriptor: DescMessage): JsonObject => {
    responseJsonSchemas(descriptor, ref, into);
    return { $ref: ref(descriptor.typeName) };
  };
  const enumSchema = (descriptor: Parameters<typeof wireEnumValues>[0]): JsonObject => ({
    type: "string",
    enum: wireEnumValues(descriptor),
  });
  switch (field.fieldKind) {
    case "scalar":
      return isTimestamp(field) ? { type: "string", format: "date-time" } : scalarResponseSchema(field.scalar);
    case "enum":
      return enumSchema(field.enum);
    case "message":
      return message(field.message);
    case "list":
      return {
        type: "array",
        items:
          field.listKind === "scalar"
            ? scalarResponseSchema(field.scalar)
            : field.listKind === "enum"
              ? enumSchema(field.enum)
              : message(field.message),
      };
    case "map":
      return {
        type: "object",
        additionalProperties:
          field.mapKind === "scalar"
            ? scalarResponseSchema(field.scalar)
            : field.mapKind === "enum"
              ? enumSchema(field.enum)
              : message(field.message),
      };
  }
}

function scalarResponseSchema(scalar: ScalarType): JsonObject {
  if (isInt64(scalar)) return { type: "integer", format: "int64" };
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      // protobuf JSON writes NaN and the infinities as strings (the proto3 JSON mapping).
      return { oneOf: [{ type: "number" }, { type: "string", enum: ["NaN", "Infinity", "-Infinity"] }] };
    default:
      return { type: "integer", format: "int32" };
  }
}
