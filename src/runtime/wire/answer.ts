// A message as the JSON of the spec, read straight from the message so each value is converted once: protobuf JSON
// names (lowerCamel, or the spec's snake_case through json_name), fields with implicit presence always present,
// 64-bit integers as JSON numbers (bigint -> number), enum values in the spec's spellings (number -> `FULL`), the
// zero value absent (./spelling.ts). The OpenAPI response schemas (responseJsonSchemas) describe exactly this.
import {
  ScalarType,
  type DescEnum,
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
  return writerOf(schema, answer)(message);
}

/**
 * A request message as a client would have sent it on the public wire, for the internal port's check by the same
 * request schema (../../internal/validation-interceptor.ts): fields at their zero value are absent, as a client
 * leaves them out; an enum at its zero value (or a number the enum lacks) keeps its proto name (or number), which
 * the schema refuses, as the front refuses it.
 */
export function requestAsSent(schema: DescMessage, message: Message): JsonObject {
  return writerOf(schema, asSent)(message);
}

interface Mode {
  /** Whether fields with implicit presence are written at their zero value (and empty lists and maps). */
  emitImplicit: boolean;
  /** An enum value's JSON; undefined leaves it out. */
  enumValue(field: DescField & { enum: NonNullable<DescField["enum"]> }, number: number): JsonValue | undefined;
  /** Each message's writer in this mode, made on first use. */
  writers: WeakMap<DescMessage, Writer>;
}

const answer: Mode = {
  emitImplicit: true,
  enumValue: (field, number) => wireEnumName(field.enum, number),
  writers: new WeakMap(),
};

const asSent: Mode = {
  emitImplicit: false,
  enumValue: (field, number) =>
    wireEnumName(field.enum, number) ?? field.enum.values.find((value) => value.number === number)?.name ?? number,
  writers: new WeakMap(),
};

type Writer = (message: Message) => JsonObject;
type FieldRecord = Readonly<Record<string, unknown>>;
/** One field's part of a message's JSON: written into `json`, or left out. */
type Step = (record: FieldRecord, json: JsonObject) => void;
/** A value's JSON; undefined to leave the field out (an enum the mode does not write). */
type ValueWriter = (value: unknown) => JsonValue | undefined;

/**
 * The writer of one message in one mode: every question a field's descriptor answers (its kind, presence, zero
 * value, JSON name, the writer of a nested message) is asked once, when the writer is made, and each message
 * written runs only the steps of its fields. Walking the descriptor for every value cost an items page about as
 * much as the JSON.stringify after it (docs/benchmarks.md).
 */
function writerOf(schema: DescMessage, mode: Mode): Writer {
  const known = mode.writers.get(schema);
  if (known) return known;
  let steps: Step[] = [];
  const writer: Writer = (message) => {
    const json: JsonObject = {};
    const record: FieldRecord = message;
    for (const step of steps) step(record, json);
    return json;
  };
  // Kept before its steps are made: a message that holds itself finds its own writer.
  mode.writers.set(schema, writer);
  steps = [...schema.fields].sort((a, b) => a.number - b.number).map((field) => stepOf(field, mode));
  return writer;
}

/** A field's step, in field-number order (the order protobuf JSON writes them in). */
function stepOf(field: DescField, mode: Mode): Step {
  const name = field.jsonName;
  const local = field.localName;
  const write = valueWriterOf(field, mode);
  if (field.oneof) {
    const oneofName = field.oneof.localName;
    return (record, json) => {
      const oneof = record[oneofName] as { case: string | undefined; value?: unknown };
      if (oneof.case !== local) return;
      const written = write(oneof.value);
      if (written !== undefined) json[name] = written;
    };
  }
  const isWritten = writtenTestOf(field, mode);
  return (record, json) => {
    const value = record[local];
    if (isWritten !== undefined && !isWritten(value, record)) return;
    const written = write(value);
    if (written !== undefined) json[name] = written;
  };
}

/**
 * Whether a field (not in a oneof) is on the wire: set, or with implicit presence and written at its zero value.
 * Undefined: always.
 */
function writtenTestOf(field: DescField, mode: Mode): ((value: unknown, record: FieldRecord) => boolean) | undefined {
  if (field.fieldKind === "list") return mode.emitImplicit ? undefined : (value) => (value as unknown[]).length > 0;
  if (field.fieldKind === "map")
    return mode.emitImplicit ? undefined : (value) => Object.keys(value as object).length > 0;
  const local = field.localName;
  if (field.presence !== FieldPresence.IMPLICIT)
    return (value, record) => value !== undefined && Object.hasOwn(record, local);
  if (mode.emitImplicit) return undefined;
  if (field.fieldKind === "enum") {
    const zero = field.enum.values[0]!.number;
    return (value) => value !== zero;
  }
  switch (field.scalar) {
    case ScalarType.STRING:
      return (value) => value !== "";
    case ScalarType.BOOL:
      return (value) => value !== false;
    case ScalarType.BYTES:
      return (value) => (value as Uint8Array).byteLength > 0;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (value) => !Object.is(value, 0);
    default:
      // Integers: a number, or a bigint for the 64-bit kinds (a string under jstype = JS_STRING).
      return (value) => value !== 0 && value !== 0n && value !== "0";
  }
}

/** How one field's value is written. */
function valueWriterOf(field: DescField, mode: Mode): ValueWriter {
  switch (field.fieldKind) {
    case "scalar":
    case "enum":
    case "message":
      return elementWriterOf(field, field.fieldKind, mode);
    case "list":
      return listWriterOf(field, mode);
    case "map": {
      const element = elementWriterOf(field, field.mapKind, mode);
      return (value) => {
        const json: JsonObject = {};
        for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
          const written = element(item);
          if (written !== undefined)
            Object.defineProperty(json, key, { value: written, enumerable: true, writable: true });
        }
        return json;
      };
    }
  }
}

function listWriterOf(field: DescField & { fieldKind: "list" }, mode: Mode): ValueWriter {
  const element = elementWriterOf(field, field.listKind, mode);
  // An enum the mode does not write leaves the list, as it leaves a message.
  if (field.listKind === "enum") return (value) => (value as unknown[]).flatMap((item) => element(item) ?? []);
  return (value) => (value as unknown[]).map((item) => element(item)!);
}

/** A single value, a list's element or a map's value: the same three kinds, whatever holds them. */
function elementWriterOf(field: DescField, kind: "scalar" | "enum" | "message", mode: Mode): ValueWriter {
  if (kind === "scalar") return scalarWriterOf(field.scalar!);
  if (kind === "enum") return (value) => mode.enumValue(field as DescField & { enum: DescEnum }, value as number);
  return writerOf(field.message!, mode) as ValueWriter;
}

function scalarWriterOf(scalar: ScalarType): ValueWriter {
  if (isInt64(scalar)) return (value) => Number(value as bigint);
  switch (scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      // The proto3 JSON mapping's spellings of the values JSON has no number for.
      return (value) => {
        const number = value as number;
        if (Number.isNaN(number)) return "NaN";
        if (number === Number.POSITIVE_INFINITY) return "Infinity";
        if (number === Number.NEGATIVE_INFINITY) return "-Infinity";
        return number;
      };
    case ScalarType.BYTES:
      return (value) => base64Encode(value as Uint8Array);
    default:
      return (value) => value as JsonValue;
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
