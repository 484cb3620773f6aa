// How each kind of value is spelled on the public JSON wire (console and business routes), the one place each rule is
// written; the request decoding (./request.ts) and the answer rendering (./answer.ts) both read it from here.
//   - enums: the spec's own spellings (`FULL`, `SANDBOX`, `APPROVED`, `OWNER`), which are the proto value names
//     without their enum's prefix (PRODUCT_FULL -> FULL). The zero value (`*_UNSPECIFIED`) is never on the wire: a
//     field holding it is absent, and a request cannot send it. Only these spellings are accepted (not the proto
//     names, not numbers). Internal gRPC and Connect keep the proto names.
//   - 64-bit integers (ids, money in minor units): JSON numbers, limited to the safe integers (our ids stay below
//     2^53; the spec shows `merchant_id` as a number).
//   - times: RFC 3339 date-time strings (Date.toISOString), in string fields named `..._at`.
// docs/decisions.md, "One wire, spelled one way".
import { ScalarType, type DescEnum, type DescField } from "@bufbuild/protobuf";

interface EnumSpellings {
  /** Wire spelling by number, zero value excluded. */
  byNumber: Map<number, string>;
  /** Number by wire spelling. */
  byWire: Map<string, number>;
  /** Wire spellings in declaration order. */
  values: string[];
}

// Built once per enum, on first use: every later lookup is a map read.
const spellingsOf = new WeakMap<DescEnum, EnumSpellings>();

function spellings(descriptor: DescEnum): EnumSpellings {
  let known = spellingsOf.get(descriptor);
  if (known === undefined) {
    known = { byNumber: new Map(), byWire: new Map(), values: [] };
    for (const value of descriptor.values) {
      if (value.number === 0) continue;
      const wire = stripPrefix(descriptor, value.name);
      // An alias (a number named twice) is spelled by its first name, as it is declared.
      if (!known.byNumber.has(value.number)) known.byNumber.set(value.number, wire);
      if (!known.byWire.has(wire)) known.byWire.set(wire, value.number);
      known.values.push(wire);
    }
    spellingsOf.set(descriptor, known);
  }
  return known;
}

function stripPrefix(descriptor: DescEnum, name: string): string {
  // protobuf-es gives the prefix in lower case (`organization_role_`).
  const prefix = descriptor.sharedPrefix;
  return prefix && name.toLowerCase().startsWith(prefix.toLowerCase()) ? name.slice(prefix.length) : name;
}

/** The wire spelling of the value numbered `number`; undefined for the zero value or a number the enum lacks. */
export function wireEnumName(descriptor: DescEnum, number: number): string | undefined {
  return spellings(descriptor).byNumber.get(number);
}

/** The number of a wire spelling; undefined when it is not one (a proto name, the zero value, anything else). */
export function enumNumberOf(descriptor: DescEnum, wire: string): number | undefined {
  return spellings(descriptor).byWire.get(wire);
}

/** Every spelling a request may send, in declaration order: all values but the zero value. */
export function wireEnumValues(descriptor: DescEnum): string[] {
  return [...spellings(descriptor).values];
}

/** The wire spelling of the value named `protoName` (as gRPC and Connect JSON name it); undefined for the zero value. */
export function wireEnumNameOf(descriptor: DescEnum, protoName: string): string | undefined {
  const value = descriptor.values.find((candidate) => candidate.name === protoName);
  return value === undefined ? undefined : wireEnumName(descriptor, value.number);
}

/** The proto value name of a wire spelling (as gRPC and Connect JSON name it); undefined when it is not one. */
export function protoEnumName(descriptor: DescEnum, wire: string): string | undefined {
  const number = enumNumberOf(descriptor, wire);
  return number === undefined ? undefined : descriptor.values.find((value) => value.number === number)?.name;
}

const int64Scalars: ReadonlySet<ScalarType> = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
  ScalarType.SINT64,
]);

/** Whether a scalar is a 64-bit integer: a `bigint` in the message, a JSON number on the wire. */
export function isInt64(scalar: ScalarType): boolean {
  return int64Scalars.has(scalar);
}

/** Whether a scalar is an unsigned integer kind (never negative on the wire). */
export function isUnsigned(scalar: ScalarType): boolean {
  return (
    scalar === ScalarType.UINT32 ||
    scalar === ScalarType.UINT64 ||
    scalar === ScalarType.FIXED32 ||
    scalar === ScalarType.FIXED64
  );
}

/**
 * Whether a field holds a point in time: our protos name every such string `..._at` (created_at, expires_at, ...)
 * and the services write it as an RFC 3339 date-time (Date.toISOString), which the OpenAPI document states as
 * `format: date-time`.
 */
export function isTimestamp(field: DescField): boolean {
  return field.fieldKind === "scalar" && field.scalar === ScalarType.STRING && field.name.endsWith("_at");
}
