// Availability in one store, of an item or a modifier (issue 39): no stored row is available; a sold-out row whose
// unavailable_until has passed reads available again, computed at read time so nothing has to run to bring it back.
import type { AvailabilityRow } from "./queries/item-queries.js";

/** Whether a stored availability (or none) sells at `now`. */
export function isAvailableAt(row: AvailabilityRow | undefined, now: Date): boolean {
  return !row || row.available || (row.unavailable_until !== null && row.unavailable_until <= now);
}
