// What a validation failure names: at most a few fields, each name cut short, so the size of the answer is bounded
// by a constant and never by the input. A body naming 16,716 unknown fields got a 932 KB answer (14 times its own
// size) before; a client needs the first few names to fix its request, not all of them (issue 27).
import type { FieldViolation } from "../runtime/wire/index.js";

/** The most fields a validation failure names; the rest are counted. */
export const namedFieldsLimit = 10;
/** The longest field name repeated in an answer, in UTF-16 units; a longer one is cut and ends with "…". */
export const fieldNameLimit = 64;

export interface ViolationSummary {
  /** The `fields` parameter: the first names, comma-separated, then `, … (+N)` when N more were not named. */
  fields: string;
  /** The violations of the named fields, in order, at most two per field. */
  details: FieldViolation[];
}

/** Names the first namedFieldsLimit distinct fields of `violations` and counts the others. */
export function summarizeViolations(violations: readonly FieldViolation[]): ViolationSummary {
  const distinct: string[] = [];
  const seen = new Set<string>();
  for (const { field } of violations) {
    if (seen.has(field)) continue;
    seen.add(field);
    distinct.push(field);
  }
  const named = new Set(distinct.slice(0, namedFieldsLimit));
  const perField = new Map<string, number>();
  const details: FieldViolation[] = [];
  for (const violation of violations) {
    if (!named.has(violation.field)) continue;
    const count = (perField.get(violation.field) ?? 0) + 1;
    perField.set(violation.field, count);
    if (count <= 2) details.push({ field: cut(violation.field), rule: cut(violation.rule, 200) });
  }
  const more = distinct.length - named.size;
  // Language-neutral on purpose: the catalogue's message in every locale wraps this list.
  const fields = [...named].map((field) => cut(field)).join(", ") + (more > 0 ? `, … (+${more})` : "");
  return { fields, details };
}

function cut(text: string, limit = fieldNameLimit): string {
  if (text.length <= limit) return text;
  // Never split a surrogate pair: the answer stays valid UTF-8.
  let end = limit - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? "")) end--;
  return `${text.slice(0, end)}…`;
}
