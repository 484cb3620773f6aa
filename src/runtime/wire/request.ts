// Strict request decoding derived from the request message: a zod schema per RPC, built once at start from the
// descriptor and its (partnerapi.v1.field) rules. Unknown properties, wrong types and bad values are rejected
// before any service code runs; the output is the message's JSON, ready for fromJson, with each value already in
// the form the message holds where JSON allows it (an enum's spelling read once, as its number). The same rules,
// read by the same code, also give the JSON Schema the OpenAPI document publishes (requestJsonSchema), so the two
// cannot drift. How each value is spelled: ./spelling.ts.
import { getOption, ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { z } from "zod";
import { field as fieldOption, TextKind, type FieldRules } from "../../../gen/partnerapi/v1/options_pb.js";
import { enumNumberOf, isInt64, isUnsigned, wireEnumValues } from "./spelling.js";

/**
 * How values arrive. JSON bodies carry typed values; form bodies, query strings and path variables carry text,
 * so numbers and booleans are parsed from their decimal and literal spellings.
 */
export type InputKind = "json" | "text";

/** A field-level problem, as the developer envelope's `details` and the validation message name it. */
export interface FieldViolation {
  field: string;
  rule: string;
}

export type ValidationResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; violations: FieldViolation[] };

export interface RequestSchema {
  /**
   * Validates the request as it arrived: `fields` from the body (JSON or form) or the query string, and the path
   * variables of the route, which are always text. A field bound by the path cannot also be sent in `fields`
   * (grpc-gateway's order: a field set by one source is not read from the next).
   */
  validate(fields: unknown, kind: InputKind, pathParams: Record<string, string>): ValidationResult;
}

/** Builds the schema of `message` for a route whose template binds `pathFields` (proto field names). */
export function createRequestSchema(message: DescMessage, pathFields: readonly string[] = []): RequestSchema {
  const bound = new Set(pathFields);
  for (const name of bound) {
    if (!message.fields.some((field) => field.name === name))
      throw new Error(`${message.typeName} has no field ${name} for its path`);
  }
  const fromPath = (field: DescField) => bound.has(field.name);
  const schemas = {
    json: objectSchema(message, "json", (field) => !fromPath(field)),
    text: objectSchema(message, "text", (field) => !fromPath(field)),
  };
  const pathSchema = objectSchema(message, "text", fromPath);
  // Templates name variables by proto field name ({organization_id}); the schema, like the wire, uses JSON names.
  const jsonNameOf = new Map(message.fields.filter(fromPath).map((field) => [field.name, field.jsonName]));
  return {
    validate(fields, kind, pathParams) {
      const body = schemas[kind].safeParse(fields);
      const byJsonName = Object.fromEntries(
        Object.entries(pathParams).map(([name, value]) => [jsonNameOf.get(name) ?? name, value]),
      );
      const path = pathSchema.safeParse(byJsonName);
      if (body.success && path.success)
        return { ok: true, value: { ...(body.data as object), ...(path.data as object) } };
      return {
        ok: false,
        violations: [
          ...(body.success ? [] : violationsOf(body.error, fields)),
          ...(path.success ? [] : violationsOf(path.error, byJsonName)),
        ],
      };
    },
  };
}

function objectSchema(
  message: DescMessage,
  kind: InputKind,
  include: (field: DescField) => boolean = () => true,
): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const field of message.fields) {
    if (!include(field)) continue;
    const rules = getOption(field, fieldOption);
    const schema = fieldSchema(field, kind, rules);
    shape[field.jsonName] = rules.required ? schema : schema.optional();
  }
  return z.strictObject(shape);
}

function fieldSchema(field: DescField, kind: InputKind, rules: FieldRules): z.ZodType {
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar, kind, rules);
    case "enum":
      return enumSchema(field.enum);
    case "message":
      if (kind === "text") return z.never({ error: "an object cannot be sent in this encoding" });
      return objectSchema(field.message, kind);
    case "list": {
      const element =
        field.listKind === "scalar"
          ? scalarSchema(field.scalar, kind, rules)
          : field.listKind === "enum"
            ? enumSchema(field.enum)
            : kind === "json"
              ? objectSchema(field.message, kind)
              : z.never();
      let list = z.array(element);
      if (rules.required) list = list.min(1, { error: "must hold at least 1 element" });
      if (rules.maxItems !== undefined)
        list = list.max(rules.maxItems, { error: `must hold at most ${rules.maxItems} elements` });
      return list;
    }
    case "map":
      throw new Error(`${field.parent.typeName}.${field.name}: map fields are not supported in routed requests`);
  }
}

/** An enum field: only the wire spellings (./spelling.ts), turned into the number the message holds. */
function enumSchema(descriptor: DescEnum): z.ZodType {
  const names = wireEnumValues(descriptor) as [string, ...string[]];
  return z.enum(names).transform((wire) => enumNumberOf(descriptor, wire)!);
}

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of `message` as a JSON body must be sent: the fields `include` keeps (all but the path-bound
 * ones for a route), each from the same descriptor and (partnerapi.v1.field) rules the zod schema above enforces;
 * unknown properties refused (strict). What zod checks by code (valid Unicode, the text kinds) is described.
 */
export function requestJsonSchema(
  message: DescMessage,
  include: (field: DescField) => boolean = () => true,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of message.fields) {
    if (!include(field)) continue;
    const rules = getOption(field, fieldOption);
    properties[field.jsonName] = fieldJsonSchema(field, rules);
    if (rules.required) required.push(field.jsonName);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** Whether the (partnerapi.v1.field) rules make a field required. */
export function isRequiredField(field: DescField): boolean {
  return getOption(field, fieldOption).required;
}

/** The JSON Schema of one request field (a query or path parameter's too): what fieldSchema accepts as JSON. */
export function fieldJsonSchema(field: DescField, rules: FieldRules = getOption(field, fieldOption)): JsonSchema {
  switch (field.fieldKind) {
    case "scalar":
      return scalarJsonSchema(field.scalar, rules);
    case "enum":
      return { type: "string", enum: wireEnumValues(field.enum) };
    case "message":
      return requestJsonSchema(field.message);
    case "list": {
      const items =
        field.listKind === "scalar"
          ? scalarJsonSchema(field.scalar, rules)
          : field.listKind === "enum"
            ? { type: "string", enum: wireEnumValues(field.enum) }
            : requestJsonSchema(field.message);
      return {
        type: "array",
        items,
        ...(rules.required ? { minItems: 1 } : {}),
        ...(rules.maxItems !== undefined ? { maxItems: rules.maxItems } : {}),
      };
    }
    case "map":
      throw new Error(`${field.parent.typeName}.${field.name}: map fields are not supported in routed requests`);
  }
}

const textKindNote: Record<TextKind, string> = {
  [TextKind.UNSPECIFIED]: "Valid Unicode on one line: no NUL, control or bidirectional control characters.",
  [TextKind.MULTILINE]:
    "Valid Unicode: no NUL, control (tab and line breaks allowed) or bidirectional control characters.",
  [TextKind.SECRET]: "Valid Unicode without NUL.",
};

function scalarJsonSchema(scalar: ScalarType, rules: FieldRules): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING: {
      const schema: JsonSchema = { type: "string", description: textKindNote[rules.text] };
      const minLength = Math.max(rules.required ? 1 : 0, rules.minLength ?? 0);
      if (minLength > 0) schema["minLength"] = minLength;
      if (rules.maxLength !== undefined) schema["maxLength"] = rules.maxLength;
      if (rules.pattern) schema["pattern"] = `^(?:${rules.pattern})$`;
      return schema;
    }
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    default: {
      // int64 ids are JSON numbers on our wire, limited to the safe integers like the zod schema.
      const wide = isInt64(scalar);
      const lowest = [
        isUnsigned(scalar) ? 0 : -Number.MAX_SAFE_INTEGER,
        ...(rules.min !== undefined ? [Number(rules.min)] : []),
      ];
      const highest = [Number.MAX_SAFE_INTEGER, ...(rules.max !== undefined ? [Number(rules.max)] : [])];
      const format = wide ? { format: "int64" } : isUnsigned(scalar) ? {} : { format: "int32" };
      return { type: "integer", ...format, minimum: Math.max(...lowest), maximum: Math.min(...highest) };
    }
  }
}

const integerText = /^-?(0|[1-9][0-9]*)$/;
const decimalText = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function scalarSchema(scalar: ScalarType, kind: InputKind, rules: FieldRules): z.ZodType {
  switch (scalar) {
    case ScalarType.STRING: {
      // What the string may hold comes first and stops the other checks: a length counted over a lone surrogate
      // or a control character says nothing useful.
      let schema = z.string().refine((value) => textProblem(value, rules.text) === undefined, {
        error: (issue) => textProblem(issue.input as string, rules.text),
        abort: true,
      });
      if (rules.required) schema = schema.min(1, { error: "is required" });
      if (rules.minLength !== undefined)
        schema = schema.min(rules.minLength, { error: `must be at least ${rules.minLength} characters` });
      if (rules.maxLength !== undefined)
        schema = schema.max(rules.maxLength, { error: `must be at most ${rules.maxLength} characters` });
      if (rules.pattern)
        schema = schema.regex(new RegExp(`^(?:${rules.pattern})$`), { error: "has an invalid format" });
      return schema;
    }
    case ScalarType.BOOL:
      return kind === "json"
        ? z.boolean()
        : z.enum(["true", "false"], { error: "must be true or false" }).transform((text) => text === "true");
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      const number = z.number().refine(Number.isFinite, { error: "must be a finite number" });
      return kind === "json"
        ? number
        : z.string().regex(decimalText, { error: "must be a number" }).transform(Number).pipe(number);
    }
    case ScalarType.BYTES:
      return z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, { error: "must be base64" });
    default: {
      // Every integer kind. int64 ids are JSON numbers on our wire (jstype = JS_NUMBER), so they must stay safe.
      let integer = z
        .number()
        .int({ error: "must be an integer" })
        .refine(Number.isSafeInteger, { error: "is out of range" });
      if (rules.min !== undefined)
        integer = integer.refine((n) => n >= Number(rules.min), { error: `must be at least ${rules.min}` });
      if (rules.max !== undefined)
        integer = integer.refine((n) => n <= Number(rules.max), { error: `must be at most ${rules.max}` });
      if (isUnsigned(scalar)) integer = integer.refine((n) => n >= 0, { error: "must not be negative" });
      return kind === "json"
        ? integer
        : z.string().regex(integerText, { error: "must be an integer" }).transform(Number).pipe(integer);
    }
  }
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one: not a Unicode scalar value,
// so not encodable as UTF-8 (protobuf refuses it on the wire, PostgreSQL in text).
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// C0 (but NUL, checked first), DEL and C1.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this expression is for.
const controls = /[\u0001-\u001F\u007F-\u009F]/;
// As above, without tab, line feed and carriage return.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this expression is for.
const controlsBesideLines = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// Embeddings and overrides (U+202A-U+202E) and isolates (U+2066-U+2069): they reorder what follows them when
// shown (Unicode TR9; "Trojan Source", CVE-2021-42574). The marks U+200E/U+200F reorder nothing and are allowed.
const bidiControls = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * What is wrong with `value` for a string field of `kind` (docs/decisions.md, "Requests at the front": what names
 * and free text may hold), or undefined. Every string must be valid Unicode without NUL (PostgreSQL text holds
 * neither); names and free text also refuse control characters (free text keeps tab and line breaks) and the
 * bidirectional controls; secrets only follow the first rule.
 */
export function textProblem(value: string, kind: TextKind = TextKind.UNSPECIFIED): string | undefined {
  if (loneSurrogate.test(value)) return "must not contain lone surrogates (invalid Unicode)";
  if (value.includes("\u0000")) return "must not contain NUL characters";
  if (kind === TextKind.SECRET) return undefined;
  if ((kind === TextKind.MULTILINE ? controlsBesideLines : controls).test(value))
    return "must not contain control characters";
  if (bidiControls.test(value)) return "must not contain bidirectional control characters";
  return undefined;
}

/** One violation per offending field, in the order the fields were found. */
function violationsOf(error: z.ZodError, input: unknown): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        violations.push({ field: [...issue.path, key].join("."), rule: "is not a known field" });
      continue;
    }
    const field = issue.path.join(".") || "(body)";
    const rule =
      issue.code !== "invalid_type"
        ? issue.message
        : valueAt(input, issue.path) === undefined
          ? "is required"
          : `must be ${expected(issue)}`;
    violations.push({ field, rule });
  }
  return violations;
}

function expected(issue: z.core.$ZodIssueInvalidType): string {
  const article = /^[aeiou]/.test(issue.expected) ? "an" : "a";
  return issue.expected === "object" ? "an object" : `${article} ${issue.expected}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
