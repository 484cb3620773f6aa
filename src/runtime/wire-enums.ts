// How enum values are spelled on the public JSON wire (console and business routes), in one place for reading and
// writing: the spec's own spellings (`FULL`, `SANDBOX`, `APPROVED`, `OWNER`), which are the proto value names
// without their enum's prefix (PRODUCT_FULL -> FULL). The zero value (`*_UNSPECIFIED`) is never on the wire: a field
// holding it is absent, and a request cannot send it. Only these spellings are accepted (not the proto names, not
// numbers). Internal gRPC keeps the proto names (docs/decisions.md, "One wire, spelled one way").
import type { DescEnum } from "@bufbuild/protobuf";

/** The wire spelling of the value numbered `number`; undefined for the zero value or a number the enum lacks. */
export function wireEnumName(descriptor: DescEnum, number: number): string | undefined {
  if (number === 0) return undefined;
  const value = descriptor.values.find((candidate) => candidate.number === number);
  return value === undefined ? undefined : stripPrefix(descriptor, value.name);
}

/** The wire spelling of the value named `protoName` (as protobuf JSON writes it); undefined for the zero value. */
export function wireEnumNameOf(descriptor: DescEnum, protoName: string): string | undefined {
  const value = descriptor.values.find((candidate) => candidate.name === protoName);
  return value === undefined ? undefined : wireEnumName(descriptor, value.number);
}

/** Every spelling a request may send, in declaration order: all values but the zero value. */
export function wireEnumValues(descriptor: DescEnum): string[] {
  return descriptor.values.filter((value) => value.number !== 0).map((value) => stripPrefix(descriptor, value.name));
}

/** The proto value name of a wire spelling (for fromJson); undefined when it is not one. */
export function protoEnumName(descriptor: DescEnum, wire: string): string | undefined {
  return descriptor.values.find((value) => value.number !== 0 && stripPrefix(descriptor, value.name) === wire)?.name;
}

function stripPrefix(descriptor: DescEnum, name: string): string {
  // protobuf-es gives the prefix in lower case (`organization_role_`).
  const prefix = descriptor.sharedPrefix;
  return prefix && name.toLowerCase().startsWith(prefix.toLowerCase()) ? name.slice(prefix.length) : name;
}
