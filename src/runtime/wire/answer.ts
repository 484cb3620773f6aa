// A message as the JSON of the spec, read straight from the message so each value is converted once: protobuf JSON
// names (lowerCamel, or the spec's snake_case through json_name), fields with implicit presence always present,
// 64-bit integers as JSON numbers (bigint -> number), enum values in the spec's spellings (number -> `FULL`), the
// zero value absent (./spelling.ts). The OpenAPI response schemas (responseJsonSchemas) describe exactly this.
import {
  ScalarType,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence as FieldPresence } from "@bufbuild/protobuf/wkt";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { isInt64, isTimestamp, wireEnumName, wireEnumValues } from "./spelling.js";

/** A response message as the public wire answers it. */
export function messageToJson(schema: DescMessage, message: Message): JsonObject {
  return writeMessage(schema, message, answer);
}

/**
 * A request message as a client would have sent it on the public wire, for the internal port's check by the same
 * request schema (../../internal/validation-interceptor.ts): fields at their zero value are absent, as a client
 * leaves them out; an enum at its zero value (or a number the enum lacks) keeps its proto name (or number), which
 * the schema refuses, as the front refuses it.
 */
export function requestAsSent(schema: DescMessage, message: Message): JsonObject {
  return writeMessage(schema, message, asSent);
}

interface Mode {
  /** Whether fields with implicit presence are written at their zero value (and empty lists and maps). */
  emitImplicit: boolean;
  /** An enum value's JSON; undefined leaves it out. */
  enumValue(field: DescField & { enum: NonNullable<DescField["enum"]> }, number: number): JsonValue | undefined;
}

const answer: Mode = {
  emitImplicit: true,
  enumValue: (field, number) => wireEnumName(field.enum, number),
};

const asSent: Mode = {
  emitImplicit: false,
  enumValue: (field, number) =>
    wireEnumName(field.enum, number) ?? field.enum.values.find((value) => value.number === number)?.name ?? number,
};

// Fields in field-number order, the order protobuf JSON writes them in.
const sortedFieldsOf = new WeakMap<DescMessage, DescField[]>();

function sortedFields(schema: DescMessage): DescField[] {
  let fields = sortedFieldsOf.get(schema);
  if (fields === undefined) {
    fields = [...schema.fields].sort((a, b) => a.number - b.number);
    sortedFieldsOf.set(schema, fields);
  }
  return fields;
}

function writeMessage(schema: DescMessage, message: Message, mode: Mode): JsonObject {
  const json: JsonObject = {};
  const record: Readonly<Record<string, unknown>> = message;
  for (const field of sortedFields(schema)) {
    let value: unknown;
    if (field.oneof) {
      const oneof = record[field.oneof.localName] as { case: string | undefined; value?: unknown };
      if (oneof.case !== field.localName) continue;
      value = oneof.value;
    } else {
      value = record[field.localName];
      if (!isWritten(field, value, record, mode)) continue;
    }
    const written = writeField(field, value, mode);
    if (written !== undefined) json[field.jsonName] = written;
  }
  return json;
}

/** Whether a field (not in a oneof) is on the wire: set, or with implicit presence and written at its zero value. */
function isWritten(field: DescField, value: unknown, record: Readonly<Record<string, unknown>>, mode: Mode): boolean {
  if (field.fieldKind === "list") return mode.emitImplicit || (value as unknown[]).length > 0;
  if (field.fieldKind === "map") return mode.emitImplicit || Object.keys(value as object).length > 0;
  if (field.presence !== FieldPresence.IMPLICIT) return value !== undefined && Object.hasOwn(record, field.localName);
  if (mode.emitImplicit) return true;
  if (field.fieldKind === "enum") return value !== field.enum.values[0]!.number;
  switch (field.scalar) {
    case ScalarType.STRING:
      return value !== "";
    case ScalarType.BOOL:
      return value !== false;
    case ScalarType.BYTES:
      return (value as Uint8Array).byteLength > 0;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return !Object.is(value, 0);
    default:
      // Integers: a number, or a bigint for the 64-bit kinds (a string under jstype = JS_STRING).
      return value !== 0 && value !== 0n && value !== "0";
  }
}

/** The JSON of one field's value; undefined to leave it out (an enum the mode does not write). */
function writeField(field: DescField, value: unknown, mode: Mode): JsonValue | undefined {
  switch (field.fieldKind) {
    case "scalar":
      return writeScalar(field.scalar, value);
    case "enum":
      return mode.enumValue(field, value as number);
    case "message":
      return writeMessage(field.message, value as Message, mode);
    case "list": {
      const items = value as unknown[];
      switch (field.listKind) {
        case "scalar":
          return items.map((item) => writeScalar(field.scalar, item));
        case "enum":
          return items.flatMap((item) => mode.enumValue(field, item as number) ?? []);
        case "message":
          return items.map((item) => writeMessage(field.message, item as Message, mode));
      }
      break;
    }
    case "map": {
      const json: JsonObject = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const written =
          field.mapKind === "scalar"
            ? writeScalar(field.scalar, item)
            : field.mapKind === "enum"
              ? mode.enumValue(field, item as number)
              : writeMessage(field.message, item as Message, mode);
        if (written !== undefined)
          Object.defineProperty(json, key, { value: written, enumerable: true, writable: true });
      }
      return json;
    }
  }
}

function writeScalar(scalar: ScalarType, value: unknown): JsonValue {
  if (isInt64(scalar)) return Number(value as bigint);
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      // The proto3 JSON mapping's spellings of the values JSON has no number for.
      const number = value as number;
      if (Number.isNaN(number)) return "NaN";
      if (number === Number.POSITIVE_INFINITY) return "Infinity";
      if (number === Number.NEGATIVE_INFINITY) return "-Infinity";
      return number;
    }
    case ScalarType.BYTES:
      return base64Encode(value as Uint8Array);
    default:
      return value as JsonValue;
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
  /** A list's element or a map's value: the same three kinds, whatever holds them. */
  const elementSchema = (kind: "scalar" | "enum" | "message"): JsonObject =>
    kind === "scalar"
      ? scalarResponseSchema(field.scalar!)
      : kind === "enum"
        ? enumSchema(field.enum!)
        : message(field.message!);
  switch (field.fieldKind) {
    case "scalar":
      return isTimestamp(field) ? { type: "string", format: "date-time" } : scalarResponseSchema(field.scalar);
    case "enum":
      return enumSchema(field.enum);
    case "message":
      return message(field.message);
    case "list":
      return { type: "array", items: elementSchema(field.listKind) };
    case "map":
      return { type: "object", additionalProperties: elementSchema(field.mapKind) };
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
