// Renders a response message as the JSON of the spec: protobuf JSON names, fields with implicit presence always
// present, and 64-bit integers as JSON numbers (the spec's ids and amounts are numbers; ours stay below 2^53).
import { toJson, type DescField, type DescMessage, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";

export function messageToJson(schema: DescMessage, message: Message): JsonObject {
  const json = toJson(schema, message, { alwaysEmitImplicit: true }) as JsonObject;
  return numbersForInt64(schema, json);
}

const int64Scalars = new Set([3, 4, 6, 16, 18]); // ScalarType INT64, UINT64, FIXED64, SFIXED64, SINT64

function numbersForInt64(schema: DescMessage, json: JsonObject): JsonObject {
  for (const field of schema.fields) {
    const value = json[field.jsonName];
    if (value === undefined || value === null) continue;
    json[field.jsonName] = convertField(field, value);
  }
  return json;
}

function convertField(field: DescField, value: JsonValue): JsonValue {
  switch (field.fieldKind) {
    case "scalar":
      return int64Scalars.has(field.scalar) ? Number(value) : value;
    case "message":
      return numbersForInt64(field.message, value as JsonObject);
    case "list":
      if (field.listKind === "scalar" && int64Scalars.has(field.scalar)) return (value as JsonValue[]).map(Number);
      if (field.listKind === "message") return (value as JsonObject[]).map((item) => numbersForInt64(field.message, item));
      return value;
    default:
      return value;
  }
}
