// What a catalogue write's broken constraint means to a partner: the codes of src/errors/catalogue.ts, read from the
// constraint's name, for the writes of ./catalogue.ts and ./menu-categories.ts.
import { violatedConstraint } from "./queries/region-tables.js";
import { fail } from "./data-context.js";

/**
 * Unique constraints a partner write can break, each with the request field (its JSON name) that clashed: db.duplicate
 * names it in `params.field`, so a partner knows which value to change without parsing the message.
 */
const duplicateConstraints = new Map([
  ["items__company_id_code__key", "code"],
  ["items__company_id_barcode__key", "barcode"],
  ["categories__company_id_name__key", "name"],
  ["categories__company_id_code__key", "code"],
]);
/** Foreign keys a partner write can break, each with the request field that named what is not there. */
const missingReferenceConstraints = new Map([["items__company_id_category_id__fkey", "categoryId"]]);

/** Turns a broken named constraint into its catalogue code; anything else goes on as it was. */
export function writeError(error: unknown): unknown {
  const unique = violatedConstraint(error, "23505");
  const field = unique === undefined ? undefined : duplicateConstraints.get(unique);
  if (field) return fail("db.duplicate", error, { field });
  const reference = violatedConstraint(error, "23503");
  const missing = reference === undefined ? undefined : missingReferenceConstraints.get(reference);
  // docs/error-codes.md: an item write whose categoryId is not one of the merchant's (another merchant's, or none).
  if (missing) return fail("partner.category_not_found", error, { field: missing });
  return error;
}
