// Strict request validation derived from the request message: a zod schema per RPC, built once at start from the
// descriptor and its (partnerapi.v1.field) rules. Unknown properties, wrong types and bad values are rejected
// before any service code runs; the output is the message's JSON, ready for fromJson.
import { getOption, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { z } from "zod";
import { field as fieldOption, type FieldRules } from "../../gen/partnerapi/v1/options_pb.js";

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
    if (!message.fields.some((field) => field.name === name)) throw new Error(`${message.typeName} has no field ${name} for its path`);
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
      const byJsonName = Object.fromEntries(Object.entries(pathParams).map(([name, value]) => [jsonNameOf.get(name) ?? name, value]));
      const path = pathSchema.safeParse(byJsonName);
      if (body.success && path.success) return { ok: true, value: { ...(body.data as object), ...(path.data as object) } };
      return {
        ok: false,
        violations: [...(body.success ? [] : violationsOf(body.error, fields)), ...(path.success ? [] : violationsOf(path.error, byJsonName))],
      };
    },
  };
}

function objectSchema(message: DescMessage, kind: InputKind, include: (field: DescField) => boolean = () => true): z.ZodType {
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
    case "enum": {
      const names = field.enum.values.map((value) => value.name) as [string, ...string[]];
      return z.enum(names);
    }
    case "message":
      if (kind === "text") return z.never({ error: "an object cannot be sent in this encoding" });
      return objectSchema(field.message, kind);
    case "list": {
      const element =
        field.listKind === "scalar"
          ? scalarSchema(field.scalar, kind, rules)
          : field.listKind === "enum"
            ? z.enum(field.enum.values.map((value) => value.name) as [string, ...string[]])
            : kind === "json"
              ? objectSchema(field.message, kind)
              : z.never();
      const list = z.array(element);
      return rules.required ? list.min(1) : list;
    }
    case "map":
      throw new Error(`${field.parent.typeName}.${field.name}: map fields are not supported in routed requests`);
  }
}

const integerText = /^-?(0|[1-9][0-9]*)$/;
const decimalText = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function scalarSchema(scalar: ScalarType, kind: InputKind, rules: FieldRules): z.ZodType {
  switch (scalar) {
    case ScalarType.STRING: {
      let schema = z.string();
      if (rules.required) schema = schema.min(1, { error: "is required" });
      if (rules.minLength !== undefined) schema = schema.min(rules.minLength, { error: `must be at least ${rules.minLength} characters` });
      if (rules.maxLength !== undefined) schema = schema.max(rules.maxLength, { error: `must be at most ${rules.maxLength} characters` });
      if (rules.pattern) schema = schema.regex(new RegExp(`^(?:${rules.pattern})$`), { error: "has an invalid format" });
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
      let integer = z.number().int({ error: "must be an integer" }).refine(Number.isSafeInteger, { error: "is out of range" });
      if (rules.min !== undefined) integer = integer.refine((n) => n >= Number(rules.min), { error: `must be at least ${rules.min}` });
      if (rules.max !== undefined) integer = integer.refine((n) => n <= Number(rules.max), { error: `must be at most ${rules.max}` });
      if (isUnsigned(scalar)) integer = integer.refine((n) => n >= 0, { error: "must not be negative" });
      return kind === "json"
        ? integer
        : z.string().regex(integerText, { error: "must be an integer" }).transform(Number).pipe(integer);
    }
  }
}

function isUnsigned(scalar: ScalarType): boolean {
  return scalar === ScalarType.UINT32 || scalar === ScalarType.UINT64 || scalar === ScalarType.FIXED32 || scalar === ScalarType.FIXED64;
}

/** One violation per offending field, in the order the fields were found. */
function violationsOf(error: z.ZodError, input: unknown): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) violations.push({ field: [...issue.path, key].join("."), rule: "is not a known field" });
      continue;
    }
    const field = issue.path.join(".") || "(body)";
    const rule =
      issue.code !== "invalid_type" ? issue.message : valueAt(input, issue.path) === undefined ? "is required" : `must be ${expected(issue)}`;
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
