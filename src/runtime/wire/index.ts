// The public JSON wire (docs/decisions.md, "One wire, spelled one way"): how a request is decoded and an answer
// written, each spelling rule once. Import it from here only (.dependency-cruiser.cjs, wire-through-its-index).
//   ./spelling.ts  how each kind of value is spelled: enums (spec spelling <-> number), 64-bit integers (ids and
//                  money as JSON numbers), times (RFC 3339 in `..._at` fields)
//   ./request.ts   strict request decoding (zod, unknown fields refused) and its published JSON Schema
//   ./answer.ts    a message as the spec's JSON and its published JSON Schema
// Split by responsibility: decoding and rendering both read ./spelling.ts, and neither reads the other.
export {
  enumNumberOf,
  protoEnumName,
  wireEnumName,
  wireEnumNameOf,
  wireEnumValues,
} from "./spelling.js";
export {
  createRequestSchema,
  fieldJsonSchema,
  isRequiredField,
  requestJsonSchema,
  textProblem,
  type FieldViolation,
  type InputKind,
  type JsonSchema,
  type RequestSchema,
  type ValidationResult,
} from "./request.js";
export { messageToJson, requestAsSent, responseJsonSchemas } from "./answer.js";
